// A runner pod's status as a kubelet writes it: phase, podIP/hostIP, startTime, the conditions
// (PodScheduled, Initialized, ContainersReady, Ready = every container ready) and one status per
// container (state, lastState, ready, started, restartCount, image, imageID, containerID). Every
// change writes the whole status, one write at a time, so writes never land out of order.
import type { Container } from "./pod-spec.js";

export type Kind = "initContainerStatuses" | "containerStatuses";
type State = Record<string, unknown>;

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: State;
  lastState: State;
}

export class PodStatus {
  private readonly containers: Record<Kind, Map<string, ContainerStatus>> = {
    initContainerStatuses: new Map(),
    containerStatuses: new Map(),
  };
  private readonly fields: Record<string, unknown> = {};
  private readonly transitions = new Map<string, { status: boolean; at: string; reason?: string }>();
  private initialized = false;
  private completed = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    init: Container[],
    main: Container[],
    private readonly write: (status: Record<string, unknown>) => Promise<void>,
  ) {
    for (const [kind, list] of [
      ["initContainerStatuses", init],
      ["containerStatuses", main],
    ] as const) {
      for (const c of list) {
        this.containers[kind].set(c.name, {
          name: c.name,
          image: c.image,
          imageID: "",
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: "ContainerCreating" } },
          lastState: {},
        });
      }
    }
  }

  get(kind: Kind, name: string): ContainerStatus {
    return this.containers[kind].get(name)!;
  }

  /** Changes one container's status and writes the pod's. */
  container(kind: Kind, name: string, changes: Partial<ContainerStatus>): Promise<void> {
    Object.assign(this.get(kind, name), changes);
    return this.flush();
  }

  /** Pod-level fields (phase, podIP, hostIP, startTime). */
  pod(fields: Record<string, unknown>): Promise<void> {
    Object.assign(this.fields, fields);
    return this.flush();
  }

  setInitialized(): Promise<void> {
    this.initialized = true;
    return this.flush();
  }

  /** Every container has stopped for good (phase Succeeded or Failed). */
  setCompleted(phase: "Succeeded" | "Failed"): Promise<void> {
    this.completed = true;
    for (const c of this.containers.containerStatuses.values()) c.ready = false;
    return this.pod({ phase });
  }

  ready(): boolean {
    const all = [...this.containers.containerStatuses.values()];
    return !this.completed && all.length > 0 && all.every((c) => c.ready);
  }

  /** Resolves once every write asked for so far is done. */
  settled(): Promise<void> {
    return this.chain;
  }

  private flush(): Promise<void> {
    this.chain = this.chain.then(() => this.write(this.snapshot()));
    return this.chain;
  }

  private snapshot(): Record<string, unknown> {
    const ready = this.ready();
    const notReady = this.completed ? "PodCompleted" : "ContainersNotReady";
    return {
      ...this.fields,
      conditions: [
        this.condition("PodScheduled", true),
        this.condition("Initialized", this.initialized, "ContainersNotInitialized"),
        this.condition("ContainersReady", ready, notReady),
        this.condition("Ready", ready, notReady),
      ],
      initContainerStatuses: [...this.containers.initContainerStatuses.values()],
      containerStatuses: [...this.containers.containerStatuses.values()],
    };
  }

  /** A condition whose lastTransitionTime moves only when its status does. */
  private condition(type: string, status: boolean, reason?: string): Record<string, unknown> {
    let t = this.transitions.get(type);
    if (!t || t.status !== status) {
      t = { status, at: now(), reason: status ? undefined : reason };
      this.transitions.set(type, t);
    }
    return {
      type,
      status: status ? "True" : "False",
      lastTransitionTime: t.at,
      ...(t.reason ? { reason: t.reason } : {}),
    };
  }
}

export const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
