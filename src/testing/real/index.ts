// startRealCluster(): etcd + kube-apiserver (+ controller-manager, scheduler and kwok with a fake
// Node when asked) on loopback ports, fronted by the fault proxy, with a kubeconfig; a reaper
// process cleans up if this process dies without stop().
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApiServer, type ApiServerConfig, startApiServer } from "./apiserver.js";
import { type BinaryName, findBinaries } from "./binaries.js";
import { startControllerManager, startScheduler } from "./controllers.js";
import { startEtcd } from "./etcd.js";
import { startKwok } from "./kwok.js";
import { DEFAULT_POD_STAGES } from "./kwok-stages.js";
import { probe } from "./net.js";
import { clientCertificate, kubeconfigYaml, type Pki, writePki } from "./pki.js";
import type { Component } from "./process.js";
import { type FaultProxy, startFaultProxy } from "./proxy.js";
import { Reaper } from "./reaper.js";
import type { RealTestCluster, RealTestClusterOptions } from "./types.js";

export type { RealTestCluster, RealTestClusterOptions } from "./types.js";

const CORE: BinaryName[] = ["etcd", "kube-apiserver"];
const WORKLOADS: BinaryName[] = ["kube-controller-manager", "kube-scheduler", "kwok"];

/** What is running so far, stopped in reverse order of start. */
class Running {
  readonly components: Component[] = [];
  proxy: FaultProxy | undefined;

  /** Puts `next` where `previous` was, so stop order and processes() stay right after a restart. */
  replace(previous: Component, next: Component): void {
    const i = this.components.indexOf(previous);
    if (i >= 0) this.components[i] = next;
    else this.components.push(next);
  }

  async stopAll(): Promise<void> {
    await this.proxy?.stop();
    for (const c of [...this.components].reverse()) await c.stop();
  }
}

export async function startRealCluster(options: RealTestClusterOptions): Promise<RealTestCluster> {
  const names = options.workloads ? [...CORE, ...WORKLOADS] : CORE;
  const bin = findBinaries(names, options);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const dir = await mkdtemp(join(tmpdir(), "tsop-real-cluster-"));
  const reaper = Reaper.start();
  reaper.watchDirectory(dir);
  const running = new Running();
  const adminToken = randomBytes(24).toString("hex");
  try {
    const pki = await writePki(dir);
    const etcd = await startEtcd(bin.etcd, dir, reaper, timeoutMs);
    running.components.push(etcd.component);
    const apiserverConfig = {
      binary: bin["kube-apiserver"],
      dir,
      etcdUrl: etcd.url,
      pki,
      adminToken,
      serviceAccountAdmission: Boolean(options.workloads),
      extraArgs: options.args?.["kube-apiserver"] ?? {},
      timeoutMs,
    };
    const apiserver = await startApiServer(apiserverConfig, reaper);
    running.components.push(apiserver.component);
    const api = { url: apiserver.url, ca: pki.ca.cert, token: adminToken };
    if (options.workloads) {
      const controllerConfig = { dir, apiserverUrl: apiserver.url, pki };
      running.components.push(
        await startControllerManager(
          bin["kube-controller-manager"],
          controllerConfig,
          options.args?.["kube-controller-manager"] ?? {},
          reaper,
        ),
        await startScheduler(
          bin["kube-scheduler"],
          controllerConfig,
          options.args?.["kube-scheduler"] ?? {},
          reaper,
        ),
      );
      const kwok = await startKwok(
        {
          binary: bin.kwok,
          dir,
          apiserverUrl: apiserver.url,
          pki,
          adminToken,
          podStages: options.kwokPodStages ?? DEFAULT_POD_STAGES,
          extraArgs: options.args?.kwok ?? {},
          timeoutMs,
        },
        reaper,
      );
      running.components.push(kwok);
    }
    for (const ns of options.namespaces ?? []) await createNamespace(api, ns);
    if (options.workloads) await waitForNamespaceDefaults(api, running, timeoutMs);
    running.proxy = await startFaultProxy(apiserver.url, pki);
    const version = JSON.parse(
      (await probe(`${apiserver.url}/version`, { ca: pki.ca.cert, token: adminToken })).body,
    ) as {
      gitVersion: string;
    };
    return await assemble({
      dir,
      pki,
      adminToken,
      running,
      reaper,
      apiserverUrl: apiserver.url,
      version: version.gitVersion,
      apiserver: new Restartable(apiserverConfig, apiserver, running, reaper),
    });
  } catch (error) {
    await running.stopAll();
    await rm(dir, { recursive: true, force: true });
    reaper.release();
    throw error;
  }
}

