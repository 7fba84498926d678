// One pod run by the pod runner, kubelet-style: pull images (ErrImagePull/ImagePullBackOff on
// failure), make volumes, run init containers in order, then the containers, each as a sandboxed
// process (sandbox.ts) as the user the pod and image say (security.ts), with its probes
// (probes.ts); restart per restartPolicy with back-off (CrashLoopBackOff); report status as a
// kubelet writes it (pod-status.ts); keep each run's output for `kubectl logs` (kubelet-api.ts).
// Pod and probe ports become free local ports (ports.ts); the address book maps podIP:port and
// Services to them.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { type ImageConfig, type ImageStore, PullError, writeAuthFile } from "./images.js";
import type { AddressBook } from "./network.js";
import type { Container } from "./pod-spec.js";
import { type Kind, now, PodStatus } from "./pod-status.js";
import { PodPorts } from "./ports.js";
import { ContainerProbes } from "./probes.js";
import { type ContainerProcess, type Mount, runContainer } from "./sandbox.js";
import { type RunAs, runAs, RunAsError } from "./security.js";
import { fieldValue, materialiseVolumes } from "./volumes.js";

export type { Container } from "./pod-spec.js";

export interface PodContext {
  client: KubeClient;
  images: ImageStore;
  book: AddressBook;
  dir: string;
  /** Env every process gets: KUBERNETES_SERVICE_HOST/PORT, GRPC_PROXY. */
  env: Record<string, string>;
  freePort(): Promise<number>;
  podIP(): string;
  /** The pod's own loopback address ("localhost" in its /etc/hosts), unique across runners. */
  loopback(podIP: string): string;
  log(message: string): void;
  /** Kills the container process groups if the test process dies. */
  reaper: { watchProcess(pid: number): void; forgetProcess(pid: number): void };
}

/** A container's run, for logs and tests. */
export interface ContainerRun {
  attempt: number;
  /** As in the container's status (state.*.containerID). */
  containerID: string;
  logFile: string;
  process?: ContainerProcess;
}

/** The longest grace a deleted pod gets before SIGKILL (tests should not wait 30 s on a stuck one). */
const MAX_GRACE_SECONDS = 30;

export class RunnerPod {
  private stopped = false;
  private readonly processes = new Set<ContainerProcess>();
  private readonly runs = new Map<string, ContainerRun[]>();
  private ports!: PodPorts;
  private readonly podIP: string;
  private readonly key: string;
  private readonly dir: string;
  private readonly status: PodStatus;
  private pod: KubeObject;

  constructor(
    pod: KubeObject,
    private readonly ctx: PodContext,
  ) {
    this.pod = pod;
    this.podIP = ctx.podIP();
    this.key = `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}`;
    this.dir = join(ctx.dir, "pods", pod.metadata.uid ?? String(Date.now()));
    this.status = new PodStatus(this.containers("initContainers"), this.containers("containers"), (s) =>
      this.patchStatus(s),
    );
  }

  get uid(): string {
    return this.pod.metadata.uid ?? "";
  }
  get namespace(): string {
    return this.pod.metadata.namespace ?? "";
  }
  get name(): string {
    return this.pod.metadata.name ?? "";
  }

  start(): void {
    void this.run().catch((error) => this.ctx.log(`pod ${this.key}: ${(error as Error).message}`));
  }

  /** Runs of `container` so far, oldest first. */
  containerRuns(container: string): ContainerRun[] {
    return this.runs.get(container) ?? [];
  }

