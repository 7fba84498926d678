// Two replicas never reconcile one key at the same time (issue 38, "Leadership is fenced"): each
// replica's reconciler records start and end per key (support/overlap.ts), and no interval of one
// overlaps an interval of the other. Scenarios: the leader shuts down gracefully while a reconcile
// runs (it must keep its lease until that reconcile ended), and the leader is partitioned from the
// API server (it must stop reconciling before the standby can acquire).
import { afterEach, describe, expect, it } from "vitest";
import type { ReconcileContext } from "../../src/runtime/controller/controller.js";
import type { Manager, ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type Harness, harness } from "./support/cluster.js";
import { OverlapRecorder } from "./support/overlap.js";
import { type PartitionableLink, partitionableLink } from "./support/trust-leader-partition.js";
import { sleep } from "./support/trust-leader.js";
import { kubeconfigFor, waitFor } from "./support/wait.js";

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const election = {
  id: "trust-leader-replicas.example.com",
  namespace: "default",
  leaseDurationSeconds: 2,
  renewDeadlineSeconds: 1.5,
  retryPeriodSeconds: 0.2,
};

let h: Harness | undefined;
let link: PartitionableLink | undefined;
afterEach(async () => {
  await link?.close();
  await h?.stop();
  h = link = undefined;
});

interface Replica {
  name: string;
  manager: Manager;
  running: Promise<void>;
  /** When start() settled (ms, performance.now()), 0 while running. */
  endedAt: () => number;
  /** When elected() resolved (ms, performance.now()), 0 until then. */
  electedAt: () => number;
}

async function replica(
  h: Harness,
  name: string,
  recorder: OverlapRecorder,
  work: (ctx: ReconcileContext) => Promise<{ requeueAfter?: number } | void>,
  options: ManagerOptions = {},
): Promise<Replica> {
  const manager = await h.startManager({ leaderElection: election, ...options });
  await manager.controller(CONFIGMAP).complete(async (req, ctx) => {
    if (!req.name.startsWith("key-")) return;
    const end = recorder.begin(name, req.name);
    try {
      return await work(ctx);
    } finally {
      end();
    }
  });
  let endedAt = 0;
  let electedAt = 0;
  const running = manager.start();
  running.then(
    () => (endedAt = performance.now()),
    () => (endedAt = performance.now()),
  );
  void manager.elected().then(() => (electedAt = performance.now()));
  return { name, manager, running, endedAt: () => endedAt, electedAt: () => electedAt };
}

async function createKeys(h: Harness, n: number) {
  for (let i = 0; i < n; i++)
    await h.client.create({ ...CONFIGMAP, metadata: { name: `key-${i}`, namespace: "default" } });
}

describe("two replicas", () => {
  it("a leader stopping gracefully keeps its lease while a reconcile runs: the standby starts only after it ended", async () => {
    h = await harness();
    const recorder = new OverlapRecorder();
    // A reconcile of 2.5 s that does not watch its signal: longer than the 2 s lease.
    const slow = async () => void (await sleep(2500));
    const a = await replica(h, "a", recorder, slow, { gracefulShutdownTimeoutMs: 6000 });
    await waitFor("a leads", () => a.manager.isLeader());
    const b = await replica(h, "b", recorder, slow, { gracefulShutdownTimeoutMs: 6000 });
    expect(b.electedAt()).toBe(0);
    await createKeys(h, 1);
    await waitFor("a reconciles key-0", () => recorder.of("a").length > 0);
    const stopping = a.manager.stop();
    await waitFor("b takes over and reconciles key-0", () => recorder.of("b").length > 0, 12_000);
    await stopping;
    expect(recorder.overlaps()).toEqual([]);
    // b was elected only after a's reconcile ended (a renewed during its drain, then released).
    const aEnd = Math.max(...recorder.of("a").map((i) => i.end));
    expect(b.electedAt()).toBeGreaterThanOrEqual(aEnd);
  }, 30_000);

  it("a leader partitioned from the API server stops reconciling before the standby acquires the lease", async () => {
    h = await harness({ tls: false });
    link = await partitionableLink(h.cluster.url);
    const recorder = new OverlapRecorder();
    // Short reconciles, requeued at once: a leader is always reconciling something. Each step
    // stands for a request that fails once the reconcile's signal is aborted.
    const busy = async (ctx: ReconcileContext) => {
      for (let step = 0; step < 4; step++) {
        await sleep(50);
        ctx.signal.throwIfAborted();
      }
      return { requeueAfter: 1 };
    };
    const a = await replica(h, "a", recorder, busy, {
      kubeconfig: undefined,
      kubeconfigText: kubeconfigFor(link.url, h.cluster.token),
    });
    await waitFor("a leads", () => a.manager.isLeader());
    const b = await replica(h, "b", recorder, busy);
    await createKeys(h, 3);
    await waitFor("a reconciles every key", () => new Set(recorder.of("a").map((i) => i.key)).size === 3);
    expect(recorder.of("b")).toEqual([]);

    link.partition();
    const partitionedAt = performance.now();
    await expect(a.running).rejects.toThrow(/leader election lost/);
    await waitFor(
      "b acquires and reconciles every key",
      () => new Set(recorder.of("b").map((i) => i.key)).size === 3,
      15_000,
    );

    expect(recorder.overlaps()).toEqual([]);
    const aLast = Math.max(...recorder.of("a").map((i) => i.end));
    const bFirst = Math.min(...recorder.of("b").map((i) => i.start));
    expect(aLast).toBeLessThan(b.electedAt());
    expect(b.electedAt()).toBeLessThanOrEqual(bFirst);
    // a gave up within its renew deadline (plus one attempt), before its lease could expire for b.
    expect(a.endedAt() - partitionedAt).toBeLessThan(election.leaseDurationSeconds * 1000);
    expect(a.endedAt()).toBeLessThan(b.electedAt());
  }, 30_000);
});
