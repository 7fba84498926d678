// Leadership is fenced, and start-up and shutdown fail the way controller-runtime's do (issue 38),
// against the in-memory API server: the lease is renewed while the caches wait to sync, a cache that
// cannot sync ends start() after cacheSyncTimeoutMs naming the kind and the 403, lost leadership
// stops the work at once, and shutdown keeps to one budget, renewing the lease until the work
// stopped and releasing it only when no reconcile is still running.
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/runtime/connect/errors.js";
import type { ReconcileContext } from "../../src/runtime/controller/controller.js";
import { Manager, type ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { longestGap, readLease, sampleRenewals, sleep } from "./support/trust-leader.js";
import { waitFor } from "./support/wait.js";

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const election = {
  id: "trust-leader.example.com",
  namespace: "default",
  leaseDurationSeconds: 2,
  renewDeadlineSeconds: 1.5,
  retryPeriodSeconds: 0.2,
};

let h: Harness | undefined;
afterEach(async () => {
  h?.cluster.faults.clear();
  await h?.stop();
  h = undefined;
});

/** A leader-elected manager with a ConfigMap controller running `reconcile`; start() already called. */
async function operator(
  h: Harness,
  reconcile: (name: string, ctx: ReconcileContext) => Promise<void>,
  options: ManagerOptions = {},
) {
  const manager = await h.startManager({ leaderElection: election, ...options });
  await manager.controller(CONFIGMAP).complete(async (req, ctx) => reconcile(req.name, ctx));
  const startedAt = Date.now();
  const running = manager.start();
  running.catch(() => {});
  return { manager, running, startedAt };
}

async function createConfigMap(h: Harness, name: string) {
  await h.client.create({ ...CONFIGMAP, metadata: { name, namespace: "default" } });
}

describe("a cache that cannot sync (RBAC forbids listing a watched kind)", () => {
  it("keeps renewing the lease while it waits, shows why, and ends start() after cacheSyncTimeoutMs naming the kind and the verb", async () => {
    h = await harness();
    h.cluster.forbid({ verb: ["list", "watch"], resource: "configmaps" });
    const { manager, running, startedAt } = await operator(h, async () => {}, { cacheSyncTimeoutMs: 4000 });
    const renewals = sampleRenewals(h.client, election.id, running);
    await waitFor("the lease acquired", () => manager.isLeader());

    // Meanwhile the failure is visible: /readyz detail, a metric, a log line.
    const ready = await waitFor("/readyz naming the 403", async () => {
      const r = await httpGet(`${manager.healthProbeUrl}/readyz`);
      return r.body.includes("forbidden") && r;
    });
    expect(ready.status).toBe(500);
    expect(ready.body).toMatch(
      /caches not synced: configmaps \(last error: configmaps is forbidden: User "tsop-test" cannot list resource "configmaps"/,
    );
    const metrics = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
    expect(
      sample(metrics, 'tsop_informer_list_errors_total{code="403",resource="configmaps"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(h.logs.some((l) => l.includes('"list failed; retrying"') && l.includes("forbidden"))).toBe(true);

    const err = await running.then(
      () => undefined,
      (e: unknown) => e as Error & { hint?: string },
    );
    const elapsed = Date.now() - startedAt;
    expect(err?.name).toBe("CacheSyncTimeoutError");
    expect(err?.message).toMatch(
      /^timed out after 4 s waiting for caches to sync: ConfigMap \(configmaps\): configmaps is forbidden: User "tsop-test" cannot list resource "configmaps"/,
    );
    expect(err?.hint).toMatch(/list and watch on configmaps/);
    expect(elapsed).toBeGreaterThanOrEqual(3900);
    expect(elapsed).toBeLessThan(9000);

    // Renewed all along: never a gap a standby could take the lease in (2 s), up to the end.
    const seen = await renewals;
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(longestGap(seen)).toBeLessThan(election.leaseDurationSeconds * 1000);
    expect(seen.at(-1)! - seen[0]!).toBeGreaterThanOrEqual(2500);
    // No reconcile ran, so the lease is released for a standby to take at once.
    expect((await readLease(h.client, election.id))?.spec?.holderIdentity).toBe("");
  });
});

describe("a cache forbidden for a while", () => {
  it("syncs once the verb is granted: the controllers start, reconcile, and the error is cleared", async () => {
    h = await harness();
    const lift = h.cluster.forbid({ verb: ["list", "watch"], resource: "configmaps" });
    const reconciled: string[] = [];
    const { manager, running } = await operator(h, async (name) => void reconciled.push(name), {
      cacheSyncTimeoutMs: 20_000,
    });
    await createConfigMap(h, "waiting");
    const informer = await manager.informerFor(CONFIGMAP);
    await waitFor("the 403 seen", () => informer.lastError()?.message.includes("forbidden"));
    lift();
    await waitFor("the reconcile once granted", () => reconciled.includes("waiting"), 20_000);
    expect(informer.lastError()).toBeUndefined();
    expect((await httpGet(`${manager.healthProbeUrl}/readyz`)).status).toBe(200);
    await manager.stop();
    await running;
  });
});

describe("leader election options", () => {
  it("refuses a renew deadline that is not below the lease duration, or leaves no room to retry", async () => {
    h = await harness();
    const err = await Manager.create({
      kubeconfig: h.cluster.kubeconfigPath,
      leaderElection: { ...election, leaseDurationSeconds: 10, renewDeadlineSeconds: 10 },
    }).catch((e: unknown) => e as ConfigError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(
      "leader election trust-leader.example.com: renewDeadlineSeconds (10) must be less than leaseDurationSeconds (10)",
    );
    expect((err as ConfigError).hint).toMatch(/must give up before its lease can expire/);
    await expect(
      Manager.create({
        kubeconfig: h.cluster.kubeconfigPath,
        leaderElection: { ...election, renewDeadlineSeconds: 1, retryPeriodSeconds: 1 },
      }),
    ).rejects.toThrow(/renewDeadlineSeconds \(1\) must be greater than retryPeriodSeconds × 1.2/);
  });
});

describe("lost leadership", () => {
  it("stops the work at once (no graceful drain while another replica may lead) and start() rejects", async () => {
    h = await harness();
    let abortedAt = 0;
    const { manager, running } = await operator(
      h,
      async (name, ctx) => {
        if (name !== "slow") return;
        ctx.signal.addEventListener("abort", () => (abortedAt = Date.now()));
        await sleep(6000); // a reconcile that does not watch its signal
      },
      { gracefulShutdownTimeoutMs: 10_000 },
    );
    await waitFor("leading", () => manager.isLeader());
    await createConfigMap(h, "slow");
    await waitFor("the slow reconcile", async () => {
      const m = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
      return sample(m, 'controller_runtime_active_workers{controller="configmap"}') === 1;
    });
    h.cluster.faults.add({ path: /\/leases\//, status: 500, count: Number.POSITIVE_INFINITY });
    const cutAt = Date.now();
    await expect(running).rejects.toThrow(/leader election lost/);
    const rejectedAt = Date.now();
    // Lost within the renew deadline of the last renewal, and stopped then and there: the 6 s
    // reconcile is abandoned (its signal aborted), not waited for.
    expect(rejectedAt - cutAt).toBeLessThan(election.renewDeadlineSeconds * 1000 + 1000);
    expect(abortedAt).toBeGreaterThan(0);
    expect(rejectedAt - abortedAt).toBeLessThan(500);
    expect(manager.isLeader()).toBe(false);
    expect(h.logs.some((l) => l.includes("leader election lost; stopping all work at once"))).toBe(true);
  });
});

describe("shutdown", () => {
  it("keeps one budget, renews the lease while it drains, and leaves the lease to expire when a reconcile still runs", async () => {
    h = await harness();
    const { manager } = await operator(
      h,
      async (name) => {
        if (name === "slow") await sleep(8000); // outlives the shutdown budget
      },
      { gracefulShutdownTimeoutMs: 1500 },
    );
    await waitFor("leading", () => manager.isLeader());
    const identity = manager.leaderIdentity;
    await createConfigMap(h, "slow");
    await waitFor("the slow reconcile", async () => {
      const m = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
      return sample(m, 'controller_runtime_active_workers{controller="configmap"}') === 1;
    });
    const stopAt = Date.now();
    const stopping = manager.stop();
    const renewals = sampleRenewals(h.client, election.id, stopping, 50);
    await stopping;
    const tookMs = Date.now() - stopAt;
    // One budget for the queue drain and the workers (not 1.5 s each), plus the rest of shutdown.
    expect(tookMs).toBeGreaterThanOrEqual(1400);
    expect(tookMs).toBeLessThan(2500);
    // Renewed during the drain: the lease never lapsed while the reconcile could still write.
    const seen = (await renewals).filter((t) => t > stopAt);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // Not released: the reconcile still runs, so a standby may only take over once the lease expires.
    const lease = await readLease(h.client, election.id);
    expect(lease?.spec?.holderIdentity).toBe(identity);
    expect(manager.isLeader()).toBe(false);
    expect(h.logs.some((l) => l.includes("leaving the leader lease to expire"))).toBe(true);
  });

  it("releases the lease when every reconcile finished within the budget", async () => {
    h = await harness();
    const { manager } = await operator(h, async (name) => {
      if (name === "quick") await sleep(300);
    });
    await waitFor("leading", () => manager.isLeader());
    await createConfigMap(h, "quick");
    await sleep(100);
    await manager.stop();
    expect((await readLease(h.client, election.id))?.spec?.holderIdentity).toBe("");
  });

  it("bounds the event flush by the shutdown budget", async () => {
    h = await harness();
    const { manager } = await operator(h, async () => {}, {
      gracefulShutdownTimeoutMs: 1000,
      leaderElection: undefined,
    });
    await waitFor("started", () => manager.isLeader());
    h.cluster.faults.latency(20_000, { path: "/api/v1/namespaces/default/events*" });
    // The manager records events.k8s.io/v1 Events (found by discovery), core/v1 ones elsewhere: slow both.
    h.cluster.faults.latency(20_000, { path: "/apis/events.k8s.io/v1/namespaces/default/events*" });
    manager.events.normal(
      { ...CONFIGMAP, metadata: { name: "x", namespace: "default", uid: "u" } },
      "Tested",
      "an event the server is slow to take",
    );
    const stopAt = Date.now();
    await manager.stop();
    expect(Date.now() - stopAt).toBeLessThan(2000);
    expect(h.logs.some((l) => l.includes("unwritten events are dropped"))).toBe(true);
  });
});
