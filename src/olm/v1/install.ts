// `tsop olm install --v1`: the shipped OLM v1 (release.ts) → refuse when OLM v1 is there (another
// version always; the same one unless --force) → issue the certificates cert-manager would
// (certificates.ts) → v0's install flow (applyUntilReady: ordered server-side apply, CRDs
// Established, catalogd's and operator-controller's Deployments Available, rollback on failure or
// Ctrl-C) → the status table.
import { errorFrom } from "../../common/errors.js";
import type { KubeClient } from "../../kube/client.js";
import { connect } from "../../kube/connect.js";
import { describeRef, refOf, type WaitTarget } from "../../kube/index.js";
import { healthOf } from "../health.js";
import { applyUntilReady, type InstallResult } from "../install.js";
import { type OlmClusterOptions, statusOf } from "../status.js";
import { caFromSecret, certificateSecrets, newCa, withCaBundle } from "./certificates.js";
import { detectOlmV1, type ExistingOlmV1 } from "./detect.js";
import { v1Messages } from "./messages.js";
import {
  caSecretRef,
  certificateSecretRefs,
  describeV1,
  loadV1Release,
  type OlmV1Components,
  type OlmV1Release,
} from "./release.js";
import { statusRelease } from "./status.js";

export interface InstallV1Options extends OlmClusterOptions {
  /** Apply over an existing install of the same version (repairs a partial install). */
  force?: boolean;
  signal?: AbortSignal;
  /** The directory of the OLM v1 manifests (tests); default: the one shipped with tsop. */
  releaseDir?: string;
}

export interface InstallV1Result extends InstallResult {
  components: OlmV1Components;
}

export async function olmInstallV1(options: InstallV1Options): Promise<InstallV1Result> {
  const started = Date.now();
  const remaining = () => Math.max(1000, options.timeoutMs - (Date.now() - started));
  const reporter = options.reporter;
  const release = await loadV1Release(options.releaseDir);
  reporter.info(`Using OLM v1 manifests shipped with tsop (${describeV1(release.components)})`);
  const { client } = await connect(options);
  try {
    reporter.info("Checking for an existing OLM v1");
    const existing = await detectOlmV1(client);
    refuseExisting(existing, release, options.force ?? false);
    if (existing.found.length > 0)
      reporter.warn(
        `--force: applying ${release.version} over ${existing.found.length} existing OLM v1 object(s)`,
      );
    const { ca, keep } = await certificateAuthority(client, release, existing.found.length > 0);
    const objects = [
      ...release.crds,
      ...withCaBundle(release.resources, ca),
      ...certificateSecrets(release, ca, keep),
    ];
    reporter.info(`Installing OLM ${release.version}`);
    const applied = await applyUntilReady(client, objects, {
      targets: readinessTargetsV1(release),
      what: "OLM v1 to become ready",
      version: release.version,
      reporter,
      remaining,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    const status = await statusOf(client, { found: [] }, statusRelease(release));
    reporter.success(`OLM ${release.version} installed`);
    return {
      ...status,
      version: release.version,
      components: release.components,
      source: { origin: release.origin, location: release.location },
      applied,
    };
  } finally {
    client.close();
  }
}

/** Another version is refused even with --force; the same version needs --force (a repair). */
function refuseExisting(existing: ExistingOlmV1, release: OlmV1Release, force: boolean): void {
  if (existing.found.length === 0) return;
  const { catalogd, operatorController } = existing.components;
  const differs =
    (catalogd !== undefined && catalogd !== release.components.catalogd) ||
    (operatorController !== undefined && operatorController !== release.components.operatorController);
  if (differs) {
    const installed = describeV1({
      catalogd: catalogd ?? "unknown",
      operatorController: operatorController ?? "unknown",
    });
    throw errorFrom(v1Messages.otherVersion(installed, describeV1(release.components)));
  }
  if (!force) throw errorFrom(v1Messages.alreadyInstalled(existing.found.map(describeRef)));
}

/** A new CA, or on a repair the stored one, with the certificate Secrets that already exist. */
async function certificateAuthority(client: KubeClient, release: OlmV1Release, repair: boolean) {
  const keep = new Set<string>();
  const stored = repair ? caFromSecret(await client.get(caSecretRef(release))) : undefined;
  if (!stored) return { ca: newCa(), keep };
  keep.add(caSecretRef(release).name);
  for (const ref of certificateSecretRefs(release)) if (await client.get(ref)) keep.add(ref.name);
  return { ca: stored, keep };
}

/** What "installed" means: the CRDs Established and every Deployment Available. */
export function readinessTargetsV1(release: OlmV1Release): WaitTarget[] {
  return [...release.crds, ...release.resources.filter((o) => o.kind === "Deployment")].map((o) => ({
    ref: refOf(o),
    check: (obj) => healthOf(o.kind, obj),
  }));
}
