// Issue 38's second finding, on the real kube-apiserver: an operator whose RBAC forbids listing one
// kind it watches (the most common operator bug) acquires the leader Lease and, while its cache
// waits to sync, keeps renewing it (before: it stopped renewing for as long as the 403 lasted, so a
// standby took the Lease and both reconciled once the cache synced). After cacheSyncTimeoutMs,
// start() fails naming the kind and the forbidden verb, and releases the Lease; meanwhile the
// failure shows in /readyz, a metric and a log line. And two replicas, one partitioned from the
// API server: the partitioned leader stops reconciling before the other acquires the Lease.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import type { ReconcileContext } from "../../src/runtime/controller/controller.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { httpGet, sample } from "./support/cluster.js";
import { OverlapRecorder } from "./support/overlap.js";
import { partitionableLink } from "./support/trust-leader-partition.js";
import { longestGap, readLease, sampleRenewals, sleep } from "./support/trust-leader.js";
import { waitFor } from "./support/wait.js";

const USER = "trust-leader-operator";
const election = {
  id: "trust-leader-real.example.com",
  namespace: "default",
  leaseDurationSeconds: 4,
  renewDeadlineSeconds: 3,
  retryPeriodSeconds: 0.5,
};

let real: RealTestCluster;
let rest: RestClient;
let client: Client;
let manager: Manager | undefined;
const logs: string[] = [];

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
});
const others: Manager[] = [];
afterAll(async () => {
  await manager?.stop();
  await Promise.all(others.map((m) => m.stop()));
  rest?.close();
  await real?.stop();
});

/** The operator's RBAC: everything it needs except `list` on configmaps (it may get and watch them). */
async function grantAllButListConfigMaps() {
  const rbac = "rbac.authorization.k8s.io/v1";
  await client.create({
    apiVersion: rbac,
    kind: "ClusterRole",
    metadata: { name: USER },
    rules: [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "watch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] },
      { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
    ],
  });
  await client.create({
    apiVersion: rbac,
    kind: "ClusterRoleBinding",
    metadata: { name: USER },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: USER },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: USER }],
  });
}

