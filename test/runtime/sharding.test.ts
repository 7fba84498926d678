// Built-in sharding (issue 43): the ring, and replicas in one process (distinct identities) on the
// in-memory API server. Every reconcile records its interval per replica (support/overlap.ts): no
// key may ever be reconciled by two replicas at once, also while a replica joins (its share moves
// through drain and acknowledgement) and after one is partitioned (its share moves once its shard
// Lease expired).
import { afterEach, describe, expect, it } from "vitest";
import type { ReconcileContext } from "../../src/runtime/controller/controller.js";
import type { Manager, ManagerOptions } from "../../src/runtime/manager/manager.js";
import { defaultShardIdentity, validateShardIdentity } from "../../src/runtime/sharding/labels.js";
import { HashRing } from "../../src/runtime/sharding/ring.js";
import { type Harness, harness } from "./support/cluster.js";
import { OverlapRecorder } from "./support/overlap.js";
import { type PartitionableLink, partitionableLink } from "./support/trust-leader-partition.js";
import { sleep } from "./support/trust-leader.js";
import { kubeconfigFor, waitFor } from "./support/wait.js";

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;
const RING = "sharding-test";
const SHARD = `shard.tsop.io/${RING}`;
const DRAIN = `drain.shard.tsop.io/${RING}`;

describe("the ring", () => {
  const keys = Array.from({ length: 6000 }, (_, i) => `ns-${i % 7}/widget-${i}`);
  const share = (ring: HashRing) => {
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(ring.ownerOf(k)!, (counts.get(ring.ownerOf(k)!) ?? 0) + 1);
    return counts;
  };

  it("is stable: the same shards, in any order, give the same owner", () => {
    const a = new HashRing(["r-a", "r-b", "r-c"]);
    const b = new HashRing(["r-c", "r-a", "r-b", "r-a"]);
    expect(keys.every((k) => a.ownerOf(k) === b.ownerOf(k))).toBe(true);
    expect(new HashRing([]).ownerOf("x")).toBeUndefined();
  });

  it("is balanced within ±35 % of 1/k for 2 to 5 shards", () => {
    for (let k = 2; k <= 5; k++) {
      const ring = new HashRing(Array.from({ length: k }, (_, i) => `replica-${i}-3f9a2c`));
      const counts = share(ring);
      expect(counts.size).toBe(k);
      for (const n of counts.values()) {
        expect(n).toBeGreaterThan((keys.length / k) * 0.65);
        expect(n).toBeLessThan((keys.length / k) * 1.35);
      }
    }
  });

  it("moves only the joining shard's share on join, and only the leaving shard's on leave", () => {
    const three = new HashRing(["r-a", "r-b", "r-c"]);
    const four = new HashRing(["r-a", "r-b", "r-c", "r-d"]);
    const moved = keys.filter((k) => three.ownerOf(k) !== four.ownerOf(k));
    expect(moved.every((k) => four.ownerOf(k) === "r-d")).toBe(true);
    expect(moved.length).toBeLessThan(keys.length * 0.35);
    const two = new HashRing(["r-a", "r-c"]);
    const left = keys.filter((k) => three.ownerOf(k) !== two.ownerOf(k));
    expect(left.every((k) => three.ownerOf(k) === "r-b")).toBe(true);
  });
});

let h: Harness | undefined;
let link: PartitionableLink | undefined;
afterEach(async () => {
  for (const l of h?.logs ?? []) if (/"level":"(error|warn)"/.test(l)) console.log(l.slice(0, 400));
  await link?.close();
  await h?.stop();
  h = link = undefined;
});

// Generous for a loaded machine (a starved event loop must not lose a lease); the partition test waits one lease duration.
const timings = { leaseDurationSeconds: 4, renewDeadlineSeconds: 3, retryPeriodSeconds: 0.25 };

interface Replica {
  name: string;
  manager: Manager;
  running: Promise<void>;
  ended: () => boolean;
}

