// The Memcached sample operator, run by a real Manager against the in-memory API server.
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import { findCondition } from "../../src/runtime/controllerutil/conditions.js";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { FINALIZER, Memcached, MemcachedReconciler } from "./fixtures/memcached.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" } as const;
const EVENT = { apiVersion: "v1", kind: "Event" } as const;
type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    finalizers?: string[];
    ownerReferences?: Array<Record<string, unknown>>;
  };
  spec?: Record<string, unknown> & { replicas?: number };
  status?: Record<string, unknown>;
  reason?: string;
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function startOperator(h: Harness, options: Parameters<Harness["startManager"]>[0] = {}) {
  const manager = await h.startManager(options);
  const reconciler = new MemcachedReconciler();
  await manager
    .controller(Memcached)
    .owns(DEPLOYMENT)
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(reconciler);
  const running = manager.start();
  running.catch(() => {});
  await waitFor(
    "manager ready",
    async () => manager.healthProbeUrl && (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200,
  );
  return { manager, reconciler, running };
}

const key = { namespace: "default", name: "cache" };

async function createMemcached(h: Harness, size: number) {
  return h.client.create<Obj>({
    apiVersion: "cache.example.com/v1alpha1",
    kind: "Memcached",
    metadata: { name: key.name, namespace: key.namespace },
    spec: { size },
  });
}

async function waitAvailable(h: Harness, size: number, generation: number) {
  return waitFor(`Memcached Available with ${size} replicas at generation ${generation}`, async () => {
    const mc = await h.client.get<Obj>({ apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" }, key);
    const c = mc && findCondition(mc as never, "Available");
    return c?.status === "True" &&
      c.observedGeneration === generation &&
      c.message === `${size}/${size} replicas available`
      ? mc
      : undefined;
  });
}

async function deployments(h: Harness) {
  return h.client.list<Obj>(DEPLOYMENT, { namespace: "default" });
}

async function eventReasons(h: Harness): Promise<string[]> {
  return (await h.client.list<Obj>(EVENT, { namespace: "default" })).map((e) => e.reason as string).sort();
}

async function setSize(h: Harness, size: number) {
  await h.client.patch({ kind: Memcached, key }, { spec: { size } });
}

describe("Memcached operator", () => {
  it("creates an owned Deployment, reports status and conditions, follows spec changes, cleans up through its finalizer", async () => {
    h = await harness({ workloads: true });
    const { manager } = await startOperator(h);
    const created = await createMemcached(h, 2);

    const mc = await waitAvailable(h, 2, 1);
    expect(mc.metadata.finalizers).toEqual([FINALIZER]);
    expect(mc.status?.readyReplicas).toBe(2);
    const [dep] = await deployments(h);
    expect(dep?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        name: "cache",
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(dep?.spec?.replicas).toBe(2);
    expect(findCondition(mc as never, "Available")?.lastTransitionTime).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );

    await setSize(h, 3);
    const scaled = await waitAvailable(h, 3, 2);
    const deps = await deployments(h);
    expect(deps).toHaveLength(1);
    expect(deps[0]?.spec?.replicas).toBe(3);
    // One spec change → exactly one Deployment update (server defaults are not mistaken for drift).
    expect(deps[0]?.metadata.generation).toBe(2);
    expect(findCondition(scaled as never, "Available")?.reason).toBe("DeploymentAvailable");

    await waitFor("events", async () => (await eventReasons(h as Harness)).includes("DeploymentUpdated"));
    expect(await eventReasons(h)).toEqual(expect.arrayContaining(["DeploymentCreated", "DeploymentUpdated"]));

    const metrics = await httpGet(`${manager.metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(
      sample(metrics.body, 'controller_runtime_reconcile_total{controller="memcached",result="success"}'),
    ).toBeGreaterThan(0);
    expect(metrics.body).toContain('controller_runtime_reconcile_time_seconds_count{controller="memcached"}');
    expect(metrics.body).toContain('workqueue_depth{controller="memcached",name="memcached",priority="0"}');
    expect(sample(metrics.body, 'controller_runtime_max_concurrent_reconciles{controller="memcached"}')).toBe(
      2,
    );
    const host = new URL(h.cluster.url).host;
    const posts = sample(metrics.body, `rest_client_requests_total{code="201",host="${host}",method="POST"}`);
    expect(posts).toBeGreaterThanOrEqual(2);
    expect((await httpGet(`${manager.healthProbeUrl}/healthz`)).status).toBe(200);
    expect((await httpGet(`${manager.healthProbeUrl}/readyz?verbose`)).body).toContain("[+]informers ok");

    await h.client.delete({ kind: Memcached, key });
    await waitFor("Memcached gone", async () => (await h?.client.get(Memcached, key)) === undefined);
    expect(await deployments(h)).toEqual([]);
    await waitFor("DeploymentDeleted event (the finalizer ran)", async () =>
      (await eventReasons(h as Harness)).includes("DeploymentDeleted"),
    );
  });

  it("survives 500s, status conflicts, closed watches and 410 Gone without losing or duplicating work", async () => {
    h = await harness({ workloads: true });
    const { faults } = h.cluster;
    // The Deployment create fails twice, the first status updates conflict twice.
    faults.add({
      method: "POST",
      path: "/apis/apps/v1/namespaces/default/deployments",
      status: 500,
      count: 2,
    });
    faults.add({ method: "PUT", path: /\/memcacheds\/cache\/status$/, status: 409, count: 2 });
    const { manager, reconciler } = await startOperator(h);
    await createMemcached(h, 1);
    await waitAvailable(h, 1, 1);
    expect(faults.pending()).toBe(0);
    expect(await deployments(h)).toHaveLength(1);

    // Watches dropped: the next change still arrives.
    h.cluster.closeWatches();
    await setSize(h, 2);
    await waitAvailable(h, 2, 2);

    // Watch history lost (410 on re-watch) and the relist itself fails once: changes made while
    // disconnected are found by the relist.
    faults.add({ method: "GET", path: /\/memcacheds$/, watch: true, status: 410, count: 1 });
    faults.add({ method: "GET", path: /\/memcacheds$/, watch: false, status: 500, count: 1 });
    h.cluster.closeWatches();
    await setSize(h, 3);
    await waitAvailable(h, 3, 3);

    // The informer relisted (after its retry) and its cache holds the latest generation.
    const informer = await manager.informerFor(Memcached);
    await waitFor("the Memcached cache to catch up", () => informer.get(key)?.metadata?.generation === 3);
    const deps = await deployments(h);
    expect(deps).toHaveLength(1);
    expect(deps[0]?.spec?.replicas).toBe(3);
    expect(deps[0]?.metadata.generation).toBe(3); // created, then exactly one update per spec change
    expect(reconciler.calls.every((r) => r.namespace === "default" && r.name === "cache")).toBe(true);

    const metrics = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
    expect(
      sample(metrics, 'controller_runtime_reconcile_errors_total{controller="memcached"}'),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(metrics, 'tsop_informer_relists_total{resource="memcacheds.cache.example.com"}'),
    ).toBeGreaterThanOrEqual(2);
    expect((await httpGet(`${manager.healthProbeUrl}/healthz`)).status).toBe(200);
  });

  it("handles many objects under faults and watch-history loss with exactly one create each", async () => {
    h = await harness({ workloads: true });
    const { faults } = h.cluster;
    faults.add({
      method: "POST",
      path: "/apis/apps/v1/namespaces/default/deployments",
      status: 500,
      count: 3,
    });
    faults.add({ method: "PUT", path: /\/memcacheds\/[^/]+\/status$/, status: 409, count: 3 });
    faults.add({ method: "PATCH", path: /\/memcacheds\/[^/]+$/, status: 503, count: 2 }); // finalizer writes
    const { manager } = await startOperator(h);
    const names = Array.from({ length: 6 }, (_, i) => `mc-${i}`);
    for (const name of names)
      await h.client.create({
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name, namespace: "default" },
        spec: { size: 1 },
      });
    // Spec changes while the watches are down, then the watch history is lost: the re-watches
    // (held back by latency until then) answer 410 Gone for real, and the relist finds the changes.
    // 3 s, not less: on a loaded machine the patches and the compaction below must land before the
    // held re-watches reach the server, or they resume without a 410 (seen at load average 11).
    // Every finalizer is on (so the finalizer-write faults are spent) before the test's own patches.
    for (const name of names)
      await waitFor(`${name}'s finalizer`, async () => {
        const mc = await h?.client.get<Obj>(
          { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" },
          { namespace: "default", name },
        );
        return mc?.metadata.finalizers?.includes(FINALIZER);
      });
    h.cluster.faults.latency(3000, { watch: true });
    h.cluster.closeWatches();
    for (const name of names)
      await h.client.patch({ kind: Memcached, key: { namespace: "default", name } }, { spec: { size: 2 } });
    h.cluster.compact();
    for (const name of names)
      await waitFor(`${name} available at generation 2`, async () => {
        const mc = await h?.client.get<Obj>(
          { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" },
          { namespace: "default", name },
        );
        const c = mc && findCondition(mc as never, "Available");
        return c?.status === "True" && c.observedGeneration === 2;
      });
    expect(faults.pending()).toBe(0);
    faults.clear();
    const deps = await deployments(h);
    expect(deps.map((d) => d.metadata.name).sort()).toEqual(names);
    expect(deps.every((d) => d.spec?.replicas === 2)).toBe(true);
    const creates = h.cluster.requests.filter(
      (r) =>
        r.method === "POST" &&
        r.path.startsWith("/apis/apps/v1/namespaces/default/deployments") &&
        r.status === 201,
    );
    expect(creates).toHaveLength(names.length);
    const metrics = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
    expect(
      sample(
        metrics,
        'tsop_informer_watch_restarts_total{reason="gone",resource="memcacheds.cache.example.com"}',
      ),
    ).toBeGreaterThanOrEqual(1);
  });

  it("is not ready until its caches have synced", async () => {
    h = await harness({ workloads: true });
    h.cluster.faults.latency(1500, {
      method: "GET",
      path: "/apis/cache.example.com/v1alpha1/memcacheds",
      watch: false,
    });
    const manager: Manager = await h.startManager();
    await manager.controller(Memcached).owns(DEPLOYMENT).complete(new MemcachedReconciler());
    void manager.start().catch(() => {});
    const notReady = await waitFor("a /readyz answer", async () =>
      manager.healthProbeUrl ? httpGet(`${manager.healthProbeUrl}/readyz`) : undefined,
    );
    expect(notReady.status).toBe(500);
    expect(notReady.body).toContain("caches not synced: memcacheds.cache.example.com");
    await waitFor("ready", async () => (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200);
  });
});
