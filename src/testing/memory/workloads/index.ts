// Optional workload simulation, the coordinator: it writes the node, routes store events to the
// kubelet and queues reconciles for the Deployment, ReplicaSet and Job controllers (one module
// each), run in batches on the next tick.
import { type Engine, nowTimestamp } from "../engine.js";
import type { StoreEvent } from "../store.js";
import type { ResourceDef } from "../types.js";
import {
  controllerOf,
  manager,
  type ResolvedWorkloadOptions,
  type WorkloadContext,
  type WorkloadOptions,
} from "./context.js";
import { reconcileDeployment } from "./deployments.js";
import { reconcileJob } from "./jobs.js";
import { Kubelet } from "./kubelet.js";
import { reconcileReplicaSet } from "./replicasets.js";

export type { WorkloadOptions } from "./context.js";

export class Workloads implements WorkloadContext {
  readonly opts: ResolvedWorkloadOptions;
  private readonly kubelet: Kubelet;
  private timers = new Set<NodeJS.Timeout>();
  private queue = new Set<string>();
  private scheduled = false;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    readonly engine: Engine,
    options: WorkloadOptions,
  ) {
    this.opts = {
      podStartMs: options.podStartMs ?? 50,
      imagePullFailMs: options.imagePullFailMs ?? 50,
      imagePullBackOffMs: options.imagePullBackOffMs ?? 100,
      jobDurationMs: options.jobDurationMs ?? 100,
      nodeName: options.nodeName ?? "tsop-node",
      progressDeadlineMs: options.progressDeadlineMs,
    };
    this.kubelet = new Kubelet(this, options.unpullableImages ?? []);
  }

  markUnpullable(image: string | RegExp): void {
    this.kubelet.markUnpullable(image);
  }

  def(group: string, resource: string): ResourceDef {
    // Nodes, pods, events, Deployments, ReplicaSets and Jobs are all served at v1.
    return this.engine.registry.find(group, "v1", resource)!;
  }

  start(): void {
    const nodes = this.def("", "nodes");
    const now = nowTimestamp();
    this.engine.internalWrite(
      nodes,
      {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: this.opts.nodeName,
          labels: { "kubernetes.io/hostname": this.opts.nodeName, "kubernetes.io/os": "linux" },
        },
        spec: {},
        status: {
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "KubeletReady",
              message: "kubelet is posting ready status",
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
          addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
        },
      },
      manager,
    );
    this.unsubscribe = this.engine.store.subscribe((e) => this.onEvent(e));
    for (const key of ["apps/deployments", "apps/replicasets", "batch/jobs", "/pods"]) {
      for (const obj of this.engine.store.list(key))
        this.onEvent({
          rv: 0,
          type: "ADDED",
          storageKey: key,
          namespace: obj.metadata.namespace,
          object: obj,
          previous: undefined,
        });
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearTimeout(t);
    this.kubelet.stop();
  }

  /**
   * Whether a change is on its way: a reconcile queued or a pod step due. A Deployment's
   * progress-deadline check is not counted: it may be minutes away and changes nothing when the
   * rollout has finished.
   */
  busy(): boolean {
    return this.scheduled || this.queue.size > 0 || this.kubelet.pendingSteps() > 0;
  }

  later(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  enqueue(key: string): void {
    this.queue.add(key);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.stopped) return;
      const keys = [...this.queue];
      this.queue.clear();
      for (const k of keys) this.reconcile(k);
    });
  }

  private onEvent(e: StoreEvent): void {
    const obj = e.object;
    const ns = obj.metadata.namespace ?? "";
    const owner = controllerOf(obj);
    if (e.storageKey === "/pods") {
      if (e.type !== "DELETED") this.kubelet.sync(obj);
      else this.kubelet.forget(obj.metadata.uid);
      if (owner?.kind === "ReplicaSet") this.enqueue(`rs/${ns}/${owner.name}`);
      if (owner?.kind === "Job") this.enqueue(`job/${ns}/${owner.name}`);
    } else if (e.storageKey === "apps/replicasets") {
      if (e.type !== "DELETED") this.enqueue(`rs/${ns}/${obj.metadata.name}`);
      if (owner?.kind === "Deployment") this.enqueue(`deploy/${ns}/${owner.name}`);
    } else if (e.storageKey === "apps/deployments" && e.type !== "DELETED") {
      this.enqueue(`deploy/${ns}/${obj.metadata.name}`);
    } else if (e.storageKey === "batch/jobs" && e.type !== "DELETED") {
      this.enqueue(`job/${ns}/${obj.metadata.name}`);
    }
  }

  private reconcile(key: string): void {
    const [kind, ns, name] = key.split("/") as [string, string, string];
    if (kind === "deploy") reconcileDeployment(this, ns, name);
    else if (kind === "rs") reconcileReplicaSet(this, ns, name);
    else if (kind === "job") reconcileJob(this, ns, name);
  }
}