interface Api {
  url: string;
  ca: string;
  token: string;
}

async function createNamespace(api: Api, name: string): Promise<void> {
  const r = await probe(`${api.url}/api/v1/namespaces`, {
    method: "POST",
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
    ca: api.ca,
    token: api.token,
  });
  if (r.status !== 201 && r.status !== 409)
    throw new Error(`creating namespace ${name} answered ${r.status}: ${r.body}`);
}

/**
 * What controller-manager adds to every namespace moments after start: the "default"
 * ServiceAccount and the kube-root-ca.crt ConfigMap (a pod's service account volume reads both).
 * Waited for in every namespace, so a cluster is handed over settled: a test that snapshots it
 * first and compares later (objects left behind) must not see them appear in between.
 */
async function waitForNamespaceDefaults(api: Api, running: Running, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const listed = await probe(`${api.url}/api/v1/namespaces`, { ca: api.ca, token: api.token });
  if (listed.status !== 200) throw new Error(`listing namespaces answered ${listed.status}: ${listed.body}`);
  const namespaces = (JSON.parse(listed.body) as { items: Array<{ metadata: { name: string } }> }).items.map(
    (ns) => ns.metadata.name,
  );
  for (const ns of namespaces) {
    for (const [what, path] of [
      ["default ServiceAccount", `/api/v1/namespaces/${ns}/serviceaccounts/default`],
      ["kube-root-ca.crt ConfigMap", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`],
    ] as const) {
      for (;;) {
        const r = await probe(`${api.url}${path}`, { ca: api.ca, token: api.token });
        if (r.status === 200) break;
        const dead = running.components.find((c) => !c.running);
        if (dead) throw dead.failure("exited during start-up");
        if (Date.now() > deadline) {
          const cm = running.components.find((c) => c.spec.name === "kube-controller-manager");
          throw (cm ?? running.components[0]!).failure(`created no ${what} in ${ns} within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

/** The running kube-apiserver, stopped and started again on its port with the same etcd. */
class Restartable {
  private starting: Promise<void> | undefined;

  constructor(
    private readonly config: ApiServerConfig,
    private current: ApiServer,
    private readonly running: Running,
    private readonly reaper: Reaper,
  ) {}

  async stop(): Promise<void> {
    await this.starting;
    await this.current.component.stop();
  }

  start(): Promise<void> {
    this.starting ??= (async () => {
      try {
        if (this.current.component.running) return;
        const port = Number(new URL(this.current.url).port);
        const next = await startApiServer(this.config, this.reaper, port);
        this.running.replace(this.current.component, next.component);
        this.current = next;
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }
}

async function assemble(parts: {
  dir: string;
  pki: Pki;
  adminToken: string;
  running: Running;
  reaper: Reaper;
  apiserverUrl: string;
  version: string;
  apiserver: Restartable;
}): Promise<RealTestCluster> {
  const { dir, pki, running, reaper } = parts;
  const proxy = running.proxy!;
  const admin = clientCertificate(pki, "tsop-admin", ["system:masters"]);
  const kubeconfig = kubeconfigYaml(proxy.url, pki.ca.cert, { name: "tsop-admin", certificate: admin });
  const kubeconfigPath = join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  let stopped: Promise<void> | undefined;
  return {
    url: proxy.url,
    apiserverUrl: parts.apiserverUrl,
    caCertificate: pki.ca.cert,
    kubeconfig,
    kubeconfigPath,
    token: parts.adminToken,
    kubernetesVersion: parts.version,
    faults: proxy.faults,
    requests: proxy.requests,
    closeWatches: () => proxy.closeWatches(),
    stopApiServer: () => parts.apiserver.stop(),
    startApiServer: () => parts.apiserver.start(),
    async restartApiServer() {
      await parts.apiserver.stop();
      await parts.apiserver.start();
    },
    openWatches: () => proxy.openWatches(),
    kubeconfigFor: (user, groups = []) =>
      kubeconfigYaml(proxy.url, pki.ca.cert, {
        name: user,
        certificate: clientCertificate(pki, user, groups),
      }),
    dataDir: dir,
    processes: () =>
      running.components.filter((c) => c.running).map((c) => ({ name: c.spec.name, pid: c.pid })),
    stop() {
      stopped ??= (async () => {
        await running.stopAll();
        await rm(dir, { recursive: true, force: true });
        reaper.release();
      })();
      return stopped;
    },
  };
}
