// Built-in sharding, measured (issue 43): 1, 2 and 4 replicas of a Widget operator
// (bench/sharding-replica.ts, each its own process) at N Widgets on a real kube-apiserver (the
// test rig, tsop/testing's controlPlane "real"; --server memory for the in-memory one). Per k:
// per-replica peak RSS and CPU time, total API requests of the replicas, time until every Widget
// is reconciled, and the time to converge again (every Widget labelled for the ring of the live
// replicas and reconciled) after one replica is killed (kill -9) and after one is added.
// Run: npm run bench:sharding -- [--n 20000] [--replicas 1,2,4] [--server real|memory]
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "../src/runtime/client/client.js";
import { loadKubeConfig } from "../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../src/runtime/connect/mapper.js";
import { RestClient } from "../src/runtime/connect/rest.js";
import { HashRing } from "../src/runtime/sharding/ring.js";
import { startTestCluster } from "../src/testing/index.js";
import { machine } from "./side-by-side.js";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "20000" },
    replicas: { type: "string", default: "1,2,4" },
    server: { type: "string", default: "real" },
  },
});
const N = Number(values.n);
const COUNTS = (values.replicas as string).split(",").map(Number);
if (!(N > 0) || COUNTS.some((k) => !(k >= 1)))
  throw new Error("--n must be a positive number and --replicas a list like 1,2,4");
/** A replica that exited on its own (not killed by the bench): the figures would be wrong. */
let failed: Error | undefined;
const children = new Set<ChildProcess>();
const REPLICA = join(import.meta.dirname, "sharding-replica.ts");
const WIDGET = { apiVersion: "bench.tsop.dev/v1", kind: "Widget" } as const;

if (values.server !== "memory" && !process.env.TSOP_RIG_ASSETS) {
  // The rig's etcd and kube-apiserver (built once, then cached), as bench/rig-assets.ts does.
  const rig = join(import.meta.dirname, "../scripts/rig/index.mjs");
  const assets = execFileSync(process.execPath, [rig, "assets", "etcd", "kube-apiserver"], {
    encoding: "utf8",
  }).trim();
  process.env.TSOP_RIG_ASSETS = assets;
  process.env.KUBEBUILDER_ASSETS = assets;
}
const cluster =
  values.server === "memory" ? await startTestCluster() : await startTestCluster({ controlPlane: "real" });
const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
const rest = new RestClient(loaded.server, loaded);
const client = new Client(rest, new RestMapper(rest));
const dir = mkdtempSync(join(tmpdir(), "bench-sharding-"));

await client.create({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.bench.tsop.dev" },
  spec: {
    group: "bench.tsop.dev",
    names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: { round: { type: "integer" } } },
              status: { type: "object", properties: { round: { type: "integer" } } },
            },
          },
        },
      },
    ],
  },
});
await until(async () => {
  const list = await rest
    .request<{ resources?: unknown[] }>("GET", "/apis/bench.tsop.dev/v1")
    .catch(() => undefined);
  return (list?.resources?.length ?? 0) > 0;
}, 60_000);

interface Replica {
  id: string;
  child: ChildProcess;
  state: string;
}

