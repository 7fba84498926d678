// Applies a set of manifests in dependency order with server-side apply (field manager "tsop", so
// CRDs too large for client-side apply's last-applied annotation work): CRDs first and wait until
// they are Established, then Namespaces, then other cluster-scoped objects, then namespaced ones.
import type { Reporter } from "../common/reporter.js";
import { throwIfInterrupted } from "../common/interrupt.js";
import type { KubeClient } from "./client.js";
import { describeRef, isCrd, type KubeObject, type ObjectRef, refOf } from "./objects.js";
import { crdEstablishedCheck, waitFor } from "./wait.js";

export interface AppliedObject {
  ref: ObjectRef;
  action: "created" | "configured";
}

export interface ApplyOptions {
  reporter: Reporter;
  /** Budget for waiting on CRDs to become Established. */
  timeoutMs: number;
  fieldManager?: string;
  /** Called right after each object is applied (lets callers track what to roll back). */
  onApplied?: (applied: AppliedObject) => void;
  signal?: AbortSignal;
}

/** Stage of an object in apply order (lower first). Exposed for deletes, which use the reverse. */
export function applyStage(obj: { apiVersion: string; kind: string }, namespaced: boolean): number {
  if (isCrd(obj)) return 0;
  if (obj.kind === "Namespace" && obj.apiVersion === "v1") return 1;
  return namespaced ? 3 : 2;
}

export async function applyAll(
  client: KubeClient,
  objects: KubeObject[],
  options: ApplyOptions,
): Promise<AppliedObject[]> {
  const applied: AppliedObject[] = [];
  const one = async (obj: KubeObject) => {
    throwIfInterrupted(options.signal);
    const { created } = await client.apply(obj, options.fieldManager ?? "tsop");
    const entry: AppliedObject = { ref: refOf(obj), action: created ? "created" : "configured" };
    applied.push(entry);
    options.onApplied?.(entry);
    options.reporter.info(`  ${describeRef(entry.ref)} ${entry.action}`);
  };

  const crds = objects.filter(isCrd);
  for (const crd of crds) await one(crd);
  if (crds.length > 0) {
    await waitFor(
      client,
      crds.map((crd) => ({ ref: refOf(crd), check: crdEstablishedCheck })),
      {
        timeoutMs: options.timeoutMs,
        reporter: options.reporter,
        what: `${crds.length} CustomResourceDefinition(s) to be established`,
        signal: options.signal,
      },
    );
  }
  const rest = objects.filter((o) => !isCrd(o));
  const staged: Array<{ obj: KubeObject; stage: number; index: number }> = [];
  for (const [index, obj] of rest.entries()) {
    const info = await client.resource(obj.apiVersion, obj.kind);
    staged.push({ obj, stage: applyStage(obj, info.namespaced), index });
  }
  staged.sort((a, b) => a.stage - b.stage || a.index - b.index);
  for (const { obj } of staged) await one(obj);
  return applied;
}
