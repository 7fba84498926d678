// One pod run by the pod runner, kubelet-style: pull images (ErrImagePull/ImagePullBackOff on
// failure), make volumes, run init containers in order, then the containers; report status
// (phase, container states, Ready once each declared port accepts connections) and restart
// per restartPolicy with back-off. Declared containerPorts become free local ports: arguments equal
// to a declared port ("50051", "--secure-port=5443", ":8080") are rewritten to the local port, and
// the address book maps podIP:containerPort to it.
import { existsSync, mkdirSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import type { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { type ImageConfig, type ImageStore, PullError, writeAuthFile } from "./images.js";
import type { AddressBook } from "./network.js";
import { type ContainerProcess, type Mount, runContainer } from "./sandbox.js";
import { fieldValue, materialiseVolumes } from "./volumes.js";

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ containerPort: number; name?: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
}

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

type State = Record<string, unknown>;

export class RunnerPod {
  private stopped = false;
  private readonly processes = new Set<ContainerProcess>();
  private readonly ports = new Map<number, number>();
  private readonly podIP: string;
  private readonly key: string;
  private readonly dir: string;
  private pod: KubeObject;

  constructor(
    pod: KubeObject,
    private readonly ctx: PodContext,
  ) {
    this.pod = pod;
    this.podIP = ctx.podIP();
    this.key = `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}`;
    this.dir = join(ctx.dir, "pods", pod.metadata.uid ?? String(Date.now()));
  }

  get uid(): string {
    return this.pod.metadata.uid ?? "";
  }

  start(): void {
    void this.run().catch((error) => this.ctx.log(`pod ${this.key}: ${(error as Error).message}`));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const p of this.processes) p.stop();
    this.ctx.book.delete(this.key);
    await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }

  private containers(kind: "initContainers" | "containers"): Container[] {
    return (this.pod.spec?.[kind] ?? []) as Container[];
  }

  private async run(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Processes share the host network: "localhost" is a loopback address of this pod's own, so
    // programs that bind fixed localhost ports (opm's pprof on localhost:6060) do not collide.
    const loopback = this.ctx.loopback(this.podIP);
    await writeFile(join(this.dir, "hosts"), `${loopback}\tlocalhost ${this.pod.metadata.name}\n`);
    for (const c of this.containers("containers"))
      for (const p of c.ports ?? []) this.ports.set(p.containerPort, await this.ctx.freePort());
    await this.patchStatus({
      phase: "Pending",
      podIP: this.podIP,
      podIPs: [{ ip: this.podIP }],
      hostIP: this.podIP,
    });
    const images = await this.pullAll();
    if (!images) return;
    const volumes = await this.volumesWithRetry();
    if (!volumes) return;
    for (const c of this.containers("initContainers")) {
      if (!(await this.runInit(c, images.get(c.name)!, volumes))) return;
    }
    await this.runMain(images, volumes);
  }

  /** Pulls every image; on failure reports ErrImagePull → ImagePullBackOff and retries, as a kubelet does. */
  private async pullAll(): Promise<Map<string, ImageConfig> | undefined> {
    const all = [...this.containers("initContainers"), ...this.containers("containers")];
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
        await this.reportWaiting(failed, attempt === 0 ? "ErrImagePull" : "ImagePullBackOff", error.message);
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
        const first = this.containers("initContainers")[0] ?? this.containers("containers")[0]!;
        await this.reportWaiting(
          first,
          "ContainerCreating",
          `MountVolume.SetUp failed: ${(error as Error).message}`,
        );
        await sleep(Math.min(5000, 500 * 2 ** attempt));
      }
    }
    return undefined;
  }

  private async runInit(c: Container, image: ImageConfig, volumes: Map<string, string>): Promise<boolean> {
    const restart = this.pod.spec?.restartPolicy ?? "Always";
    for (let attempt = 0; !this.stopped; attempt++) {
      await this.setContainer("initContainerStatuses", c, { running: { startedAt: now() } }, false, attempt);
      const code = await this.launch(c, image, volumes).exited;
      if (this.stopped) return false;
      const terminated = { exitCode: code, reason: code === 0 ? "Completed" : "Error", finishedAt: now() };
      await this.setContainer("initContainerStatuses", c, { terminated }, code === 0, attempt);
      if (code === 0) return true;
      if (restart === "Never") {
        await this.patchStatus({ phase: "Failed", conditions: readyConditions(false, "PodFailed") });
        return false;
      }
      await sleep(Math.min(10_000, 1000 * 2 ** attempt));
    }
    return false;
  }

  private async runMain(images: Map<string, ImageConfig>, volumes: Map<string, string>): Promise<void> {
    const containers = this.containers("containers");
    const exits = containers.map((c) => this.superviseContainer(c, images.get(c.name)!, volumes));
    await this.patchStatus({ phase: "Running", startTime: now() });
    void this.watchReadiness(containers);
    const codes = await Promise.all(exits);
    if (this.stopped) return;
    const failed = codes.some((code) => code !== 0);
    await this.patchStatus({
      phase: failed ? "Failed" : "Succeeded",
      conditions: readyConditions(false, "PodCompleted"),
    });
  }

  /** Runs one container until it stops for good (per restartPolicy); resolves with its last exit code. */
  private async superviseContainer(
    c: Container,
    image: ImageConfig,
    volumes: Map<string, string>,
  ): Promise<number> {
    const restart = this.pod.spec?.restartPolicy ?? "Always";
    for (let attempt = 0; ; attempt++) {
      await this.setContainer("containerStatuses", c, { running: { startedAt: now() } }, false, attempt);
      const code = await this.launch(c, image, volumes).exited;
      if (this.stopped) return code;
      const terminated = { exitCode: code, reason: code === 0 ? "Completed" : "Error", finishedAt: now() };
      await this.setContainer("containerStatuses", c, { terminated }, false, attempt);
      if (restart === "Never" || (restart === "OnFailure" && code === 0)) return code;
      await this.setContainer(
        "containerStatuses",
        c,
        { waiting: { reason: "CrashLoopBackOff" } },
        false,
        attempt,
      );
      await sleep(Math.min(10_000, 1000 * 2 ** attempt));
      if (this.stopped) return code;
    }
  }

  private launch(c: Container, image: ImageConfig, volumes: Map<string, string>): ContainerProcess {
    const mounts: Mount[] = (c.volumeMounts ?? []).map((m) => {
      const volume = volumes.get(m.name);
      const hostPath = join(volume ?? "/nonexistent", m.subPath ?? "");
      // As the kubelet does: a subPath missing from its volume is created as a directory.
      if (volume && m.subPath && !existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o777 });
      return { hostPath, containerPath: m.mountPath, readOnly: m.readOnly ?? false };
    });
    mounts.push({
      hostPath: join(this.dir, "hosts"),
      containerPath: "/etc/hosts",
      readOnly: true,
      file: true,
    });
    const env = this.envOf(c, image);
    const original = expand(commandLine(c, image), env);
    const argv = this.rewritePorts(c, original);
    this.keepUnmappedPorts(c, original, argv);
    argv[0] = resolveInPath(argv[0]!, env.PATH ?? "", image.rootfs);
    this.ctx.log(`pod ${this.key} container ${c.name}: ${argv.join(" ")}`);
    const process = runContainer({
      rootfs: image.rootfs,
      mounts,
      argv,
      env,
      workingDir: c.workingDir || image.workingDir,
      logFile: join(this.dir, `${c.name}.log`),
    });
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
      env[e.name] = e.valueFrom?.fieldRef
        ? e.valueFrom.fieldRef.fieldPath === "status.podIP"
          ? this.podIP
          : fieldValue(this.pod, e.valueFrom.fieldRef.fieldPath)
        : expand([e.value ?? ""], env)[0]!;
    }
    return env;
  }

  private rewritePorts(c: Container, argv: string[]): string[] {
    const declared = new Map(
      (c.ports ?? []).map((p) => [String(p.containerPort), String(this.ports.get(p.containerPort))]),
    );
    return argv.map((arg, i) => {
      if (i === 0) return arg;
      if (declared.has(arg)) return declared.get(arg)!;
      const flag = /^(--?[\w-]+=|:)(\d+)$/.exec(arg);
      return flag && declared.has(flag[2]!) ? `${flag[1]}${declared.get(flag[2]!)}` : arg;
    });
  }

  /**
   * A declared port that appears nowhere in the command line is hard-coded in the program (OLM's
   * operators serve metrics on :8080): it listens on the port itself, shared with the host.
   */
  private keepUnmappedPorts(c: Container, before: string[], after: string[]): void {
    for (const p of c.ports ?? []) {
      const rewritten = after.some(
        (arg, i) => arg !== before[i] && arg.endsWith(String(this.ports.get(p.containerPort))),
      );
      if (!rewritten) this.ports.set(p.containerPort, p.containerPort);
    }
  }

  /** Ready once every declared port of every container accepts TCP connections. */
  private async watchReadiness(containers: Container[]): Promise<void> {
    // Read the ports on every round: launch() settles hard-coded ones after the first start.
    const ports = () =>
      containers.flatMap((c) => (c.ports ?? []).map((p) => this.ports.get(p.containerPort)!));
    while (!this.stopped) {
      const open = await Promise.all(ports().map(accepts));
      if (open.every(Boolean)) break;
      await sleep(200);
    }
    if (this.stopped) return;
    this.ctx.book.set(this.key, {
      namespace: this.pod.metadata.namespace ?? "",
      labels: this.pod.metadata.labels ?? {},
      podIP: this.podIP,
      ports: containers.flatMap((c) =>
        (c.ports ?? []).map((p) => ({
          containerPort: p.containerPort,
          name: p.name,
          hostPort: this.ports.get(p.containerPort)!,
        })),
      ),
      ready: true,
    });
    const statuses = containers.map((c) => ({
      ...this.statusFor("containerStatuses", c),
      ready: true,
      started: true,
    }));
    await this.patchStatus({ containerStatuses: statuses, conditions: readyConditions(true) });
  }

  private statuses: Record<string, Map<string, State>> = {
    initContainerStatuses: new Map(),
    containerStatuses: new Map(),
  };

  private statusFor(kind: string, c: Container): State {
    return (
      this.statuses[kind]!.get(c.name) ?? {
        name: c.name,
        image: c.image,
        imageID: "",
        ready: false,
        restartCount: 0,
      }
    );
  }

  private async setContainer(kind: string, c: Container, state: State, ready: boolean, restarts: number) {
    const status: State = { ...this.statusFor(kind, c), state, ready, restartCount: restarts };
    this.statuses[kind]!.set(c.name, status);
    const all = this.containers(kind === "containerStatuses" ? "containers" : "initContainers").map((x) =>
      this.statusFor(kind, x),
    );
    await this.patchStatus({ [kind]: all });
  }

  private async reportWaiting(c: Container, reason: string, message: string): Promise<void> {
    const isInit = this.containers("initContainers").some((x) => x.name === c.name);
    await this.setContainer(
      isInit ? "initContainerStatuses" : "containerStatuses",
      c,
      { waiting: { reason, message } },
      false,
      0,
    );
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

function readyConditions(ready: boolean, reason?: string) {
  const t = now();
  const c = (type: string, status: boolean) => ({
    type,
    status: status ? "True" : "False",
    lastTransitionTime: t,
    ...(status || !reason ? {} : { reason }),
  });
  return [c("Initialized", true), c("Ready", ready), c("ContainersReady", ready), c("PodScheduled", true)];
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

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
