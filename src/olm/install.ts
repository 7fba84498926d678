// `tsop olm install`: load the release manifests → refuse if OLM (or part of it) is already there →
// apply CRDs, wait Established, apply the rest (server-side apply) → wait for OLM's deployments and
// the packageserver CSV → report the status table. On failure, delete what this run created.
import { errorFrom, TimeoutError, TsopError } from "../common/errors.js";
import { trackLeftovers } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "../kube/client.js";
import {
  type AppliedObject,
  applyAll,
  describeRef,
  type KubeObject,
  type ObjectRef,
  type WaitTarget,
  waitFor,
} from "../kube/index.js";
import { deleteAndWait } from "../kube/delete.js";
import { describeFound, detectOlm } from "./detect.js";
import { csvCheck, healthOf } from "./health.js";
import { messages } from "./messages.js";
import { loadRelease, normalizeVersion, type OlmRelease, packageserverCsv } from "./release.js";
import { connect } from "../kube/connect.js";
import { type OlmClusterOptions, type OlmManifestOptions, type OlmStatus, statusOf } from "./status.js";

export interface InstallOptions extends OlmClusterOptions, OlmManifestOptions {
  /** Apply over an existing install of the same version (repairs a partial install). */
  force?: boolean;
  /** Aborting (Ctrl-C) stops the install and removes what it created. */
  signal?: AbortSignal;
}

export interface InstallResult extends OlmStatus {
  version: string;
  source: { origin: OlmRelease["origin"]; location: string };
  applied: AppliedObject[];
}

export async function olmInstall(options: InstallOptions): Promise<InstallResult> {
  const started = Date.now();
  const remaining = () => Math.max(1000, options.timeoutMs - (Date.now() - started));
  const reporter = options.reporter;
  const release = await loadRelease({ ...options, env: options.env ?? process.env, reporter });
  const { client } = await connect(options);
  try {
    reporter.info("Checking for an existing OLM");
    const existing = await detectOlm(client);
    if (existing.managedBy) {
      throw errorFrom(messages.platformManaged(existing.managedBy.platform, existing.managedBy.namespace));
    }
    if (existing.found.length > 0) {
      if (!options.force) {
        throw errorFrom(messages.alreadyInstalled(describeFound(existing)));
      }
      if (
        existing.version &&
        release.version !== "unknown" &&
        existing.version !== normalizeVersion(release.version)
      ) {
        throw errorFrom(messages.forceVersionMismatch(existing.version, release.version));
      }
      reporter.warn(
        `--force: applying OLM ${release.version} over ${existing.found.length} existing OLM object(s)`,
      );
    }

    reporter.info(`Installing OLM ${release.version}`);
    const applied = await applyUntilReady(client, [...release.crds, ...release.resources], {
      targets: readinessTargets(release),
      what: "OLM to become ready",
      version: release.version,
      reporter,
      remaining,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      // Part of the install: a failure here (Ctrl-C) rolls it back too.
      afterReady: () =>
        settleCatalogs(client, release, reporter, Math.min(CATALOG_GRACE_MS, remaining()), options.signal),
    });
    const status = await statusOf(client, { ...existing, found: [] }, release);
    reporter.success(`OLM ${release.version} installed`);
    return {
      ...status,
      version: release.version,
      source: { origin: release.origin, location: release.location },
      applied,
    };
  } finally {
    client.close();
  }
}

export interface ApplyUntilReadyOptions {
  /** What must be ready once everything is applied. */
  targets: WaitTarget[];
  /** The wait's progress text ("OLM to become ready"). */
  what: string;
  /** The version named in the failure message. */
  version: string;
  reporter: Reporter;
  /** The command's budget left, in milliseconds. */
  remaining: () => number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** More waiting that belongs to the install (its failure rolls back as well). */
  afterReady?: () => Promise<void>;
}

/**
 * The install flow `olm install` and `olm install --v1` share: server-side apply in dependency
 * order (CRDs Established first), wait for the targets, and on any failure or Ctrl-C delete what
 * this run created (not what was there before) and say what is left.
 */
