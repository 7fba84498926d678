// Sharding where it runs (issue 43): the scaffolded memcached operator, turned sharded by `--sharding`
// in config/manager (no code change to how it starts), built by `tsop image build` and deployed by
// `tsop deploy --replicas 3`; the pod runner runs its three pods as processes holding only the
// generated RBAC. 30 Memcacheds are all reconciled, every replica reconciles a share (the shard
// label of each object names a live replica, and each replica's log shows its reconciles), and no key
// is reconciled by two replicas at once (each reconcile logs its start and end; the intervals of all
// replicas, one machine's clock, must not overlap per key). One pod is deleted (the kubelet stops its
// process): its share moves, the replacement joins, and a change to every Memcached converges again.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { defaultShardIdentity } from "../../src/runtime/sharding/labels.js";
import type { TestRegistry } from "../support/registry.js";
import type { OlmBed } from "../support/rig/olm-bed.js";
import { type DeployBed, startDeployBed } from "./deploy-bed.js";
import {
  alive,
  buildImage,
  CONTROLLER,
  edit,
  type Env,
  eventually,
  kubectl,
  kubectlJson,
  managerLogs,
  managerPods,
  tsop,
} from "./support.js";

const SYSTEM = "memcached-operator-system";
const RING = "memcached-operator.example.com";
const SHARD = `shard.tsop.io/${RING}`;
const DRAIN = `drain.shard.tsop.io/${RING}`;
const N = 30;
let registry: TestRegistry;
let bed: OlmBed;
let deployBed: DeployBed | undefined;
let project: string;
let image: string;
let env: Env;

beforeAll(async () => {
  deployBed = await startDeployBed("tsop-sharding-deploy-");
  ({ registry, bed, project } = deployBed);
  // The opt-in: one flag in config/manager, no change to main.ts.
  await edit(
    project,
    "config/manager/manager.yaml",
    "        - --leader-elect\n",
    "        - --leader-elect\n        - --sharding\n",
  );
  // The overlap recorder: each reconcile logs its key and wall-clock start and end.
  await edit(
    project,
    CONTROLLER,
    "  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result | undefined> {\n",
    [
      "  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result | undefined> {",
      "    const key = `${request.namespace}/${request.name}`;",
      '    ctx.log.info("reconcile start", { key, at: Date.now() });',
      "    try {",
      "      return await this.reconcileOnce(request, ctx);",
      "    } finally {",
      '      ctx.log.info("reconcile end", { key, at: Date.now() });',
      "    }",
      "  }",
      "",
      "  async reconcileOnce(request: Request, ctx: ReconcileContext): Promise<Result | undefined> {",
      "",
    ].join("\n"),
  );
  await tsop(project, ["generate"]);
  const { execa } = await import("execa");
  await execa("npm", ["run", "build"], { cwd: project });
  image = await buildImage(project, registry, "0.0.1");
  env = { KUBECONFIG: bed.cluster.kubeconfigPath };
}, 900_000);

afterAll(async () => {
  await deployBed?.stop();
}, 120_000);

interface Interval {
  pod: string;
  key: string;
  start: number;
  end: number;
}

/** A reconcile still running when its log was read: open until the end of the test. */
const OPEN = Number.MAX_SAFE_INTEGER;

/** Every reconcile interval in `pod`'s log; one still running is OPEN. */
function intervalsOf(pod: string, log: string): Interval[] {
  const out: Interval[] = [];
  const open = new Map<string, number>();
  for (const line of log.split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; key?: string; at?: number };
    if (entry.msg === "reconcile start") open.set(entry.key!, entry.at!);
    if (entry.msg === "reconcile end") {
      out.push({ pod, key: entry.key!, start: open.get(entry.key!) ?? 0, end: entry.at! });
      open.delete(entry.key!);
    }
  }
  for (const [key, start] of open) out.push({ pod, key, start, end: OPEN });
  return out;
}

function overlaps(intervals: Interval[]): string[] {
  const found: string[] = [];
  for (const a of intervals)
    for (const b of intervals)
      if (a.pod < b.pod && a.key === b.key && a.start < b.end && b.start < a.end)
        found.push(`${a.key}: ${a.pod} [${a.start}, ${a.end}] and ${b.pod} [${b.start}, ${b.end}]`);
  return found;
}

