// Built-in sharding on the real kube-apiserver (issue 43): three replicas of the fault suite's
// Widget operator as separate processes (support/sharding-replica.ts), each its own user behind the
// fault proxy. After a kill -9 of one, a partition of another (the proxy cuts its user off) and a
// scale-up by one: every Widget is reconciled again (a spec change reaches its ConfigMap), the
// Widgets and ConfigMaps carry the shard the ring of the live replicas gives them, each live
// replica's cache holds exactly its share, and no key was ever reconciled by two replicas at once
// (the intervals every replica appends to its file).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { HashRing } from "../../src/runtime/sharding/ring.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { CONFIGMAP, configMapName, WIDGET, WIDGET_CRD, type Widget } from "./support/fault-suite-operator.js";
import { notConverged } from "./support/fault-suite-invariants.js";
import { waitFor } from "./support/wait.js";

const SHARD = "shard.tsop.io/sharding-real.example.com";
const DRAIN = "drain.shard.tsop.io/sharding-real.example.com";
const N = 24;
const REPLICA = join(import.meta.dirname, "support", "sharding-replica.ts");

let real: RealTestCluster;
let rest: RestClient;
let client: Client;
let dir: string;
const replicas = new Map<
  string,
  { child: ChildProcess; exited: Promise<number | null>; stderr: () => string }
>();

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  dir = mkdtempSync(join(tmpdir(), "sharding-real-"));
  await client.create(WIDGET_CRD);
  await waitFor("the Widget CRD to be served", async () => {
    const list = await rest
      .request<{ resources?: unknown[] }>("GET", "/apis/faults.tsop.dev/v1")
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) > 0;
  });
}, 120_000);

afterAll(async () => {
  for (const r of replicas.values()) r.child.kill("SIGKILL");
  await Promise.all([...replicas.values()].map((r) => r.exited));
  rest?.close();
  await real?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(identity: string) {
  const child = spawn(process.execPath, ["--import", "tsx", REPLICA], {
    env: {
      ...process.env,
      IDENTITY: identity,
      // Its own user (full rights): the proxy can partition one replica.
      KUBECONFIG_TEXT: real.kubeconfigFor(identity, ["system:masters"]),
      OVERLAP_FILE: join(dir, `${identity}.intervals`),
      STATE_FILE: join(dir, `${identity}.state.json`),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  replicas.set(identity, { child, exited, stderr: () => stderr });
}

/** Every interval of every replica ever started; pairs of replicas overlapping on one key. */
function overlaps(): string[] {
  const intervals: Array<{ replica: string; key: string; start: number; end: number }> = [];
  for (const name of replicas.keys()) {
    const file = join(dir, `${name}.intervals`);
    if (!existsSync(file)) continue;
    const open = new Map<string, number>();
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const [what, key, at] = line.split(" ") as [string, string, string];
      if (what === "start") open.set(key, Number(at));
      else intervals.push({ replica: name, key, start: open.get(key)!, end: Number(at) });
    }
    // A killed replica's reconcile that never ended: open until now.
    for (const [key, start] of open)
      if (!intervals.some((i) => i.replica === name && i.key === key && i.start === start))
        intervals.push({ replica: name, key, start, end: Date.now() });
  }
  const found: string[] = [];
  for (const a of intervals)
    for (const b of intervals)
      if (a.replica < b.replica && a.key === b.key && a.start < b.end && b.start < a.end)
        found.push(`${a.key}: ${a.replica} [${a.start}, ${a.end}] and ${b.replica} [${b.start}, ${b.end}]`);
  return found;
}

const keys = Array.from({ length: N }, (_, i) => `default/w-${i}`);

/** Why the cluster has not converged on `live` with spec.data.round = round, or undefined. */
async function why(live: string[], round: number): Promise<string | undefined> {
  const ring = new HashRing(live);
  for (const key of keys) {
    const name = key.slice("default/".length);
    const widget = await client.get<Widget>(WIDGET, { namespace: "default", name });
    if (widget?.spec.data?.round !== String(round)) return `${key}: spec not yet at round ${round}`;
    const labels = widget.metadata.labels ?? {};
    if (labels[SHARD] !== ring.ownerOf(key) || labels[DRAIN])
      return `${key}: labels ${JSON.stringify(labels)}`;
    const cm = await client.get(CONFIGMAP, { namespace: "default", name: configMapName(name) });
    if (cm?.metadata?.labels?.[SHARD] !== ring.ownerOf(key))
      return `${key}: ConfigMap not in the owner's shard`;
    const bad = await notConverged(client, "default", name);
    if (bad) return `${key}: ${bad}`;
  }
  for (const r of live) {
    const file = join(dir, `${r}.state.json`);
    if (!existsSync(file)) return `${r}: no state yet`;
    const state = JSON.parse(readFileSync(file, "utf8")) as { widgets: string[]; configMaps: string[] };
    const share = keys.filter((k) => ring.ownerOf(k) === r).sort();
    if (state.widgets.join() !== share.join())
      return `${r} caches Widgets ${state.widgets.join()}, not ${share.join()}`;
    const cms = share.map((k) => `default/${configMapName(k.slice(8))}`).sort();
    if (state.configMaps.join() !== cms.join()) return `${r} caches ConfigMaps ${state.configMaps.join()}`;
  }
  return undefined;
}

let round = 0;
async function changeAllAndConverge(live: string[], what: string) {
  round++;
  for (const key of keys)
    await client.patch(
      { kind: WIDGET, key: { namespace: "default", name: key.slice(8) } },
      { spec: { data: { round: String(round) } } },
      { type: "merge" },
    );
  let last: string | undefined;
  await waitFor(
    `convergence on ${live.join(", ")} ${what} (last: ${last})`,
    async () => !(last = await why(live, round)),
    30_000,
    250,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last: ${last}`);
  });
  expect(overlaps()).toEqual([]);
}

it("three replica processes share the Widgets and keep them reconciled through kill -9, a partition and a scale-up, never two at once", async () => {
  for (const r of ["replica-a", "replica-b", "replica-c"]) start(r);
  for (let i = 0; i < N; i++)
    await client.create({
      ...WIDGET,
      metadata: { name: `w-${i}`, namespace: "default" },
      spec: { data: { round: "0" } },
    });
  await changeAllAndConverge(["replica-a", "replica-b", "replica-c"], "at start");

  replicas.get("replica-c")!.child.kill("SIGKILL");
  await changeAllAndConverge(["replica-a", "replica-b"], "after kill -9 of replica-c");

  real.faults.partition("replica-b");
  expect(await replicas.get("replica-b")!.exited).toBe(1);
  expect(replicas.get("replica-b")!.stderr()).toMatch(/could not renew lease/);
  await changeAllAndConverge(["replica-a"], "after the partition of replica-b");

  start("replica-d");
  await changeAllAndConverge(["replica-a", "replica-d"], "after replica-d joined");
}, 90_000);
