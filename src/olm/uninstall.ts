// `tsop olm uninstall`: find OLM and its version → refuse while OLM-installed operators remain
// (unless --force) → delete in a safe order, waiting for each step: operators' Subscriptions and
// CSVs (while OLM still runs to process their finalizers), OLM's own CSV, catalogs and groups, its
// deployments, what OLM created outside its namespaces (owned.ts), the remaining objects and
// namespaces, and the CRDs last.
import { errorFrom } from "../common/errors.js";
import type { KubeClient } from "../kube/client.js";
import {
  describeRef,
  goneCheck,
  isCrd,
  isNoMatch,
  isNotFound,
  type KubeObject,
  type ObjectRef,
  refOf,
  waitFor,
} from "../kube/index.js";
import { detectOlm, isCopied, OLM_GROUP } from "./detect.js";
import { messages } from "./messages.js";
import { connect } from "../kube/connect.js";
import { ownedOutside } from "./owned.js";
import {
  type OlmClusterOptions,
  type OlmManifestOptions,
  reconcileVersion,
  statusRefs,
  tryLoadRelease,
} from "./status.js";

export interface UninstallOptions extends OlmClusterOptions, OlmManifestOptions {
  /** Also delete operators that OLM installed. */
  force?: boolean;
}

export interface UninstallResult {
  version?: string;
  deleted: Array<{ name: string; namespace: string; kind: string }>;
  /** Operators removed because of --force. */
  removedOperators: string[];
}

export async function olmUninstall(options: UninstallOptions): Promise<UninstallResult> {
  const started = Date.now();
  const remaining = () => Math.max(1000, options.timeoutMs - (Date.now() - started));
  const reporter = options.reporter;
  const { client } = await connect(options);
  try {
    const existing = await detectOlm(client);
    if (existing.managedBy) {
      throw errorFrom(messages.platformManaged(existing.managedBy.platform, existing.managedBy.namespace));
    }
    if (existing.found.length === 0) {
      throw errorFrom(messages.notInstalled());
    }
    const version = reconcileVersion(existing, options.version);
    const release = await tryLoadRelease(options, version);
    const manifestCsvs = new Set(
      (release?.resources ?? [])
        .filter((o) => o.kind === "ClusterServiceVersion")
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    );
    if (existing.packageserver)
      manifestCsvs.add(
        `${existing.packageserver.metadata.namespace}/${existing.packageserver.metadata.name}`,
      );

    const operators = await remainingOperators(client, manifestCsvs);
    if (operators.length > 0 && !options.force) {
      throw errorFrom(messages.operatorsRemain(operators.map((o) => o.label)));
    }
    reporter.info(`Uninstalling OLM${version ? ` ${version}` : ""}`);
    const deleted: ObjectRef[] = [];
    const step = async (what: string, refs: ObjectRef[]) => {
      if (refs.length === 0) return;
      for (const ref of refs) {
        if (await client.delete(ref)) {
          reporter.info(`  deleting ${describeRef(ref)}`);
          deleted.push(ref);
        }
      }
      await waitFor(
        client,
        refs.map((ref) => ({ ref, check: goneCheck })),
        { timeoutMs: remaining(), totalTimeoutMs: options.timeoutMs, reporter, what },
      );
    };

    if (operators.length > 0) {
      reporter.warn(`--force: removing ${operators.length} OLM-managed operator object(s)`);
      await step(
        "operator subscriptions to be deleted",
        operators.filter((o) => o.ref.kind === "Subscription").map((o) => o.ref),
      );
      await step(
        "operator CSVs to be deleted",
        operators.filter((o) => o.ref.kind === "ClusterServiceVersion").map((o) => o.ref),
      );
    }

    const all = statusRefs(existing, release);
    const isOlmKind = (ref: ObjectRef) => ref.apiVersion.startsWith(`${OLM_GROUP}/`);
    const deployments = all.filter((r) => r.kind === "Deployment");
    const olmObjects = all.filter((r) => isOlmKind(r));
    const crds = all.filter((r) => isCrd(r));
    const namespaces = all.filter((r) => r.kind === "Namespace" && r.apiVersion === "v1");
    const rest = all
      .filter((r) => !isOlmKind(r) && !isCrd(r) && r.kind !== "Deployment" && !namespaces.includes(r))
      .reverse();

    // OLM's own CSV first, while olm-operator still runs to clear its finalizer; then the rest.
    await step("OLM's CSVs, catalogs and operator groups to be deleted", olmObjects);
    await step("OLM's deployments to be deleted", deployments);
    // With OLM stopped nothing re-creates them: what OLM made outside its namespaces, by owner label.
    const namespaceNames = [
      ...new Set([...namespaces.map((n) => n.name), ...all.map((r) => r.namespace ?? "")]),
    ];
    await step(
      "what OLM created outside its namespaces to be deleted",
      await ownedOutside(client, namespaceNames.filter(Boolean)),
    );
    await step("OLM's service accounts and RBAC to be deleted", rest);
    await step("OLM's namespaces to be deleted", namespaces);
    await step("OLM's CRDs to be deleted", crds);

    reporter.success(`OLM${version ? ` ${version}` : ""} uninstalled`);
    const result: UninstallResult = {
      deleted: deleted.map((r) => ({ name: r.name, namespace: r.namespace ?? "", kind: r.kind })),
      removedOperators: operators.map((o) => o.label),
    };
    if (version) result.version = version;
    return result;
  } finally {
    client.close();
  }
}

interface Remaining {
  ref: ObjectRef;
  label: string;
}

/** Operators OLM installed: non-copied CSVs that are not OLM's own, and their Subscriptions. */
async function remainingOperators(client: KubeClient, olmCsvs: Set<string>): Promise<Remaining[]> {
  const out: Remaining[] = [];
  const list = async (version: string, kind: string): Promise<KubeObject[]> => {
    try {
      return (await client.list(`${OLM_GROUP}/${version}`, kind, { namespace: "" })).items;
    } catch (error) {
      if (isNotFound(error) || isNoMatch(error)) return [];
      throw error;
    }
  };
  for (const sub of await list("v1alpha1", "Subscription")) {
    const pkg = sub.spec?.name ? ` (package ${sub.spec.name})` : "";
    out.push({ ref: refOf(sub), label: `${describeRef(refOf(sub))}${pkg}` });
  }
  for (const csv of await list("v1alpha1", "ClusterServiceVersion")) {
    if (isCopied(csv) || olmCsvs.has(`${csv.metadata.namespace}/${csv.metadata.name}`)) continue;
    out.push({ ref: refOf(csv), label: `${describeRef(refOf(csv))} (${csv.status?.phase ?? "no phase"})` });
  }
  return out.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