/** The live manager pods that are Ready and have a process on the runner. */
async function runningPods(): Promise<string[]> {
  const pods = await managerPods(env, SYSTEM);
  return pods
    .filter((p) =>
      (p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some(
        (c) => c.type === "Ready" && c.status === "True",
      ),
    )
    .map((p) => p.metadata.name ?? "")
    .filter((name) => bed.olm.runner.podPids(SYSTEM, name).length > 0);
}

/** The pod whose replica a shard identity names (the identity is the host name, cut to 50, and a suffix). */
const podOf = (identity: string, pods: string[]) =>
  pods.find((p) => identity.startsWith(defaultShardIdentity(p, "")));

const names = Array.from({ length: N }, (_, i) => `m-${i}`);

/** Why the Memcacheds have not converged on `pods` at spec.size `size`, or undefined. */
async function why(pods: string[], size: number): Promise<string | undefined> {
  const list = await kubectlJson<{ items: KubeObject[] }>(env, ["get", "memcached", "-n", "tenant"]);
  const deployments = await kubectlJson<{ items: KubeObject[] }>(env, ["get", "deployments", "-n", "tenant"]);
  for (const name of names) {
    const m = list.items.find((o) => o.metadata.name === name);
    const d = deployments.items.find((o) => o.metadata.name === name);
    const shard = m?.metadata.labels?.[SHARD];
    if (!m || !shard || m.metadata.labels?.[DRAIN])
      return `${name}: labels ${JSON.stringify(m?.metadata.labels)}`;
    if (!podOf(shard, pods)) return `${name}: shard ${shard} is no live pod's (${pods.join(", ")})`;
    if (!m.metadata.finalizers?.includes("cache.example.com/finalizer")) return `${name}: no finalizer yet`;
    if ((d?.spec as { replicas?: number } | undefined)?.replicas !== size)
      return `${name}: Deployment not at ${size}`;
    if (d?.metadata.labels?.[SHARD] !== shard) return `${name}: Deployment not in its owner's shard`;
  }
  return undefined;
}

async function converge(pods: string[], size: number, what: string): Promise<Map<string, number>> {
  let last: string | undefined;
  await eventually(
    `convergence ${what}`,
    async () => {
      last = await why(pods, size);
      return last === undefined ? true : undefined;
    },
    120_000,
    async () => `last: ${last}`,
  );
  const list = await kubectlJson<{ items: KubeObject[] }>(env, ["get", "memcached", "-n", "tenant"]);
  const share = new Map<string, number>(pods.map((p) => [p, 0]));
  for (const m of list.items) {
    const pod = podOf(m.metadata.labels?.[SHARD] ?? "", pods)!;
    share.set(pod, (share.get(pod) ?? 0) + 1);
  }
  return share;
}

it("three sharded replicas of the deployed operator share 30 Memcacheds, never two on one key, and converge after a pod is deleted", async () => {
  await tsop(project, [
    "deploy",
    "--image",
    image,
    "--replicas",
    "3",
    "--kubeconfig",
    bed.cluster.kubeconfigPath,
  ]);
  const first = await eventually(
    "three running manager pods",
    async () => {
      const pods = await runningPods();
      return pods.length === 3 ? pods : undefined;
    },
    240_000,
  );
  // Each holds its shard Lease before the Memcacheds come, so the ring has three shards from the start.
  await eventually("three shard Leases", async () => {
    const leases = await kubectlJson<{ items: KubeObject[] }>(env, [
      "get",
      "leases",
      "-n",
      SYSTEM,
      "-l",
      `sharding.tsop.io/ring=${RING}`,
    ]);
    return leases.items.length === 3 ? true : undefined;
  });
  for (const name of names) {
    const cr = {
      apiVersion: "cache.example.com/v1alpha1",
      kind: "Memcached",
      metadata: { name, namespace: "tenant" },
      spec: { size: 1 },
    };
    const applied = await kubectl(env, ["apply", "-f", "-"], { input: JSON.stringify(cr) });
    expect(applied.exitCode, applied.all).toBe(0);
  }
  const share = await converge(first, 1, "on three replicas");
  // Every replica holds a share and reconciles it (its own log). An object that moved after a
  // reconcile elsewhere is reconciled by its new owner when it arrives in its cache, which may come
  // just after the labels converged: wait for it.
  const logs = new Map<string, string>();
  const list = await kubectlJson<{ items: KubeObject[] }>(env, ["get", "memcached", "-n", "tenant"]);
  for (const pod of first) {
    expect(share.get(pod), `${pod}'s share`).toBeGreaterThan(0);
    const mine = list.items
      .filter((m) => podOf(m.metadata.labels?.[SHARD] ?? "", first) === pod)
      .map((m) => `tenant/${m.metadata.name}`);
    await eventually(
      `${pod}'s log to show a reconcile of each of its ${mine.length} Memcacheds`,
      async () => {
        const log = await managerLogs(env, SYSTEM, pod);
        logs.set(pod, log);
        const reconciled = new Set(intervalsOf(pod, log).map((i) => i.key));
        return mine.every((k) => reconciled.has(k)) ? true : undefined;
      },
    );
  }
  expect(overlaps(first.flatMap((p) => intervalsOf(p, logs.get(p)!)))).toEqual([]);

  // One pod deleted: the kubelet stops its process; its share moves, the ReplicaSet's replacement joins.
  // Its log is read once no reconcile of it is running (it cannot be read after the pod is gone).
  const gone = first[0]!;
  await eventually("no reconcile running in the pod to delete", async () => {
    const log = await managerLogs(env, SYSTEM, gone);
    logs.set(gone, log);
    return intervalsOf(gone, log).every((i) => i.end !== OPEN) ? true : undefined;
  });
  const pids = bed.olm.runner.podPids(SYSTEM, gone);
  const deleted = await kubectl(env, ["delete", "pod", gone, "-n", SYSTEM, "--wait=false"]);
  expect(deleted.exitCode, deleted.all).toBe(0);
  await eventually(
    "the deleted pod's process to end",
    async () => (pids.every((pid) => !alive(pid)) ? true : undefined),
    60_000,
  );
  const after = await eventually(
    "three running manager pods again, one new",
    async () => {
      const pods = await runningPods();
      return pods.length === 3 && !pods.includes(gone) ? pods : undefined;
    },
    240_000,
  );
  for (const name of names) {
    const patched = await kubectl(env, [
      "patch",
      "memcached",
      name,
      "-n",
      "tenant",
      "--type=merge",
      "-p",
      '{"spec":{"size":2}}',
    ]);
    expect(patched.exitCode, patched.all).toBe(0);
  }
  await converge(after, 2, "after one pod was deleted");
  for (const pod of after) logs.set(pod, await managerLogs(env, SYSTEM, pod));
  expect(overlaps([...logs].flatMap(([pod, log]) => intervalsOf(pod, log)))).toEqual([]);
}, 600_000);
