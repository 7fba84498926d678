// The simulated kubelet (and scheduler): pods Pending → Running with podIP and Ready, or
// ErrImagePull → ImagePullBackOff for unpullable images, Job pods → Succeeded, with the Events a
// real node records.
import { createHash, randomBytes } from "node:crypto";
import { nowTimestamp } from "../engine.js";
import type { KObj } from "../types.js";
import { controllerOf, manager, type WorkloadContext } from "./context.js";

export class Kubelet {
  /** The pending step of each pod, by uid. */
  private podTimers = new Map<string, NodeJS.Timeout>();
  private ipCounter = 2;
  private readonly unpullable: Array<string | RegExp>;

  constructor(
    private readonly ctx: WorkloadContext,
    unpullableImages: Array<string | RegExp>,
  ) {
    this.unpullable = [...unpullableImages];
  }

  markUnpullable(image: string | RegExp): void {
    this.unpullable.push(image);
  }

  /** A deleted pod: its pending step is dropped. */
  forget(uid: string): void {
    const t = this.podTimers.get(uid);
    if (t) clearTimeout(t);
    this.podTimers.delete(uid);
  }

  stop(): void {
    for (const t of this.podTimers.values()) clearTimeout(t);
  }

  /** Pods with a step due soon (start, pull failure, back-off, a Job pod's end). */
  pendingSteps(): number {
    return this.podTimers.size;
  }

  private isUnpullable(image: string): boolean {
    return this.unpullable.some((u) => (typeof u === "string" ? u === image : u.test(image)));
  }

  /** Moves a pod one step along its life (scheduled, pulling, running, finished). */
  sync(pod: KObj): void {
    const uid = pod.metadata.uid as string;
    if (pod.metadata.deletionTimestamp || this.podTimers.has(uid)) return;
    const phase = pod.status?.phase;
    if (phase === "Running" || phase === "Succeeded" || phase === "Failed") {
      if (phase === "Running" && this.isJobPod(pod) && !this.podTimers.has(uid)) {
        this.podTimers.set(
          uid,
          this.ctx.later(this.ctx.opts.jobDurationMs, () => this.finishPod(pod)),
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
        spec: { nodeName: this.ctx.opts.nodeName },
        event: [
          "Scheduled",
          `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${this.ctx.opts.nodeName}`,
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
          this.ctx.later(this.ctx.opts.imagePullBackOffMs, () => {
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
        this.ctx.later(this.ctx.opts.imagePullFailMs, () => {
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
      this.ctx.later(this.ctx.opts.podStartMs, () => {
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
    const events = this.ctx.def("", "events");
    const now = nowTimestamp();
    this.ctx.engine.internalWrite(
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
        source: component === "kubelet" ? { component, host: this.ctx.opts.nodeName } : { component },
        reportingComponent: component,
        reportingInstance: component === "kubelet" ? this.ctx.opts.nodeName : "",
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
    const podDef = this.ctx.def("", "pods");
    const pod = this.ctx.engine.store.get(podDef.storageKey, meta.namespace, meta.name);
    return pod && pod.metadata.uid === meta.uid && !pod.metadata.deletionTimestamp
      ? this.ctx.engine.present(podDef, pod)
      : undefined;
  }

  private setPod(pod: KObj, patch: { spec?: KObj; status: KObj; event?: [string, string] }): void {
    const current = this.current(pod.metadata);
    if (!current) return;
    if (patch.spec) current.spec = { ...current.spec, ...patch.spec };
    current.status = patch.status;
    this.ctx.engine.internalWrite(this.ctx.def("", "pods"), current, "kubelet");
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