/**
 * A sharded replica: ConfigMaps key-* are its primary kind, each owning a Secret it creates. Every
 * reconcile takes a few steps and asks to run again soon, so a replica is always reconciling.
 */
async function replica(
  h: Harness,
  name: string,
  recorder: OverlapRecorder,
  options: ManagerOptions = {},
): Promise<Replica> {
  const manager = await h.startManager({
    leaderElection: { id: `${RING}.example.com`, namespace: "default", identity: name, ...timings },
    sharding: { ring: RING },
    ...options,
  });
  await manager
    .controller(CONFIGMAP)
    .owns(SECRET)
    .complete(async (req, ctx: ReconcileContext) => {
      if (!req.name.startsWith("key-")) return;
      const end = recorder.begin(name, req.name);
      try {
        const owner = await ctx.client.get(CONFIGMAP, req);
        if (!owner) return;
        const child = await ctx.client.get(SECRET, req);
        if (!child)
          await ctx.client
            .create({
              ...SECRET,
              metadata: {
                name: req.name,
                namespace: req.namespace,
                ownerReferences: [
                  {
                    apiVersion: "v1",
                    kind: "ConfigMap",
                    name: req.name,
                    uid: owner.metadata!.uid!,
                    controller: true,
                  },
                ],
              },
            })
            .catch(() => undefined); // exists but not yet in this shard's cache: the next round sees it
        for (let step = 0; step < 3; step++) {
          await sleep(15);
          ctx.signal.throwIfAborted();
        }
        return { requeueAfter: 30 };
      } finally {
        end();
      }
    });
  let ended = false;
  const running = manager.start();
  running.then(
    () => (ended = true),
    () => (ended = true),
  );
  return { name, manager, running, ended: () => ended };
}

async function createKeys(h: Harness, n: number) {
  for (let i = 0; i < n; i++)
    await h.client.create({ ...CONFIGMAP, metadata: { name: `key-${i}`, namespace: "default" } });
}

