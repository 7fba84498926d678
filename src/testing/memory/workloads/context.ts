// What the workload controllers share: the coordinator's services (engine, options, timers, the
// reconcile queue) and the helpers every controller uses (owned objects, owner references, status
// writes, pods from a template).
import type { Engine } from "../engine.js";
import type { KObj, ResourceDef } from "../types.js";

export interface WorkloadOptions {
  /** Pending → Running delay (default 50 ms). */
  podStartMs?: number;
  /** Delay before an unpullable image reports ErrImagePull (default 50 ms). */
  imagePullFailMs?: number;
  /** ErrImagePull → ImagePullBackOff delay (default 100 ms). */
  imagePullBackOffMs?: number;
  /** How long a Job's pod runs before it succeeds (default 100 ms). */
  jobDurationMs?: number;
  /** Overrides every Deployment's progressDeadlineSeconds (milliseconds). */
  progressDeadlineMs?: number;
  /** Images whose pulls fail (exact reference or RegExp). */
  unpullableImages?: Array<string | RegExp>;
  /** Node the pods run on (default "tsop-node"). */
  nodeName?: string;
}

export type ResolvedWorkloadOptions = Required<
  Omit<WorkloadOptions, "progressDeadlineMs" | "unpullableImages">
> & {
  progressDeadlineMs: number | undefined;
};

/** The coordinator's services, handed to each controller. */
export interface WorkloadContext {
  readonly engine: Engine;
  readonly opts: ResolvedWorkloadOptions;
  /** The served def of a resource (every simulated kind is served at v1). */
  def(group: string, resource: string): ResourceDef;
  /** Runs fn after ms unless the simulation stopped meanwhile. */
  later(ms: number, fn: () => void): NodeJS.Timeout;
  /** Queues a reconcile: "deploy/ns/name", "rs/ns/name" or "job/ns/name". */
  enqueue(key: string): void;
}

export const manager = "kube-controller-manager";

export function controllerOf(obj: KObj): KObj | undefined {
  return ((obj.metadata?.ownerReferences as KObj[] | undefined) ?? []).find((r) => r.controller === true);
}

export function isReady(pod: KObj): boolean {
  return ((pod.status?.conditions as KObj[] | undefined) ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );
}

/** Objects of storageKey whose controller is owner. */
export function ownedBy(ctx: WorkloadContext, storageKey: string, owner: KObj): KObj[] {
  return ctx.engine.store
    .list(storageKey, owner.metadata.namespace)
    .filter((o) => controllerOf(o)?.uid === owner.metadata.uid);
}

export function ownerRef(owner: KObj, apiVersion: string, kind: string): KObj {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Replaces the stored object's status (a no-op once it is gone). */
export function writeStatus(ctx: WorkloadContext, def: ResourceDef, obj: KObj, status: KObj): void {
  const current = ctx.engine.store.get(def.storageKey, obj.metadata.namespace ?? "", obj.metadata.name);
  if (!current) return;
  const next = ctx.engine.present(def, current);
  next.status = status;
  ctx.engine.internalWrite(def, next, manager);
}

/** Creates a pod from owner's template, controlled by owner (a ReplicaSet or a Job). */
export function createPod(ctx: WorkloadContext, owner: KObj, kind: string, generateName: string): void {
  const podDef = ctx.def("", "pods");
  const template = structuredClone(owner.spec?.template ?? {});
  ctx.engine.internalWrite(
    podDef,
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        generateName,
        namespace: owner.metadata.namespace,
        labels: template.metadata?.labels ?? {},
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
        ownerReferences: [ownerRef(owner, kind === "Job" ? "batch/v1" : "apps/v1", kind)],
      },
      spec: template.spec ?? {},
    },
    manager,
  );
}