it("renews the Lease while a forbidden cache waits to sync, then fails start() naming the kind and the verb", async () => {
  await grantAllButListConfigMaps();
  manager = await Manager.create({
    kubeconfigText: real.kubeconfigFor(USER),
    metricsBindAddress: "127.0.0.1:0",
    healthProbeBindAddress: "127.0.0.1:0",
    handleSignals: false,
    leaderElection: election,
    cacheSyncTimeoutMs: 10_000,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
  });
  await manager
    .controller({ apiVersion: "v1", kind: "ConfigMap" })
    .watches({ apiVersion: "v1", kind: "Secret" }, () => undefined)
    .complete(async () => {});
  const startedAt = Date.now();
  const running = manager.start();
  running.catch(() => {});
  const renewals = sampleRenewals(client, election.id, running, 200);
  const m = manager;
  await waitFor("the Lease acquired", () => m.isLeader(), 30_000);
  // Renewed while the cache waits: 5 s after acquiring (more than the 4 s lease) it is still fresh.
  await waitFor(
    "the Lease renewed 5 s after it was acquired, while the cache waits to sync",
    async () => {
      const spec = (await readLease(client, election.id))?.spec;
      return Date.parse(spec?.renewTime ?? "") - Date.parse(spec?.acquireTime ?? "") >= 5000;
    },
    8000,
  );

  const forbidden = `configmaps is forbidden: User "${USER}" cannot list resource "configmaps" in API group "" at the cluster scope`;
  const ready = await waitFor("/readyz naming the 403", async () => {
    const r = await httpGet(`${m.healthProbeUrl}/readyz`);
    return r.body.includes("forbidden") && r;
  });
  expect(ready.status).toBe(500);
  expect(ready.body).toContain(`caches not synced: configmaps (last error: ${forbidden})`);
  expect(ready.body).not.toContain("secrets"); // the kind it may list synced
  const metrics = (await httpGet(`${m.metricsUrl}/metrics`)).body;
  expect(
    sample(metrics, 'tsop_informer_list_errors_total{code="403",resource="configmaps"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(
    logs.some(
      (l) => l.includes('"list failed; retrying"') && l.includes(JSON.stringify(forbidden).slice(1, -1)),
    ),
  ).toBe(true);

  const err = await running.then(
    () => undefined,
    (e: unknown) => e as Error & { hint?: string },
  );
  const elapsed = Date.now() - startedAt;
  expect(err?.name).toBe("CacheSyncTimeoutError");
  expect(err?.message).toBe(
    `timed out after 10 s waiting for caches to sync: ConfigMap (configmaps): ${forbidden}`,
  );
  expect(err?.hint).toMatch(/list and watch on configmaps/);
  expect(elapsed).toBeGreaterThanOrEqual(9900);

  // Renewed for the whole wait: never a gap in which a standby could have taken the Lease.
  const seen = await renewals;
  expect(longestGap(seen)).toBeLessThan(election.leaseDurationSeconds * 1000);
  expect(seen.at(-1)! - seen[0]!).toBeGreaterThanOrEqual(8000);
  // Nothing reconciled: the Lease is released for a standby to take at once.
  expect((await readLease(client, election.id))?.spec?.holderIdentity ?? "").toBe("");
  manager = undefined;
});

it("a leader partitioned from the API server stops reconciling before the other replica acquires the Lease", async () => {
  const fence = { ...election, id: "trust-leader-fence.example.com" };
  const link = await partitionableLink(real.url);
  const recorder = new OverlapRecorder();
  const start = async (name: string, kubeconfigText: string) => {
    const m = await Manager.create({
      kubeconfigText,
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
      handleSignals: false,
      leaderElection: fence,
      logger: new Logger({ level: "error", sink: { write: () => {} } }),
    });
    others.push(m);
    await m
      .controller({ apiVersion: "v1", kind: "ConfigMap" })
      .complete(async (req, ctx: ReconcileContext) => {
        if (!req.name.startsWith("fence-")) return;
        const end = recorder.begin(name, req.name);
        try {
          // Each step stands for a request, which fails once the reconcile's signal is aborted.
          for (let step = 0; step < 4; step++) {
            await sleep(50);
            ctx.signal.throwIfAborted();
          }
          return { requeueAfter: 1 };
        } finally {
          end();
        }
      });
    let electedAt = 0;
    let endedAt = 0;
    void m.elected().then(() => (electedAt = performance.now()));
    const running = m.start();
    running.then(
      () => (endedAt = performance.now()),
      () => (endedAt = performance.now()),
    );
    return { m, running, electedAt: () => electedAt, endedAt: () => endedAt };
  };
  try {
    const a = await start("a", real.kubeconfig.replace(real.url, link.url));
    await waitFor("a leads", () => a.m.isLeader(), 30_000);
    const b = await start("b", real.kubeconfig);
    for (const name of ["fence-1", "fence-2"])
      await client.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } });
    await waitFor("a reconciles both", () => new Set(recorder.of("a").map((i) => i.key)).size === 2);

    link.partition();
    const partitionedAt = performance.now();
    await expect(a.running).rejects.toThrow(/leader election lost/);
    await waitFor(
      "b acquires and reconciles both",
      () => new Set(recorder.of("b").map((i) => i.key)).size === 2,
      30_000,
    );

    expect(recorder.overlaps()).toEqual([]);
    expect(a.endedAt() - partitionedAt).toBeLessThan(fence.leaseDurationSeconds * 1000);
    expect(Math.max(...recorder.of("a").map((i) => i.end))).toBeLessThan(b.electedAt());
    expect(a.endedAt()).toBeLessThan(b.electedAt());
    expect((await readLease(client, fence.id))?.spec?.holderIdentity).toBe(b.m.leaderIdentity);
  } finally {
    await link.close();
  }
});
