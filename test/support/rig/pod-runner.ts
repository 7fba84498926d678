// The test bed's pod runner: a kubelet for every pod whose images the bed can run — OLM's
// olm-operator, catalog-operator and packageserver, the catalog registry pods (tsop's and OLM's),
// OLM's bundle-unpack Job pods (images it maps to rig binaries, images.ts), and every pod using an
// image from a registry on 127.0.0.1 (the operator `tsop image build --push` built, and what it
// deploys from there). kwok keeps simulating all other pods (the kwok stages from
// kwokStagesForRunner() skip the runner's pods; the rule is runsOnRunner()). Containers run as
// local processes in a chroot of the image (sandbox.ts); the cluster reaches them through the
// runner's proxies (network.ts), and their logs through its kubelet API (kubelet-api.ts). Design
// and limits: docs/testing.md ("Real pods on the test bed").
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Server as HttpServer } from "node:http";
import type { Server } from "node:net";
import { parse, stringify } from "yaml";
import { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { DEFAULT_POD_STAGES } from "../../../src/testing/index.js";
import { freePort } from "../../../src/testing/real/net.js";
import { Reaper } from "../../../src/testing/real/reaper.js";
import { ImageStore, runsOnRunner, runsOnRunnerJq } from "./images.js";
import { startKubeletApi } from "./kubelet-api.js";
import { AddressBook, startEgressProxy, startSocksProxy, writeEgressConfig } from "./network.js";
import { type ContainerRun, RunnerPod } from "./pod.js";

export interface PodRunnerOptions {
  /** The kube-apiserver itself (not the fault proxy): https://127.0.0.1:PORT. */
  apiserverUrl: string;
  caCertificate: string;
  /** An admin bearer token. */
  token: string;
  /** Directory prepared by prepareRunnerNetwork (holds the egress socket). */
  network: RunnerNetwork;
  /** Path of a rig binary by name (olm, catalog, package-server, cpb, opm). */
  binary(name: string): string;
  /** Diagnostics (default: none). */
  log?(message: string): void;
  /** The bed's registry mirror (rig/mirror.ts): pods using mirrored images run, pulled through it. */
  mirror?: { sources: readonly string[]; registriesConf: string };
}

export interface PodRunner {
  /** Uids of the pods currently run. */
  pods(): string[];
  /** "namespace/name" of every pod the runner runs or is still stopping. */
  podNames(): string[];
  /** Process ids of every container sandbox now running (pods being stopped included). */
  pids(): number[];
  /** Process ids of a pod's running containers (empty when the runner does not run it). */
  podPids(namespace: string, name: string): number[];
  /** The runs of a container so far (log file, process), for tests; undefined for pods it does not run. */
  containerRuns(namespace: string, pod: string, container: string): ContainerRun[] | undefined;
  /**
   * The pod network as a pod sees it: a SOCKS5 proxy (socks5h://127.0.0.1:PORT) resolving
   * "<service>.<namespace>.svc:<port>" and "<pod IP>:<port>" to the runner's processes, for a
   * client that must reach a pod directly, as an in-cluster scraper would.
   */
  clusterProxy: string;
  stop(): Promise<void>;
}

export interface RunnerNetwork {
  dir: string;
  egressSocket: string;
  /** kube-apiserver flag value for --egress-selector-config-file. */
  egressConfig: string;
}

/** Creates the runner's directory and the apiserver's egress configuration (before the cluster starts). */
export async function prepareRunnerNetwork(): Promise<RunnerNetwork> {
  // Short path: a Unix socket path must stay under 108 bytes.
  const dir = await mkdtemp("/tmp/tsop-pods-");
  const network = { dir, egressSocket: join(dir, "egress.sock"), egressConfig: join(dir, "egress.yaml") };
  await writeEgressConfig(network.egressConfig, network.egressSocket);
  return network;
}

/**
 * kwok's default pod stages, each also requiring that the runner does not run the pod (`mirrored`:
 * the repository prefixes the bed's mirror serves, whose pods the runner runs).
 */
export function kwokStagesForRunner(mirrored: readonly string[] = []): string[] {
  const key = runsOnRunnerJq(mirrored);
  return DEFAULT_POD_STAGES.map((text) => {
    const stage = parse(text) as {
      metadata: { name: string };
      spec: { selector: { matchExpressions: Array<Record<string, unknown>> } };
    };
    // Deletion stays kwok's job for every pod: it finishes what no kubelet would otherwise finish.
    if (stage.metadata.name !== "pod-delete") {
      stage.spec.selector.matchExpressions.push({ key, operator: "NotIn", values: ["true"] });
    }
    return stringify(stage);
  });
}

export async function startPodRunner(options: PodRunnerOptions): Promise<PodRunner> {
  const log = options.log ?? (() => undefined);
  const kubeconfig = join(options.network.dir, "runner.kubeconfig");
  await writeFile(kubeconfig, runnerKubeconfig(options), { mode: 0o600 });
  const client = await KubeClient.connect({
    kubeconfig,
    env: {},
    retry: { attempts: 8, baseDelayMs: 100, maxDelayMs: 1000 },
  });
  const book = new AddressBook(client);
  const socks = await startSocksProxy(book);
  const egress = await startEgressProxy(book, options.network.egressSocket);
  const reaper = Reaper.start();
  reaper.watchDirectory(options.network.dir);
  const api = new URL(options.apiserverUrl);
  let nextIp = 2;
  const loopbackNet = 1 + Math.floor(Math.random() * 254);
  const ctx = {
    client,
    book,
    dir: options.network.dir,
    images: new ImageStore(join(options.network.dir, "images"), options.binary, options.mirror),
    env: {
      KUBERNETES_SERVICE_HOST: api.hostname,
      KUBERNETES_SERVICE_PORT: api.port,
      GRPC_PROXY: socks.url,
    },
    freePort,
    // 10.245.0.0/16: outside kwok's pod range and the service range; reached only through the proxies.
    podIP: () => `10.245.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 2}`,
    // Every bed numbers its pods alike, so two beds on one machine (parallel test files, or
    // several checkouts) would bind the same fixed ports: opm's pprof on localhost:6060 exits with
    // "address in use" and its pod restarts forever. Each runner takes its own 127.<n>.0.0/16.
    loopback: (ip: string) => ip.replace(/^10\.245\./, `127.${loopbackNet}.`),
    log,
    reaper,
  };
  const running = new Map<string, RunnerPod>();
  // Deleted pods whose processes are still stopping (SIGTERM, grace period).
  const stopping = new Set<RunnerPod>();
  const kubelet = await startKubeletApi({
    logRun: (namespace, name, container, previous) =>
      [...running.values(), ...stopping]
        .find((p) => p.namespace === namespace && p.name === name)
        ?.logRun(container, previous),
  });
  await routeKubeletApi(client, book, kubelet.port);
  const controller = new AbortController();
  const sync = (pod: KubeObject, deleted: boolean) => {
    const uid = pod.metadata.uid ?? "";
    const current = running.get(uid);
    const gone = deleted || Boolean(pod.metadata.deletionTimestamp);
    if (current && gone) {
      running.delete(uid);
      stopping.add(current);
      void current.stop(true).finally(() => stopping.delete(current));
    } else if (!current && !gone && runnable(pod, options.mirror?.sources ?? [])) {
      const runnerPod = new RunnerPod(pod, ctx);
      running.set(uid, runnerPod);
      runnerPod.start();
    }
  };
  void watchPods(client, controller.signal, sync, log);
  const all = () => [...running.values(), ...stopping];
  return {
    pods: () => [...running.values()].map((p) => p.uid),
    podNames: () => all().map((p) => `${p.namespace}/${p.name}`),
    pids: () => all().flatMap((p) => p.pids()),
    podPids: (namespace, name) =>
      all()
        .filter((p) => p.namespace === namespace && p.name === name)
        .flatMap((p) => p.pids()),
    containerRuns: (namespace, pod, container) =>
      all()
        .find((p) => p.namespace === namespace && p.name === pod)
        ?.containerRuns(container),
    clusterProxy: socks.url.replace(/^socks5:/, "socks5h:"),
    async stop() {
      controller.abort();
      await Promise.all(all().map((pod) => pod.stop()));
      running.clear();
      stopping.clear();
      await closeServer(kubelet.server);
      await closeServer(socks.server);
      await closeServer(egress);
      client.close();
      await rm(options.network.dir, { recursive: true, force: true }).catch(() => undefined);
      reaper.release();
    },
  };
}

/** The runner talks to the kube-apiserver directly: faults injected for tsop do not hit it. */
function runnerKubeconfig(options: PodRunnerOptions): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "bed",
        cluster: {
          server: options.apiserverUrl,
          "certificate-authority-data": Buffer.from(options.caCertificate).toString("base64"),
        },
      },
    ],
    users: [{ name: "pod-runner", user: { token: options.token } }],
    contexts: [{ name: "bed", context: { cluster: "bed", user: "pod-runner" } }],
    "current-context": "bed",
  });
}

