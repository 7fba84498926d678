// Optional workload simulation: a kubelet (pods Pending → Running with podIP and Ready, or
// ErrImagePull → ImagePullBackOff for unpullable images, Job pods → Succeeded) and the Deployment,
// ReplicaSet and Job controllers with the status fields and conditions clients wait on.
import { createHash, randomBytes } from "node:crypto";
import { type Engine, nowTimestamp } from "./engine.js";
import type { StoreEvent } from "./store.js";
import type { KObj, ResourceDef } from "./types.js";

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

const manager = "kube-controller-manager";

function controllerOf(obj: KObj): KObj | undefined {
  return ((obj.metadata?.ownerReferences as KObj[] | undefined) ?? []).find((r) => r.controller === true);
}

function isReady(pod: KObj): boolean {
  return ((pod.status?.conditions as KObj[] | undefined) ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );
}

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

export class Workloads {
  private readonly opts: Required<Omit<WorkloadOptions, "progressDeadlineMs" | "unpullableImages">> & {
    progressDeadlineMs: number | undefined;
  };
  private readonly unpullable: Array<string | RegExp>;
  private timers = new Set<NodeJS.Timeout>();
  private podTimers = new Map<string, NodeJS.Timeout>();
  private queue = new Set<string>();
  private scheduled = false;
  private unsubscribe: (() => void) | undefined;
  private ipCounter = 2;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
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
    this.unpullable = [...(options.unpullableImages ?? [])];
  }

  markUnpullable(image: string | RegExp): void {
    this.unpullable.push(image);
  }

  private def(group: string, resource: string): ResourceDef {
    return this.engine.registry.find(group, group === "" ? "v1" : group === "batch" ? "v1" : "v1", resource)!;
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
    for (const t of this.podTimers.values()) clearTimeout(t);
  }

  private later(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  private enqueue(key: string): void {
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
      if (e.type !== "DELETED") this.kubelet(obj);
      else {
        const t = this.podTimers.get(obj.metadata.uid);
        if (t) clearTimeout(t);
        this.podTimers.delete(obj.metadata.uid);
      }
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
    if (kind === "deploy") this.deployment(ns, name);
    else if (kind === "rs") this.replicaSet(ns, name);
    else if (kind === "job") this.job(ns, name);
  }

  private owned(storageKey: string, owner: KObj): KObj[] {
    return this.engine.store
      .list(storageKey, owner.metadata.namespace)
      .filter((o) => controllerOf(o)?.uid === owner.metadata.uid);
  }

  private ownerRef(owner: KObj, apiVersion: string, kind: string): KObj {
    return {
      apiVersion,
      kind,
      name: owner.metadata.name,
      uid: owner.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
  }

  private writeStatus(def: ResourceDef, obj: KObj, status: KObj): void {
    const current = this.engine.store.get(def.storageKey, obj.metadata.namespace ?? "", obj.metadata.name);
    if (!current) return;
    const next = this.engine.present(def, current);
    next.status = status;
    this.engine.internalWrite(def, next, manager);
  }

  // ---- Deployment ---------------------------------------------------------------------------

  private deployment(ns: string, name: string): void {
    const def = this.def("apps", "deployments");
    const dep = this.engine.store.get(def.storageKey, ns, name);
    if (!dep || dep.metadata.deletionTimestamp) return;
    const desired = Number(dep.spec?.replicas ?? 1);
    const { rsName, newRs } = this.rollOut(dep, ns, name, desired);
    this.writeStatus(def, dep, this.deploymentStatus(dep, ns, name, desired, rsName, newRs));
  }

  /** The ReplicaSet of the current template at the desired size; older ones scaled to zero. */
  private rollOut(
    dep: KObj,
    ns: string,
    name: string,
    desired: number,
  ): { rsName: string; newRs: KObj | undefined } {
    const rsDef = this.def("apps", "replicasets");
    const hash = templateHash(dep.spec?.template);
    const rsName = `${name}-${hash}`;
    const owned = this.owned(rsDef.storageKey, dep);
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
      newRs = this.engine.internalWrite(
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
            ownerReferences: [this.ownerRef(dep, "apps/v1", "Deployment")],
          },
          spec: { replicas: desired, selector, template },
        },
        manager,
      );
    } else if (Number(newRs.spec?.replicas) !== desired) {
      const next = this.engine.present(rsDef, newRs);
      next.spec.replicas = desired;
      next.metadata.annotations = {
        ...(next.metadata.annotations ?? {}),
        "deployment.kubernetes.io/desired-replicas": String(desired),
      };
      newRs = this.engine.internalWrite(rsDef, next, manager);
    }
    for (const old of owned) {
      if (old.metadata.name === rsName || Number(old.spec?.replicas ?? 0) === 0) continue;
      const next = this.engine.present(rsDef, old);
      next.spec.replicas = 0;
      this.engine.internalWrite(rsDef, next, manager);
    }
    return { rsName, newRs };
  }

  private deploymentStatus(
    dep: KObj,
    ns: string,
    name: string,
    desired: number,
    rsName: string,
    newRs: KObj | undefined,
  ): KObj {
    const rsDef = this.def("apps", "replicasets");
    const all = this.owned(rsDef.storageKey, dep);
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
    const progressing = this.progressingCondition(dep, ns, name, rsName, complete, cond);
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
  private progressingCondition(
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
      const deadlineMs =
        this.opts.progressDeadlineMs ?? Number(dep.spec?.progressDeadlineSeconds ?? 600) * 1000;
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
        this.later(Math.max(0, deadlineMs - (Date.now() - since)) + 5, () =>
          this.enqueue(`deploy/${ns}/${name}`),
        );
      }
    }
    return progressing;
  }

  // ---- ReplicaSet ---------------------------------------------------------------------------

  private replicaSet(ns: string, name: string): void {
    const def = this.def("apps", "replicasets");
    const podDef = this.def("", "pods");
    const rs = this.engine.store.get(def.storageKey, ns, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const desired = Number(rs.spec?.replicas ?? 1);
    let pods = this.owned(podDef.storageKey, rs).filter((p) => !p.metadata.deletionTimestamp);
    for (let i = pods.length; i < desired; i++) this.createPod(rs, "ReplicaSet", `${name}-`);
    if (pods.length > desired) {
      const extra = [...pods]
        .sort((a, b) => (a.metadata.creationTimestamp < b.metadata.creationTimestamp ? 1 : -1))
        .slice(0, pods.length - desired);
      for (const p of extra) this.engine.deleteStored(podDef, p, "Background");
    }
    pods = this.owned(podDef.storageKey, rs).filter((p) => !p.metadata.deletionTimestamp);
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
    this.writeStatus(def, rs, status);
  }

  private createPod(owner: KObj, kind: string, generateName: string): void {
    const podDef = this.def("", "pods");
    const template = structuredClone(owner.spec?.template ?? {});
    this.engine.internalWrite(
      podDef,
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          generateName,
          namespace: owner.metadata.namespace,
          labels: template.metadata?.labels ?? {},
          ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
          ownerReferences: [this.ownerRef(owner, kind === "Job" ? "batch/v1" : "apps/v1", kind)],
        },
        spec: template.spec ?? {},
      },
      manager,
    );
  }

  // ---- Job ----------------------------------------------------------------------------------

  private job(ns: string, name: string): void {
    const def = this.def("batch", "jobs");
    const podDef = this.def("", "pods");
    const job = this.engine.store.get(def.storageKey, ns, name);
    if (!job || job.metadata.deletionTimestamp) return;
    if (
      ((job.status?.conditions as KObj[] | undefined) ?? []).some(
        (c) => c.type === "Complete" && c.status === "True",
      )
    )
      return;
    const completions = Number(job.spec?.completions ?? 1);
    const parallelism = Number(job.spec?.parallelism ?? 1);
    const pods = this.owned(podDef.storageKey, job);
    const succeeded = pods.filter((p) => p.status?.phase === "Succeeded").length;
    const failed = pods.filter((p) => p.status?.phase === "Failed").length;
    let active = pods.filter(
      (p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed" && !p.metadata.deletionTimestamp,
    ).length;
    const want = Math.min(parallelism, completions - succeeded);
    if (!job.spec?.suspend) {
      for (let i = active; i < want; i++) {
        this.createPod(job, "Job", `${name}-`);
        active++;
      }
    }
    const now = nowTimestamp();
    const status: KObj = { ...(job.status ?? {}), startTime: job.status?.startTime ?? now };
    status.active = active;
    status.succeeded = succeeded;
    status.failed = failed;
    status.ready = pods.filter(isReady).length;
    status.terminating = 0;
    status.uncountedTerminatedPods = {};
    if (succeeded >= completions) {
      status.active = 0;
      status.completionTime = now;
      status.conditions = [
        {
          type: "SuccessCriteriaMet",
          status: "True",
          reason: "CompletionsReached",
          message: "Reached expected number of succeeded pods",
          lastProbeTime: now,
          lastTransitionTime: now,
        },
        {
          type: "Complete",
          status: "True",
          reason: "CompletionsReached",
          message: "Reached expected number of succeeded pods",
          lastProbeTime: now,
          lastTransitionTime: now,
        },
      ];
    }
    for (const k of ["active", "succeeded", "failed"]) if (status[k] === 0) delete status[k];
    this.writeStatus(def, job, status);
  }

  // ---- kubelet ------------------------------------------------------------------------------

  private isUnpullable(image: string): boolean {
    return this.unpullable.some((u) => (typeof u === "string" ? u === image : u.test(image)));
  }

  private kubelet(pod: KObj): void {
    const uid = pod.metadata.uid as string;
    if (pod.metadata.deletionTimestamp || this.podTimers.has(uid)) return;
    const phase = pod.status?.phase;
    if (phase === "Running" || phase === "Succeeded" || phase === "Failed") {
      if (phase === "Running" && this.isJobPod(pod) && !this.podTimers.has(uid)) {
        this.podTimers.set(
          uid,
          this.later(this.opts.jobDurationMs, () => this.finishPod(pod)),
        );
      }
      return;
    }
    const containers: KObj[] = pod.spec?.containers ?? [];
    const waiting = (reason: string, message?: string) =>
      containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: "",
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: message ? { reason, message } : { reason } },
      }));
    const now = nowTimestamp();
    const notReady = `containers with unready status: [${containers.map((c) => c.name).join(" ")}]`;
    if (phase === undefined) {
      this.setPod(pod, {
        spec: { nodeName: this.opts.nodeName },
        event: [
          "Scheduled",
          `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${this.opts.nodeName}`,
        ],
        status: {
          phase: "Pending",
          conditions: [
            { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now },
            { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: now },
            {
              type: "Ready",
              status: "False",
              reason: "ContainersNotReady",
              message: notReady,
              lastProbeTime: null,
              lastTransitionTime: now,
            },
            {
              type: "ContainersReady",
              status: "False",
              reason: "ContainersNotReady",
              message: notReady,
              lastProbeTime: null,
              lastTransitionTime: now,
            },
          ],
          hostIP: "10.0.0.1",
          hostIPs: [{ ip: "10.0.0.1" }],
          startTime: now,
          qosClass: "BestEffort",
          containerStatuses: waiting("ContainerCreating"),
        },
      });
      return;
    }
    const bad = containers.find((c) => this.isUnpullable(String(c.image ?? "")));
    if (bad) {
      const reason = ((pod.status?.containerStatuses as KObj[] | undefined) ?? []).find(
        (s) => s.name === bad.name,
      )?.state?.waiting?.reason;
      if (reason === "ImagePullBackOff") return;
      const pullError = `rpc error: code = NotFound desc = failed to pull and unpack image "${bad.image}": failed to resolve reference "${bad.image}": not found`;
      if (reason === "ErrImagePull") {
        this.podTimers.set(
          uid,
          this.later(this.opts.imagePullBackOffMs, () => {
            this.podTimers.delete(uid);
            this.setContainerWaiting(
              pod.metadata,
              bad.name,
              "ImagePullBackOff",
              `Back-off pulling image "${bad.image}"`,
            );
            this.podEvent(pod.metadata, "Normal", "BackOff", `Back-off pulling image "${bad.image}"`);
            this.podEvent(pod.metadata, "Warning", "Failed", "Error: ImagePullBackOff");
          }),
        );
        return;
      }
      this.podTimers.set(
        uid,
        this.later(this.opts.imagePullFailMs, () => {
          this.podTimers.delete(uid);
          this.setContainerWaiting(pod.metadata, bad.name, "ErrImagePull", pullError);
          this.podEvent(pod.metadata, "Normal", "Pulling", `Pulling image "${bad.image}"`);
          this.podEvent(
            pod.metadata,
            "Warning",
            "Failed",
            `Failed to pull image "${bad.image}": ${pullError}`,
          );
          this.podEvent(pod.metadata, "Warning", "Failed", "Error: ErrImagePull");
        }),
      );
      return;
    }
    this.podTimers.set(
      uid,
      this.later(this.opts.podStartMs, () => {
        this.podTimers.delete(uid);
        this.startPod(pod.metadata);
      }),
    );
  }

  /** Records a core/v1 Event about a pod, as the kubelet and scheduler do. */
  private podEvent(
    meta: KObj,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
    component = "kubelet",
  ): void {
    const events = this.def("", "events");
    const now = nowTimestamp();
    this.engine.internalWrite(
      events,
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { generateName: `${meta.name}.`, namespace: meta.namespace },
        involvedObject: {
          apiVersion: "v1",
          kind: "Pod",
          name: meta.name,
          namespace: meta.namespace,
          uid: meta.uid,
        },
        reason,
        message,
        type,
        source: component === "kubelet" ? { component, host: this.opts.nodeName } : { component },
        reportingComponent: component,
        reportingInstance: component === "kubelet" ? this.opts.nodeName : "",
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
      manager,
    );
  }

  private isJobPod(pod: KObj): boolean {
    return controllerOf(pod)?.kind === "Job";
  }

  private current(meta: KObj): KObj | undefined {
    const podDef = this.def("", "pods");
    const pod = this.engine.store.get(podDef.storageKey, meta.namespace, meta.name);
    return pod && pod.metadata.uid === meta.uid && !pod.metadata.deletionTimestamp
      ? this.engine.present(podDef, pod)
      : undefined;
  }

  private setPod(pod: KObj, patch: { spec?: KObj; status: KObj; event?: [string, string] }): void {
    const current = this.current(pod.metadata);
    if (!current) return;
    if (patch.spec) current.spec = { ...current.spec, ...patch.spec };
    current.status = patch.status;
    this.engine.internalWrite(this.def("", "pods"), current, "kubelet");
    if (patch.event)
      this.podEvent(pod.metadata, "Normal", patch.event[0], patch.event[1], "default-scheduler");
  }

  private setContainerWaiting(meta: KObj, container: string, reason: string, message: string): void {
    const pod = this.current(meta);
    if (!pod) return;
    const status = structuredClone(pod.status ?? {});
    status.containerStatuses = ((status.containerStatuses as KObj[] | undefined) ?? []).map((s) =>
      s.name === container ? { ...s, state: { waiting: { reason, message } } } : s,
    );
    this.setPod(pod, { status });
  }

  private startPod(meta: KObj): void {
    const pod = this.current(meta);
    if (!pod) return;
    for (const c of (pod.spec?.containers as KObj[] | undefined) ?? []) {
      this.podEvent(meta, "Normal", "Pulled", `Container image "${c.image}" already present on machine`);
      this.podEvent(meta, "Normal", "Created", `Created container ${c.name}`);
      this.podEvent(meta, "Normal", "Started", `Started container ${c.name}`);
    }
    const now = nowTimestamp();
    const ip = `10.244.0.${this.ipCounter++ % 250}`;
    const containers: KObj[] = pod.spec?.containers ?? [];
    this.setPod(pod, {
      status: {
        phase: "Running",
        conditions: [
          "PodReadyToStartContainers",
          "Initialized",
          "Ready",
          "ContainersReady",
          "PodScheduled",
        ].map((type) => ({
          type,
          status: "True",
          lastProbeTime: null,
          lastTransitionTime: now,
        })),
        hostIP: "10.0.0.1",
        hostIPs: [{ ip: "10.0.0.1" }],
        podIP: ip,
        podIPs: [{ ip }],
        startTime: pod.status?.startTime ?? now,
        qosClass: "BestEffort",
        containerStatuses: containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: `${String(c.image).split(":")[0]}@sha256:${createHash("sha256").update(String(c.image)).digest("hex")}`,
          containerID: `containerd://${randomBytes(32).toString("hex")}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        })),
      },
    });
  }

  private finishPod(meta: KObj): void {
    const pod = this.current(meta.metadata ?? meta);
    this.podTimers.delete((meta.metadata ?? meta).uid);
    if (!pod) return;
    const now = nowTimestamp();
    const status = structuredClone(pod.status ?? {});
    status.phase = "Succeeded";
    status.conditions = ((status.conditions as KObj[] | undefined) ?? []).map((c) =>
      c.type === "Ready" || c.type === "ContainersReady"
        ? { ...c, status: "False", reason: "PodCompleted", lastTransitionTime: now }
        : c,
    );
    status.containerStatuses = ((status.containerStatuses as KObj[] | undefined) ?? []).map((s) => ({
      ...s,
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode: 0,
          reason: "Completed",
          startedAt: s.state?.running?.startedAt ?? now,
          finishedAt: now,
          containerID: s.containerID,
        },
      },
    }));
    this.setPod(pod, { status });
  }
}