  /**
   * The run whose output `kubectl logs [--previous]` shows, chosen from the container's status as
   * the kubelet chooses (previous: lastState's; else the running one, the terminated one, or
   * lastState's while waiting), or the kubelet's message when there is none.
   */
  logRun(container: string, previous: boolean): ContainerRun | string {
    const kind = this.containers("initContainers").some((c) => c.name === container)
      ? "initContainerStatuses"
      : "containerStatuses";
    if (!this.allContainers().some((c) => c.name === container))
      return `container ${container} is not valid for pod ${this.name}`;
    const status = this.status.get(kind, container);
    const id = (state: Record<string, unknown>, key: string) =>
      (state[key] as { containerID?: string } | undefined)?.containerID;
    const last = id(status.lastState, "terminated");
    const running = status.state.running ? status.containerID : undefined;
    const wanted = previous ? last : (running ?? id(status.state, "terminated") ?? last);
    const run = wanted ? this.containerRuns(container).find((r) => r.containerID === wanted) : undefined;
    if (run) return run;
    if (previous) return `previous terminated container "${container}" in pod "${this.name}" not found`;
    const reason = (status.state.waiting as { reason?: string } | undefined)?.reason ?? "ContainerCreating";
    return `container "${container}" in pod "${this.name}" is waiting to start: ${reason}`;
  }

  /** Process ids of the containers' programs' sandboxes now running. */
  pids(): number[] {
    return [...this.processes].map((p) => p.child.pid ?? 0).filter(Boolean);
  }