/** A pod the runner takes: scheduled, not finished, and runsOnRunner(). */
function runnable(pod: KubeObject, mirrored: readonly string[]): boolean {
  if (!pod.spec?.nodeName) return false;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const containers = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])] as Array<{
    image: string;
  }>;
  return runsOnRunner(
    containers.map((c) => c.image),
    mirrored,
  );
}

/**
 * The kube-apiserver dials a Node's kubelet at one of its addresses (or its name) and its kubelet
 * port (status.daemonEndpoints, else 10250): every such address leads to the runner's kubelet API.
 */
async function routeKubeletApi(client: KubeClient, book: AddressBook, localPort: number): Promise<void> {
  const nodes = (await client.list("v1", "Node", {})).items;
  for (const node of nodes) {
    const status = (node.status ?? {}) as {
      addresses?: Array<{ address: string }>;
      daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
    };
    const port = status.daemonEndpoints?.kubeletEndpoint?.Port || 10250;
    const hosts = [node.metadata.name ?? "", ...(status.addresses ?? []).map((a) => a.address)];
    for (const host of hosts.filter(Boolean)) book.setFixed(host, port, localPort);
  }
}

/** List + watch of every pod, relisting when the watch ends or history is gone. */
async function watchPods(
  client: KubeClient,
  signal: AbortSignal,
  sync: (pod: KubeObject, deleted: boolean) => void,
  log: (m: string) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const list = await client.list("v1", "Pod", { namespace: "" });
      for (const pod of list.items) sync(pod, false);
      let rv = list.resourceVersion;
      for (;;) {
        const result = await client.watch("v1", "Pod", { namespace: "", resourceVersion: rv, signal }, (e) =>
          sync(e.object, e.type === "DELETED"),
        );
        if (signal.aborted || result.gone) break;
        rv = result.resourceVersion;
      }
    } catch (error) {
      if (signal.aborted) return;
      log(`pod watch: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => {
    (server as HttpServer).closeAllConnections?.();
    server.close(() => resolve());
  });
}
