// Leader election with two managers against one API server: one leads (and is the only one that
// reconciles); when it stops, the other takes over, at once if the lease was released, else once it
// expires. A leader that cannot renew gives up and its start() rejects.
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { Memcached, MemcachedReconciler } from "./fixtures/memcached.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" } as const;
type Lease = KubeObjectLike & { spec?: { holderIdentity?: string; leaseTransitions?: number } };

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const election = {
  id: "memcached-operator.example.com",
  namespace: "default",
  leaseDurationSeconds: 2,
  renewDeadlineSeconds: 1.5,
  retryPeriodSeconds: 0.2,
};

async function candidate(h: Harness, extra: Record<string, unknown> = {}) {
  const manager = await h.startManager({ leaderElection: { ...election, ...extra } });
  const reconciler = new MemcachedReconciler();
  await manager
    .controller(Memcached)
    .owns({ apiVersion: "apps/v1", kind: "Deployment" })
    .complete(reconciler);
  const running = manager.start();
  running.catch(() => {});
  return { manager, reconciler, running };
}

async function holder(h: Harness): Promise<string | undefined> {
  return (await h.client.get<Lease>(LEASE, { namespace: "default", name: election.id }))?.spec
    ?.holderIdentity;
}

async function leaderGauge(m: Manager): Promise<number | undefined> {
  if (!m.metricsUrl) return undefined;
  return sample(
    (await httpGet(`${m.metricsUrl}/metrics`)).body,
    `leader_election_master_status{name="${election.id}"}`,
  );
}

async function createMemcached(h: Harness, name: string) {
  await h.client.create({
    apiVersion: "cache.example.com/v1alpha1",
    kind: "Memcached",
    metadata: { name, namespace: "default" },
    spec: { size: 1 },
  });
}

describe("leader election", () => {
  it("one manager leads and reconciles; the other takes over when it stops (lease released)", async () => {
    h = await harness();
    const a = await candidate(h);
    const b = await candidate(h);
    const [leader, standby] = await waitFor("a leader", () =>
      a.manager.isLeader() ? [a, b] : b.manager.isLeader() ? [b, a] : undefined,
    );
    expect(standby.manager.isLeader()).toBe(false);
    expect(await holder(h)).toBe(leader.manager.leaderIdentity);
    expect(await leaderGauge(leader.manager)).toBe(1);
    expect(await leaderGauge(standby.manager)).toBe(0);
    // The standby keeps its caches synced, so it is ready, but it does not reconcile.
    await waitFor(
      "standby ready",
      async () => (await httpGet(`${standby.manager.healthProbeUrl}/readyz`)).status === 200,
    );

    await createMemcached(h, "one");
    await waitFor("the leader reconciles", () => leader.reconciler.calls.some((r) => r.name === "one"));
    expect(standby.reconciler.calls).toEqual([]);

    await leader.manager.stop();
    expect(await holder(h)).not.toBe(leader.manager.leaderIdentity);
    await waitFor("the standby takes over", () => standby.manager.isLeader(), 5000);
    expect(await holder(h)).toBe(standby.manager.leaderIdentity);
    // The new leader works through what it saw while standing by, and new changes.
    await createMemcached(h, "two");
    await waitFor("the new leader reconciles", () =>
      ["one", "two"].every((n) => standby.reconciler.calls.some((r) => r.name === n)),
    );
    const lease = await h.client.get<Lease>(LEASE, { namespace: "default", name: election.id });
    expect(lease?.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
  });

  it("takes over after the lease expires when the leader did not release it", async () => {
    h = await harness();
    const a = await candidate(h, { releaseOnCancel: false });
    await waitFor("a leads", () => a.manager.isLeader());
    const b = await candidate(h);
    await waitFor(
      "b ready",
      async () =>
        b.manager.healthProbeUrl && (await httpGet(`${b.manager.healthProbeUrl}/readyz`)).status === 200,
    );
    expect(b.manager.isLeader()).toBe(false);
    const stoppedAt = Date.now();
    await a.manager.stop();
    expect(await holder(h)).toBe(a.manager.leaderIdentity); // not released
    await waitFor("b takes over", () => b.manager.isLeader(), 10_000);
    // Not before the 2 s lease ran out (measured from b's last observation of a renewal).
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1000);
  });

  it("a leader that cannot renew its lease stops and start() rejects", async () => {
    h = await harness();
    const a = await candidate(h);
    await waitFor("a leads", () => a.manager.isLeader());
    h.cluster.faults.add({ method: "PUT", path: /\/leases\//, status: 500, count: Number.POSITIVE_INFINITY });
    await expect(a.running).rejects.toThrow(/leader election lost/);
    expect(a.manager.isLeader()).toBe(false);
  });
});

describe("leader election with a hung API server", () => {
  it("gives up leadership within the renew deadline even when renewals hang", async () => {
    h = await harness();
    const a = await candidate(h);
    await waitFor("a leads", () => a.manager.isLeader());
    // Renewals now hang for 20 s; each attempt is cut at the 1.5 s renew deadline.
    h.cluster.faults.latency(20_000, { method: "PUT", path: /\/leases\// });
    const started = Date.now();
    await expect(a.running).rejects.toThrow(/leader election lost/);
    expect(Date.now() - started).toBeLessThan(election.leaseDurationSeconds * 1000 + 1000);
    h.cluster.faults.clear();
  });
});