  /**
   * Stops every container: SIGTERM and the pod's grace period (deletion), or SIGKILL at once
   * (`graceful: false`, the bed shutting down). Resolves once every process is gone.
   */
  async stop(graceful = false): Promise<void> {
    this.stopped = true;
    this.ctx.book.delete(this.key);
    const grace = Math.min(
      MAX_GRACE_SECONDS,
      Number(
        this.pod.metadata.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30,
      ),
    );
    await Promise.all(
      [...this.processes].map((p) => (graceful ? p.terminate(grace * 1000) : (p.stop(), p.exited))),
    );
    await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  private containers(kind: "initContainers" | "containers"): Container[] {
    return (this.pod.spec?.[kind] ?? []) as Container[];
  }

  private allContainers(): Container[] {
    return [...this.containers("initContainers"), ...this.containers("containers")];
  }

  private async run(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Processes share the host network: "localhost" is a loopback address of this pod's own, so
    // programs that bind fixed localhost ports (opm's pprof on localhost:6060) do not collide.
    const loopback = this.ctx.loopback(this.podIP);
    await writeFile(join(this.dir, "hosts"), `${loopback}\tlocalhost ${this.pod.metadata.name}\n`);
    this.ports = await PodPorts.allocate(this.allContainers(), this.ctx.freePort);
    await this.status.pod({
      phase: "Pending",
      podIP: this.podIP,
      podIPs: [{ ip: this.podIP }],
      hostIP: this.podIP,
    });
    const images = await this.pullAll();
    if (!images) return;
    for (const c of this.containers("initContainers"))
      this.status.get("initContainerStatuses", c.name).imageID = images.get(c.name)!.imageID;
    for (const c of this.containers("containers"))
      this.status.get("containerStatuses", c.name).imageID = images.get(c.name)!.imageID;
    this.ports.keepHardCoded(this.allContainers().map((c) => this.commandLine(c, images.get(c.name)!)));
    const volumes = await this.volumesWithRetry();
    if (!volumes) return;
    const users = new Map<string, RunAs>();
    for (const c of this.allContainers()) {
      try {
        users.set(c.name, runAs(this.pod, c, images.get(c.name)!));
      } catch (error) {
        if (!(error instanceof RunAsError)) throw error;
        await this.waiting(c, "CreateContainerConfigError", error.message);
        return;
      }
    }
    const launch = (c: Container, attempt: number) =>
      this.launch(c, images.get(c.name)!, volumes, users.get(c.name)!, attempt);
    for (const c of this.containers("initContainers")) {
      if (!(await this.runInit(c, launch))) return;
    }
    await this.status.setInitialized();
    await this.runMain(launch);
  }

  /** Pulls every image; on failure reports ErrImagePull → ImagePullBackOff and retries, as a kubelet does. */
  private async pullAll(): Promise<Map<string, ImageConfig> | undefined> {
    const all = this.allContainers();
    const authFile = join(this.dir, "auth.json");
    const secrets = await this.pullSecrets();
    const hasAuth = await writeAuthFile(authFile, secrets);
    for (let attempt = 0; !this.stopped; attempt++) {
      const out = new Map<string, ImageConfig>();
      try {
        for (const c of all)
          out.set(c.name, await this.ctx.images.get(c.image, hasAuth ? authFile : undefined));
        return out;
      } catch (error) {
        if (!(error instanceof PullError)) throw error;
        const failed = all.find((c) => !out.has(c.name))!;
        await this.waiting(failed, attempt === 0 ? "ErrImagePull" : "ImagePullBackOff", error.message);
        await sleep(Math.min(10_000, 1000 * 2 ** attempt));
      }
    }
    return undefined;
  }

  private async pullSecrets(): Promise<Array<Record<string, string>>> {
    const out: Array<Record<string, string>> = [];
    for (const ref of (this.pod.spec?.imagePullSecrets ?? []) as Array<{ name: string }>) {
      const s = await this.ctx.client.get({
        apiVersion: "v1",
        kind: "Secret",
        namespace: this.pod.metadata.namespace,
        name: ref.name,
      });
      if (s?.data) out.push(s.data as Record<string, string>);
    }
    return out;
  }

  private async volumesWithRetry(): Promise<Map<string, string> | undefined> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        return await materialiseVolumes(this.ctx.client, this.pod, join(this.dir, "volumes"));
      } catch (error) {
        const first = this.allContainers()[0]!;
        await this.waiting(
          first,
          "ContainerCreating",
          `MountVolume.SetUp failed: ${(error as Error).message}`,
        );
        await sleep(Math.min(5000, 500 * 2 ** attempt));
      }
    }
    return undefined;
  }

  private async runInit(
    c: Container,
    launch: (c: Container, attempt: number) => ContainerProcess,
  ): Promise<boolean> {
    const restart = this.pod.spec?.restartPolicy ?? "Always";
    for (let attempt = 0; !this.stopped; attempt++) {
      const code = await this.runOnce("initContainerStatuses", c, attempt, launch);
      if (this.stopped) return false;
      if (code === 0) return true;
      if (restart === "Never") {
        await this.status.setCompleted("Failed");
        return false;
      }
      await this.backOff("initContainerStatuses", c, attempt);
    }
    return false;
  }

  private async runMain(launch: (c: Container, attempt: number) => ContainerProcess): Promise<void> {
    const containers = this.containers("containers");
    this.publish();
    await this.status.pod({ phase: "Running", startTime: now() });
    const codes = await Promise.all(containers.map((c) => this.superviseContainer(c, launch)));
    if (this.stopped) return;
    await this.status.setCompleted(codes.some((code) => code !== 0) ? "Failed" : "Succeeded");
  }

  /** Runs one container until it stops for good (per restartPolicy); resolves with its last exit code. */
  private async superviseContainer(
    c: Container,
    launch: (c: Container, attempt: number) => ContainerProcess,
  ): Promise<number> {
    const restart = this.pod.spec?.restartPolicy ?? "Always";
    for (let attempt = 0; ; attempt++) {
      const code = await this.runOnce("containerStatuses", c, attempt, launch);
      if (this.stopped) return code;
      if (restart === "Never" || (restart === "OnFailure" && code === 0)) return code;
      await this.backOff("containerStatuses", c, attempt);
      if (this.stopped) return code;
    }
  }

  /** One run of a container with its probes; records it as terminated; resolves with its exit code. */
  private async runOnce(
    kind: Kind,
    c: Container,
    attempt: number,
    launch: (c: Container, attempt: number) => ContainerProcess,
  ): Promise<number> {
    const startedAt = now();
    const process = launch(c, attempt);
    const containerID = this.containerRuns(c.name).at(-1)!.containerID;
    await this.status.container(kind, c.name, {
      state: { running: { startedAt } },
      ready: false,
      started: kind === "containerStatuses" && !c.startupProbe,
      restartCount: attempt,
      containerID,
    });
    let probes: ContainerProbes | undefined;
    let killedBy: string | undefined;
    if (kind === "containerStatuses") {
      probes = new ContainerProbes(c, this.ports, this.podIP, {
        ready: (ready) => void this.setReady(c, ready),
        started: () => void this.status.container(kind, c.name, { started: true }),
        unhealthy: (message) => {
          killedBy = message;
          this.ctx.log(`pod ${this.key} container ${c.name}: ${message}, restarting`);
          void this.event("Warning", "Unhealthy", `${message}; container ${c.name} will be restarted`);
          void process.terminate(this.graceSeconds() * 1000);
        },
      });
      probes.start();
    }
    const code = await process.exited;
    probes?.stop();
    if (this.stopped) return code;
    if (code !== 0)
      this.ctx.log(
        `pod ${this.key} container ${c.name} exited ${code}: ${await logTail(this.containerRuns(c.name).at(-1)!.logFile)}`,
      );
    const terminated = {
      exitCode: code,
      reason: code === 0 ? "Completed" : "Error",
      ...(killedBy ? { message: killedBy } : {}),
      startedAt,
      finishedAt: now(),
      containerID,
    };
    await this.status.container(kind, c.name, {
      state: { terminated },
      ready: false,
      started: false,
    });
    if (kind === "containerStatuses") this.publish();
    return code;
  }

  /** Waits before the next run, showing CrashLoopBackOff as a kubelet does. */
  private async backOff(kind: Kind, c: Container, attempt: number): Promise<void> {
    const delay = Math.min(10_000, 1000 * 2 ** attempt);
    const last = this.status.get(kind, c.name).state;
    await this.status.container(kind, c.name, {
      state: {
        waiting: {
          reason: "CrashLoopBackOff",
          message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${c.name} pod=${this.pod.metadata.name}_${this.pod.metadata.namespace}(${this.uid})`,
        },
      },
      lastState: last,
      restartCount: attempt + 1,
    });
    await sleep(delay);
  }

  private async setReady(c: Container, ready: boolean): Promise<void> {
    await this.status.container("containerStatuses", c.name, { ready });
    this.publish();
  }

  /** The pod in the address book: by pod IP always, behind Services only while Ready. */
  private publish(): void {
    if (this.stopped) return;
    this.ctx.book.set(this.key, {
      namespace: this.pod.metadata.namespace ?? "",
      labels: this.pod.metadata.labels ?? {},
      podIP: this.podIP,
      ports: this.ports.endpoints(this.containers("containers")),
      ready: this.status.ready(),
    });
  }

  private graceSeconds(): number {
    return Math.min(MAX_GRACE_SECONDS, Number(this.pod.spec?.terminationGracePeriodSeconds ?? 30));
  }

  private commandLine(c: Container, image: ImageConfig): string[] {
    return expand(commandLine(c, image), this.envOf(c, image));
  }

  private launch(
    c: Container,
    image: ImageConfig,
    volumes: Map<string, string>,
    user: RunAs,
    attempt: number,
  ): ContainerProcess {
    const mounts: Mount[] = (c.volumeMounts ?? []).map((m) => {
      const volume = volumes.get(m.name);
      const hostPath = join(volume ?? "/nonexistent", m.subPath ?? "");
      // As the kubelet does: a subPath missing from its volume is created as a directory.
      if (volume && m.subPath && !existsSync(hostPath)) {
        mkdirSync(hostPath, { recursive: true });
        chmodSync(hostPath, 0o777);
      }
      return { hostPath, containerPath: m.mountPath, readOnly: m.readOnly ?? false };
    });
    mounts.push({
      hostPath: join(this.dir, "hosts"),
      containerPath: "/etc/hosts",
      readOnly: true,
      file: true,
    });
    const env = this.envOf(c, image);
    const argv = this.ports.rewrite(this.commandLine(c, image));
    argv[0] = resolveInPath(argv[0]!, env.PATH ?? "", image.rootfs);
    this.ctx.log(`pod ${this.key} container ${c.name}: ${argv.join(" ")}`);
    const logDir = join(this.dir, "logs", c.name);
    mkdirSync(logDir, { recursive: true });
    const logFile = join(logDir, `${attempt}.log`);
    const process = runContainer({
      rootfs: image.rootfs,
      mounts,
      argv,
      env,
      workingDir: c.workingDir || image.workingDir,
      logFile,
      hostname: String(this.pod.spec?.hostname ?? this.pod.metadata.name ?? ""),
      user: user.uid === 0 && user.gid === 0 ? undefined : { uid: user.uid, gid: user.gid },
      readOnlyRootFilesystem: user.readOnlyRootFilesystem,
    });
    const runs = this.runs.get(c.name) ?? [];
    runs.push({ attempt, containerID: `rig://${this.uid}/${c.name}/${attempt}`, logFile, process });
    this.runs.set(c.name, runs);
    this.processes.add(process);
    const pid = process.child.pid;
    if (pid) this.ctx.reaper.watchProcess(pid);
    void process.exited.then(() => {
      this.processes.delete(process);
      if (pid) this.ctx.reaper.forgetProcess(pid);
    });
    return process;
  }

  private envOf(c: Container, image: ImageConfig): Record<string, string> {
    const env: Record<string, string> = {};
    for (const kv of image.env) {
      const i = kv.indexOf("=");
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    Object.assign(env, { HOSTNAME: this.pod.metadata.name ?? "" }, this.ctx.env);
    for (const e of c.env ?? []) {
      const path = e.valueFrom?.fieldRef?.fieldPath;
      env[e.name] =
        path === undefined
          ? expand([e.value ?? ""], env)[0]!
          : path === "status.podIP" || path === "status.hostIP"
            ? this.podIP
            : fieldValue(this.pod, path);
    }
    return env;
  }

  private async waiting(c: Container, reason: string, message: string): Promise<void> {
    const isInit = this.containers("initContainers").some((x) => x.name === c.name);
    await this.status.container(isInit ? "initContainerStatuses" : "containerStatuses", c.name, {
      state: { waiting: { reason, message } },
      ready: false,
    });
  }

  private async event(type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const namespace = this.pod.metadata.namespace ?? "default";
    await this.ctx.client
      .create({
        apiVersion: "v1",
        kind: "Event",
        metadata: { generateName: `${this.pod.metadata.name}.`, namespace },
        involvedObject: {
          apiVersion: "v1",
          kind: "Pod",
          namespace,
          name: this.pod.metadata.name,
          uid: this.uid,
        },
        type,
        reason,
        message,
        source: { component: "kubelet", host: String(this.pod.spec?.nodeName ?? "") },
        firstTimestamp: now(),
        lastTimestamp: now(),
        count: 1,
      } as KubeObject)
      .catch((error: Error) => this.ctx.log(`pod ${this.key}: event: ${error.message}`));
  }

  private async patchStatus(status: Record<string, unknown>): Promise<void> {
    if (this.stopped) return;
    const ref = {
      apiVersion: "v1",
      kind: "Pod",
      namespace: this.pod.metadata.namespace,
      name: this.pod.metadata.name ?? "",
    };
    try {
      this.pod = await this.ctx.client.mergePatch(ref, { status }, "status");
    } catch (error) {
      this.ctx.log(`pod ${this.key}: status update failed: ${(error as Error).message}`);
    }
  }
}

/** Kubernetes' rule: command replaces the entrypoint, args replace the image's cmd. */
export function commandLine(c: Container, image: ImageConfig): string[] {
  const command = c.command ?? image.entrypoint;
  const args = c.args ?? (c.command ? [] : image.cmd);
  return [...command, ...args];
}

/** $(VAR) references in command, args and env values, as the kubelet expands them. */
export function expand(values: string[], env: Record<string, string>): string[] {
  return values.map((v) =>
    v.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string | undefined) =>
      m === "$$" ? "$" : name !== undefined && name in env ? env[name]! : m,
    ),
  );
}

/** A bare command name is looked up on the image's PATH inside its root filesystem. */
function resolveInPath(command: string, path: string, rootfs: string): string {
  if (command.includes("/")) return command;
  for (const dir of path.split(":")) if (existsSync(join(rootfs, dir, command))) return `${dir}/${command}`;
  return command;
}

/** The last lines of a log, for the runner's diagnostics. */
async function logTail(file: string): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").slice(-6).join("\n");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