type Labelled = {
  metadata?: { name?: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
};

/** Every key-* ConfigMap (and its Secret) labelled as the ring of `shards` says, none draining. */
async function converged(h: Harness, shards: string[], n: number): Promise<boolean> {
  const ring = new HashRing(shards);
  const maps = ((await h.client.list(CONFIGMAP, { namespace: "default" })) as Labelled[]).filter((o) =>
    o.metadata?.name?.startsWith("key-"),
  );
  const secrets = (await h.client.list(SECRET, { namespace: "default" })) as Labelled[];
  const shardOf = new Map(secrets.map((s) => [s.metadata?.name, s.metadata?.labels?.[SHARD]]));
  return (
    maps.length === n &&
    maps.every((o) => {
      const want = ring.ownerOf(`default/${o.metadata!.name}`);
      return (
        o.metadata?.labels?.[SHARD] === want &&
        o.metadata?.labels?.[DRAIN] === undefined &&
        shardOf.get(o.metadata!.name) === want
      );
    })
  );
}

/** The names of key-* objects a replica's cache holds. */
async function cached(r: Replica, kind: typeof CONFIGMAP | typeof SECRET): Promise<string[]> {
  const informer = await r.manager.informerFor(kind);
  return informer
    .list()
    .map((o) => o.metadata?.name ?? "")
    .filter((n) => n.startsWith("key-"))
    .sort();
}

/** Each replica caches exactly its share (primary and owned kinds) and has reconciled every key of it since `since`. */
async function eachHoldsItsShare(replicas: Replica[], recorder: OverlapRecorder, n: number, since: number) {
  const ring = new HashRing(replicas.map((r) => r.name));
  for (const r of replicas) {
    const share = Array.from({ length: n }, (_, i) => `key-${i}`)
      .filter((k) => ring.ownerOf(`default/${k}`) === r.name)
      .sort();
    if (share.length === 0) return false;
    if ((await cached(r, CONFIGMAP)).join() !== share.join()) return false;
    if ((await cached(r, SECRET)).join() !== share.join()) return false;
    const done = new Set(
      recorder
        .of(r.name)
        .filter((i) => i.start >= since)
        .map((i) => i.key),
    );
    if (!share.every((k) => done.has(k))) return false;
  }
  return true;
}

describe("the default shard identity", () => {
  it("keeps the end of a long pod name, where the pods of one ReplicaSet differ, and fits a label", () => {
    // A scaffolded operator's pods: 54 characters, the same up to their last five.
    const pods = ["b8nzq", "bq2xz", "b7k4m"].map(
      (s) => `memcached-operator-controller-manager-7d9f8b6c5d-${s}`,
    );
    const ids = pods.map((p) => defaultShardIdentity(p, "0123456789abcdef"));
    for (const [i, id] of ids.entries()) {
      expect(() => validateShardIdentity(id)).not.toThrow();
      expect(id.length).toBeLessThanOrEqual(63);
      expect(id).toMatch(new RegExp(`^memcached-operator-.*-7d9f8b6c5d-${pods[i]!.slice(-5)}-01234567$`));
    }
    expect(new Set(ids.map((id) => id.slice(0, -9))).size).toBe(3);
    expect(defaultShardIdentity("Short_Host", "0123456789")).toBe("short-host-01234567");
    expect(defaultShardIdentity("--", "0123456789")).toBe("replica-01234567");
  });
});

describe("sharded replicas", () => {
  it("assign every object to one shard, take a joining replica's share through drain and acknowledgement, and never overlap", async () => {
    h = await harness();
    const recorder = new OverlapRecorder();
    const n = 24;
    const a = await replica(h, "replica-a", recorder);
    const b = await replica(h, "replica-b", recorder);
    await createKeys(h, n);
    await waitFor("a and b share the keys", () => converged(h!, ["replica-a", "replica-b"], n), 15_000);
    let since = performance.now();
    await waitFor("each of a, b caches and reconciles its share", () =>
      eachHoldsItsShare([a, b], recorder, n, since),
    );

    const c = await replica(h, "replica-c", recorder);
    await waitFor(
      "c's share moved to it",
      () => converged(h!, ["replica-a", "replica-b", "replica-c"], n),
      15_000,
    );
    since = performance.now();
    await waitFor("each of a, b, c caches and reconciles its share", () =>
      eachHoldsItsShare([a, b, c], recorder, n, since),
    );
    expect(recorder.overlaps()).toEqual([]);
    // The handover was used: objects drained from a or b and were reconciled by c afterwards.
    expect(h.logs.some((l) => l.includes('"handed over"'))).toBe(true);
    expect(a.ended() || b.ended() || c.ended()).toBe(false);
  }, 40_000);

  it("moves a partitioned replica's share only after its shard Lease expired, with no overlap", async () => {
    h = await harness({ tls: false });
    link = await partitionableLink(h.cluster.url);
    const recorder = new OverlapRecorder();
    const n = 18;
    const a = await replica(h, "replica-a", recorder);
    const b = await replica(h, "replica-b", recorder);
    const c = await replica(h, "replica-c", recorder, {
      kubeconfig: undefined,
      kubeconfigText: kubeconfigFor(link.url, h.cluster.token),
    });
    await createKeys(h, n);
    await waitFor(
      "a, b, c share the keys",
      () => converged(h!, ["replica-a", "replica-b", "replica-c"], n),
      15_000,
    );
    const before = performance.now();
    await waitFor("c reconciles its share", () => eachHoldsItsShare([a, b, c], recorder, n, before));

    link.partition();
    await waitFor("c stops (its shard lease could not be renewed)", () => c.ended(), 10_000);
    await expect(c.running).rejects.toThrow(/renew/);
    await waitFor("c's share moved to a and b", () => converged(h!, ["replica-a", "replica-b"], n), 15_000);
    const since = performance.now();
    await waitFor("a and b cache and reconcile every key", () =>
      eachHoldsItsShare([a, b], recorder, n, since),
    );
    expect(recorder.overlaps()).toEqual([]);
  }, 40_000);
});
