// The test bed's pod runner: a kubelet for the pods that must really work on the real control
// plane — OLM's olm-operator, catalog-operator and packageserver, the catalog registry pods (tsop's
// and OLM's), and OLM's bundle-unpack Job pods. It runs every pod that uses an image it maps
// (images.ts: OLM's image, opm's image, the operatorhub.io catalog); kwok keeps simulating all other
// pods (the kwok stages from kwokStagesForRunner() skip the runner's pods). Containers run as local
// processes in a chroot of the image (sandbox.ts); the cluster reaches them through the runner's
// proxies (network.ts). Design and limits: docs/testing.md ("Real OLM on the test bed").
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Server as HttpServer } from "node:http";
import type { Server } from "node:net";
import { parse, stringify } from "yaml";
import { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { DEFAULT_POD_STAGES } from "../../../src/testing/index.js";
import { Reaper } from "../../../src/testing/real/reaper.js";
import { ImageStore, isMapped, MAPPED_REPOSITORIES } from "./images.js";
import { AddressBook, startEgressProxy, startSocksProxy, writeEgressConfig } from "./network.js";
import { RunnerPod } from "./pod.js";

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
}

export interface PodRunner {
  /** Pods currently run (namespace/name). */
  pods(): string[];
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

/** kwok's default pod stages, each also requiring that the pod uses none of the runner's images. */
export function kwokStagesForRunner(): string[] {
  const images = "[(.spec.initContainers // [])[].image, .spec.containers[].image]";
  const prefixes = MAPPED_REPOSITORIES.flatMap((r) => [`${r}:`, `${r}@`]);
  const key = `${images} | any(. as $i | ${JSON.stringify(prefixes)} | any(. as $p | $i | startswith($p)))`;
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
    images: new ImageStore(join(options.network.dir, "images"), options.binary),
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
  const controller = new AbortController();
  const sync = (pod: KubeObject, deleted: boolean) => {
    const uid = pod.metadata.uid ?? "";
    const current = running.get(uid);
    const gone = deleted || Boolean(pod.metadata.deletionTimestamp);
    if (current && gone) {
      running.delete(uid);
      void current.stop();
    } else if (!current && !gone && runnable(pod)) {
      const runnerPod = new RunnerPod(pod, ctx);
      running.set(uid, runnerPod);
      runnerPod.start();
    }
  };
  void watchPods(client, controller.signal, sync, log);
  return {
    pods: () => [...running.values()].map((p) => p.uid),
    async stop() {
      controller.abort();
      for (const pod of running.values()) await pod.stop();
      running.clear();
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

/** A pod the runner takes: scheduled, not finished, and using one of the mapped images. */
function runnable(pod: KubeObject): boolean {
  if (!pod.spec?.nodeName) return false;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const containers = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])] as Array<{
    image: string;
  }>;
  return containers.some((c) => isMapped(c.image));
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => {
    (server as HttpServer).closeAllConnections?.();
    server.close(() => resolve());
  });
}
