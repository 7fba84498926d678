// The one delete order and delete-and-wait every cluster command uses: run bundle's and
// bundle-upgrade's rollback journal, cleanup, olm install's rollback, and the dev loop's uninstall
// and undeploy. OLM's kinds rank first because those commands delete what OLM runs on.
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "./client.js";
import { describeRef, isCrd, type ObjectRef, refKey } from "./objects.js";
import { goneCheck, waitFor } from "./wait.js";

export interface DeleteOutcome {
  deleted: ObjectRef[];
  /** Objects that could not be removed, each with the reason. */
  left: string[];
}

/** OLM's kinds, deleted first: consumers before what they consume. */
const OLM_ORDER = [
  "Subscription",
  "InstallPlan",
  "ClusterServiceVersion",
  "CatalogSource",
  "Service",
  "Pod",
  "ConfigMap",
  "OperatorGroup",
];

/**
 * OLM's kinds in OLM_ORDER, then other namespaced objects, other cluster-scoped ones, namespaces,
 * and CRDs last (their custom resources must go first). Duplicates dropped; ties keep input order
 * (olm install passes what it created newest first).
 */
export function deleteOrder(refs: ObjectRef[]): ObjectRef[] {
  const rank = (ref: ObjectRef) => {
    const i = OLM_ORDER.indexOf(ref.kind);
    if (i >= 0) return i;
    if (isCrd(ref)) return OLM_ORDER.length + 3;
    if (ref.kind === "Namespace") return OLM_ORDER.length + 2;
    return ref.namespace ? OLM_ORDER.length : OLM_ORDER.length + 1;
  };
  const seen = new Set<string>();
  return refs
    .filter((r) => {
      const k = refKey(r);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .map((ref, index) => ({ ref, index }))
    .sort((a, b) => rank(a.ref) - rank(b.ref) || a.index - b.index)
    .map((e) => e.ref);
}

/**
 * Deletes the objects (missing ones are fine) and waits until they are gone, with progress.
 * `propagationPolicy: "Foreground"` keeps each object until the garbage collector has deleted its
 * dependents (those whose ownerReference blocks owner deletion), so "gone" means they are too.
 */
export async function deleteAndWait(
  client: KubeClient,
  refs: ObjectRef[],
  options: {
    reporter: Reporter;
    timeoutMs: number;
    what: string;
    signal?: AbortSignal;
    propagationPolicy?: "Background" | "Foreground";
  },
): Promise<DeleteOutcome> {
  const ordered = deleteOrder(refs);
  const deleted: ObjectRef[] = [];
  const left: string[] = [];
  for (const ref of ordered) {
    try {
      if (await client.delete(ref, options.propagationPolicy)) {
        deleted.push(ref);
        options.reporter.info(`  deleted ${describeRef(ref)}`);
      }
    } catch (error) {
      left.push(`${describeRef(ref)} (${(error as Error).message.split("\n")[0]})`);
    }
  }
  if (deleted.length > 0) {
    try {
      await waitFor(
        client,
        deleted.map((ref) => ({ ref, check: goneCheck })),
        {
          timeoutMs: options.timeoutMs,
          reporter: options.reporter,
          what: options.what,
          signal: options.signal,
        },
      );
    } catch (error) {
      left.push(
        `still being deleted: ${(error as Error).message.split("\n").slice(1).join(" ").trim() || (error as Error).message}`,
      );
    }
  }
  return { deleted, left };
}