function startReplica(namespace: string, id: string): Replica {
  const state = join(dir, `${namespace}-${id}.json`);
  const child = spawn(process.execPath, ["--import", "tsx", REPLICA], {
    env: {
      ...process.env,
      IDENTITY: id,
      BENCH_NAMESPACE: namespace,
      KUBECONFIG_TEXT: cluster.kubeconfig,
      STATE_FILE: state,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  child.on("exit", (code, signal) => {
    if (signal !== "SIGKILL")
      failed ??= new Error(`replica ${id} of ${namespace} exited (${code ?? signal})`);
  });
  children.add(child);
  return { id, child, state };
}

function stateOf(r: Replica): { rss: number; cpuMs: number; requests: number; reconciles: number } {
  return existsSync(r.state)
    ? JSON.parse(readFileSync(r.state, "utf8"))
    : { rss: 0, cpuMs: 0, requests: 0, reconciles: 0 };
}

async function until(probe: () => Promise<boolean>, timeoutMs: number, intervalMs = 500): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (failed) throw failed;
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`not converged within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

type W = {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { round?: number };
  status?: { round?: number };
};

/** Every Widget at `round` in status and, with `live`, labelled for the ring of the live replicas. */
async function converged(namespace: string, round: number, live?: string[]): Promise<boolean> {
  const items = await client.list<W>(WIDGET, { namespace });
  const ring = live && new HashRing(live);
  const label = `shard.tsop.io/bench-${namespace}`;
  return (
    items.length === N &&
    items.every(
      (w) =>
        w.status?.round === round &&
        (!ring || w.metadata.labels?.[label] === ring.ownerOf(`${namespace}/${w.metadata.name}`)),
    )
  );
}

async function setRound(namespace: string, round: number) {
  await inParallel(N, 32, (i) =>
    client.patch(
      { kind: WIDGET, key: { namespace, name: `w-${i}` } },
      { spec: { round } },
      { type: "merge" },
    ),
  );
}

async function inParallel(n: number, lanes: number, fn: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
console.log(
  `sharding: tsop ${commit}, N=${N}, replicas ${COUNTS.join(", ")} (${machine()}, ${new Date().toISOString()})`,
);
const timeout = Math.max(120_000, N * 30);
// A convergence check lists all N Widgets; at 20,000 that is seconds of API server CPU, which a
// tighter poll would take from the replicas being measured.
const POLL_MS = Math.max(500, N / 10);
const rows: string[][] = [];
/** One replica's figures (k = 1), against which each k's are set as ratios. */
let single: { rss: number; cpuMs: number; requests: number } | undefined;
const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) : "-");
try {
  for (const k of COUNTS) {
    const namespace = `bench-k${k}`;
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    const replicas = Array.from({ length: k }, (_, i) => startReplica(namespace, `r${i}`));
    const started = performance.now();
    await inParallel(N, 32, (i) =>
      client.create({ ...WIDGET, metadata: { name: `w-${i}`, namespace }, spec: { round: 1 } }),
    );
    await until(() => converged(namespace, 1), timeout, POLL_MS);
    const all = performance.now() - started;
    const states = replicas.map(stateOf);
    let afterKill = "-";
    let live = replicas.map((r) => r.id);
    if (k > 1) {
      const victim = replicas[k - 1]!;
      victim.child.kill("SIGKILL");
      live = live.filter((id) => id !== victim.id);
      await setRound(namespace, 2);
      afterKill = `${((await until(() => converged(namespace, 2, live), timeout, POLL_MS)) / 1000).toFixed(1)} s`;
    }
    const added = startReplica(namespace, `r${k}`);
    replicas.push(added);
    live = [...live, added.id];
    await setRound(namespace, 3);
    const afterAdd = `${((await until(() => converged(namespace, 3, live), timeout, POLL_MS)) / 1000).toFixed(1)} s`;
    const requests = states.reduce((sum, s) => sum + s.requests, 0);
    const most = {
      rss: Math.max(...states.map((s) => s.rss)),
      cpuMs: Math.max(...states.map((s) => s.cpuMs)),
    };
    if (k === 1) single = { ...most, requests };
    rows.push([
      String(k),
      states.map((s) => `${(s.rss / 2 ** 20).toFixed(0)}`).join("/") + " MiB",
      states.map((s) => `${(s.cpuMs / 1000).toFixed(1)}`).join("/") + " s",
      `${ratio(most.rss, single?.rss)} / ${ratio(most.cpuMs, single?.cpuMs)} (${(1.2 / k).toFixed(2)})`,
      String(requests),
      ratio(requests, single?.requests),
      `${(all / 1000).toFixed(1)} s`,
      afterKill,
      afterAdd,
    ]);
    for (const r of replicas) r.child.kill("SIGKILL");
  }
} finally {
  for (const child of children) child.kill("SIGKILL");
  rest.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

const header = [
  "replicas",
  "peak RSS per replica",
  "CPU per replica",
  "largest RSS / CPU vs one replica (goal)",
  "requests",
  "vs one replica",
  "reconcile all",
  "converge after kill",
  "converge after add",
];
console.log(
  `\nsharding at N=${N} Widgets (${values.server === "memory" ? "in-memory" : "real kube-apiserver"}):`,
);
console.log(`| ${header.join(" | ")} |`);
console.log(`|${header.map(() => "---").join("|")}|`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
