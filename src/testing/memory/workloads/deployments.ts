// The Deployment controller: one ReplicaSet per pod template (named by its hash, older ones scaled
// to zero), status summed from the ReplicaSets, Available and Progressing conditions with
// progressDeadlineSeconds.
import { createHash } from "node:crypto";
import { nowTimestamp } from "../engine.js";
import type { KObj } from "../types.js";
import { manager, ownedBy, ownerRef, type WorkloadContext, writeStatus } from "./context.js";

function templateHash(template: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(template ?? {}))
    .digest("hex")
    .slice(0, 10)
    .replace(/[^a-z0-9]/g, "a");
}

function percentOrInt(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(String(v ?? ""));
  if (!m) return 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** Rolls the Deployment out to its current template and writes its status. */
export function reconcileDeployment(ctx: WorkloadContext, ns: string, name: string): void {
  const def = ctx.def("apps", "deployments");
  const dep = ctx.engine.store.get(def.storageKey, ns, name);
  if (!dep || dep.metadata.deletionTimestamp) return;
  const desired = Number(dep.spec?.replicas ?? 1);
  const { rsName, newRs } = rollOut(ctx, dep, ns, name, desired);
  writeStatus(ctx, def, dep, deploymentStatus(ctx, dep, ns, name, desired, rsName, newRs));
}

/** The ReplicaSet of the current template at the desired size; older ones scaled to zero. */
function rollOut(
  ctx: WorkloadContext,
  dep: KObj,
  ns: string,
  name: string,
  desired: number,
): { rsName: string; newRs: KObj | undefined } {
  const rsDef = ctx.def("apps", "replicasets");
  const hash = templateHash(dep.spec?.template);
  const rsName = `${name}-${hash}`;
  const owned = ownedBy(ctx, rsDef.storageKey, dep);
  let newRs = owned.find((r) => r.metadata.name === rsName);
  const revision = String(
    Math.max(
      0,
      ...owned.map((r) => Number(r.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0)),
    ) + (newRs ? 0 : 1),
  );
  const template = structuredClone(dep.spec?.template ?? {});
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), "pod-template-hash": hash },
  };
  const selector = structuredClone(dep.spec?.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), "pod-template-hash": hash };
  if (!newRs) {
    newRs = ctx.engine.internalWrite(
      rsDef,
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: rsName,
          namespace: ns,
          labels: { ...(template.metadata.labels ?? {}) },
          annotations: {
            "deployment.kubernetes.io/desired-replicas": String(desired),
            "deployment.kubernetes.io/revision": revision,
          },
          ownerReferences: [ownerRef(dep, "apps/v1", "Deployment")],
        },
        spec: { replicas: desired, selector, template },
      },
      manager,
    );
  } else if (Number(newRs.spec?.replicas) !== desired) {
    const next = ctx.engine.present(rsDef, newRs);
    next.spec.replicas = desired;
    next.metadata.annotations = {
      ...(next.metadata.annotations ?? {}),
      "deployment.kubernetes.io/desired-replicas": String(desired),
    };
    newRs = ctx.engine.internalWrite(rsDef, next, manager);
  }
  for (const old of owned) {
    if (old.metadata.name === rsName || Number(old.spec?.replicas ?? 0) === 0) continue;
    const next = ctx.engine.present(rsDef, old);
    next.spec.replicas = 0;
    ctx.engine.internalWrite(rsDef, next, manager);
  }
  return { rsName, newRs };
}

function deploymentStatus(
  ctx: WorkloadContext,
  dep: KObj,
  ns: string,
  name: string,
  desired: number,
  rsName: string,
  newRs: KObj | undefined,
): KObj {
  const rsDef = ctx.def("apps", "replicasets");
  const all = ownedBy(ctx, rsDef.storageKey, dep);
  const sum = (f: string) => all.reduce((n, r) => n + Number(r.status?.[f] ?? 0), 0);
  const replicas = sum("replicas");
  const ready = sum("readyReplicas");
  const available = sum("availableReplicas");
  const updated = Number(newRs?.status?.replicas ?? 0);
  const maxUnavailable = percentOrInt(
    dep.spec?.strategy?.rollingUpdate?.maxUnavailable ?? "25%",
    desired,
    false,
  );
  const isAvailable = available >= desired - maxUnavailable;
  const prev: KObj[] = dep.status?.conditions ?? [];
  const now = nowTimestamp();
  const cond = (type: string, status: string, reason: string, message: string): KObj => {
    const old = prev.find((c) => c.type === type);
    const changed = !old || old.status !== status || old.reason !== reason;
    return {
      type,
      status,
      lastUpdateTime: changed ? now : old.lastUpdateTime,
      lastTransitionTime: old && old.status === status ? old.lastTransitionTime : now,
      reason,
      message,
    };
  };
  const complete = updated === desired && available >= desired && replicas === desired;
  const progressing = progressingCondition(ctx, dep, ns, name, rsName, complete, cond);
  const status: KObj = {
    observedGeneration: dep.metadata.generation,
    replicas,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    conditions: [
      isAvailable
        ? cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        : cond(
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
          ),
      progressing,
    ],
  };
  if (desired - available > 0) status.unavailableReplicas = desired - available;
  for (const k of ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas"])
    if (status[k] === 0) delete status[k];
  return status;
}

/** Progressing: complete, still within progressDeadlineSeconds (re-checked then), or timed out. */
function progressingCondition(
  ctx: WorkloadContext,
  dep: KObj,
  ns: string,
  name: string,
  rsName: string,
  complete: boolean,
  cond: (type: string, status: string, reason: string, message: string) => KObj,
): KObj {
  const prev: KObj[] = dep.status?.conditions ?? [];
  const now = nowTimestamp();
  const progressingPrev = prev.find((c) => c.type === "Progressing");
  let progressing: KObj;
  if (complete)
    progressing = cond(
      "Progressing",
      "True",
      "NewReplicaSetAvailable",
      `ReplicaSet "${rsName}" has successfully progressed.`,
    );
  else {
    const deadlineMs = ctx.opts.progressDeadlineMs ?? Number(dep.spec?.progressDeadlineSeconds ?? 600) * 1000;
    const since =
      progressingPrev?.reason === "ReplicaSetUpdated" ||
      progressingPrev?.reason === "ProgressDeadlineExceeded"
        ? Date.parse(progressingPrev.lastUpdateTime)
        : Date.now();
    if (progressingPrev?.reason === "ProgressDeadlineExceeded" || Date.now() - since >= deadlineMs) {
      progressing = cond(
        "Progressing",
        "False",
        "ProgressDeadlineExceeded",
        `ReplicaSet "${rsName}" has timed out progressing.`,
      );
    } else {
      progressing = cond(
        "Progressing",
        "True",
        "ReplicaSetUpdated",
        `ReplicaSet "${rsName}" is progressing.`,
      );
      if (progressing.reason === "ReplicaSetUpdated")
        progressing.lastUpdateTime =
          progressingPrev?.reason === "ReplicaSetUpdated" ? progressingPrev.lastUpdateTime : now;
      ctx.later(Math.max(0, deadlineMs - (Date.now() - since)) + 5, () =>
        ctx.enqueue(`deploy/${ns}/${name}`),
      );
    }
  }
  return progressing;
}