export async function applyUntilReady(
  client: KubeClient,
  objects: KubeObject[],
  options: ApplyUntilReadyOptions,
): Promise<AppliedObject[]> {
  const { reporter, remaining } = options;
  const created: ObjectRef[] = [];
  trackLeftovers(options.signal, () => created.map(describeRef));
  try {
    const applied = await applyAll(client, objects, {
      reporter,
      timeoutMs: remaining(),
      signal: options.signal,
      onApplied: (a) => {
        if (a.action === "created") created.push(a.ref);
      },
    });
    await waitFor(client, options.targets, {
      timeoutMs: remaining(),
      totalTimeoutMs: options.timeoutMs,
      reporter,
      what: options.what,
      signal: options.signal,
    });
    await options.afterReady?.();
    return applied;
  } catch (error) {
    throw await rollback(client, created, error, options.version, reporter, options.timeoutMs);
  }
}

/** What "installed" means: OLM's deployments rolled out and the packageserver CSV Succeeded. */
export function readinessTargets(release: OlmRelease): WaitTarget[] {
  const targets: WaitTarget[] = [];
  for (const d of release.resources.filter((o) => o.kind === "Deployment")) {
    targets.push({
      ref: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: d.metadata.namespace ?? "default",
        name: d.metadata.name ?? "",
      },
      check: (obj) => healthOf("Deployment", obj),
    });
  }
  const csv = packageserverCsv(release.resources);
  if (csv) {
    const namespace = csv.metadata.namespace ?? "default";
    for (const d of (csv.spec?.install?.spec?.deployments ?? []) as Array<{ name?: string }>) {
      if (!d.name) continue;
      targets.push({
        ref: { apiVersion: "apps/v1", kind: "Deployment", namespace, name: d.name },
        check: (obj) => healthOf("Deployment", obj),
      });
    }
    targets.push({
      ref: { apiVersion: csv.apiVersion, kind: csv.kind, namespace, name: csv.metadata.name ?? "" },
      check: csvCheck,
    });
  }
  return targets;
}

/** How long install gives the release's CatalogSources to connect before reporting. */
const CATALOG_GRACE_MS = 60_000;

/**
 * Gives the release's CatalogSources (operatorhub.io's) a moment to connect, so the table shows
 * their settled state. Not a condition of success: a cluster without internet access never
 * connects to that catalog, and OLM works without it; a warning says so.
 */
async function settleCatalogs(
  client: KubeClient,
  release: OlmRelease,
  reporter: Reporter,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const targets: WaitTarget[] = release.resources
    .filter((o) => o.kind === "CatalogSource")
    .map((o) => ({
      ref: {
        apiVersion: o.apiVersion,
        kind: o.kind,
        namespace: o.metadata.namespace,
        name: o.metadata.name ?? "",
      },
      check: (obj) => healthOf("CatalogSource", obj),
    }));
  if (targets.length === 0) return;
  try {
    await waitFor(client, targets, { timeoutMs, reporter, what: "OLM's catalogs to connect", signal });
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    reporter.warn(
      `not every catalog is READY yet (OLM itself is ready; a catalog needs its image and, for operatorhub.io's, the network): ${error.message.split("\n").slice(1).join("; ").trim()}`,
    );
  }
}

/** Deletes what this run created in the shared delete order (delete.ts), CRDs last. */
async function rollback(
  client: KubeClient,
  created: ObjectRef[],
  cause: unknown,
  version: string,
  reporter: Reporter,
  timeoutMs: number,
): Promise<unknown> {
  const original = cause instanceof Error ? cause : new Error(String(cause));
  if (created.length === 0) return cause;
  reporter.warn(`install failed; removing the ${created.length} object(s) this run created`);
  // Newest first within the shared delete order (namespaced, cluster-scoped, namespaces, CRDs last).
  const { left } = await deleteAndWait(client, [...created].reverse(), {
    reporter,
    // The install's own budget, at least a minute: kube-apiserver removes a CRD created moments
    // earlier only after its storage initialised, retrying with back-off (slow under load).
    timeoutMs: Math.max(60_000, timeoutMs),
    what: "the partial install to be removed",
  });
  const summary =
    left.length === 0
      ? "the cluster was left as it was before the install (everything this run created was removed)"
      : `these objects could not be removed:\n${left.map((l) => `  - ${l}`).join("\n")}`;
  const exitCode = original instanceof TsopError ? original.exitCode : 1;
  const hint = original instanceof TsopError ? original.hint : undefined;
  return new TsopError(`${messages.installFailed(version, original.message)}\n${summary}`, {
    hint,
    exitCode,
    cause,
  });
}
