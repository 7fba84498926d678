// The ReplicaSet controller: keeps spec.replicas pods (newest deleted first when scaling down) and
// reports replicas, readyReplicas and availableReplicas.
import type { KObj } from "../types.js";
import { createPod, isReady, ownedBy, type WorkloadContext, writeStatus } from "./context.js";

/** Creates or deletes pods to the desired count and writes the ReplicaSet's status. */
export function reconcileReplicaSet(ctx: WorkloadContext, ns: string, name: string): void {
  const def = ctx.def("apps", "replicasets");
  const podDef = ctx.def("", "pods");
  const rs = ctx.engine.store.get(def.storageKey, ns, name);
  if (!rs || rs.metadata.deletionTimestamp) return;
  const desired = Number(rs.spec?.replicas ?? 1);
  let pods = ownedBy(ctx, podDef.storageKey, rs).filter((p) => !p.metadata.deletionTimestamp);
  for (let i = pods.length; i < desired; i++) createPod(ctx, rs, "ReplicaSet", `${name}-`);
  if (pods.length > desired) {
    const extra = [...pods]
      .sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? 1 : -1))
      .slice(0, pods.length - desired);
    for (const p of extra) ctx.engine.deleteStored(podDef, p, "Background");
  }
  pods = ownedBy(ctx, podDef.storageKey, rs).filter((p) => !p.metadata.deletionTimestamp);
  const ready = pods.filter(isReady).length;
  const status: KObj = {
    replicas: pods.length,
    fullyLabeledReplicas: pods.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: rs.metadata.generation,
  };
  for (const k of ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"])
    if (status[k] === 0) delete status[k];
  writeStatus(ctx, def, rs, status);
}
