// Issue 39's manager items on the real kube-apiserver: two replicas, a leader-only runnable runs on
// the one that holds the Lease (and on the standby once the leader stops), an every-replica runnable
// on both; the probe sub-paths and process metrics are served. (events.k8s.io/v1: not done yet.)
import { afterAll, beforeAll, expect, it } from "vitest";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const election = {
  id: "manager-extras-real.example.com",
  namespace: "default",
  leaseDurationSeconds: 4,
  renewDeadlineSeconds: 3,
  retryPeriodSeconds: 0.5,
};

let real: RealTestCluster;
const managers: Manager[] = [];
beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real" });
}, 180_000);
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  await real?.stop();
});

it("a leader-only runnable runs on the leader only, then on the standby that takes over", async () => {
  const replicas: Array<{ m: Manager; leaderRuns: number; everyRuns: number }> = [];
  for (let i = 0; i < 2; i++) {
    const m = await Manager.create({
      kubeconfigText: real.kubeconfig,
      metricsBindAddress: "127.0.0.1:0",
      healthProbeBindAddress: "127.0.0.1:0",
      handleSignals: false,
      gracefulShutdownTimeoutMs: 5000,
      leaderElection: election,
      logger: new Logger({ format: "json", level: "error", sink: { write: () => {} } }),
    });
    managers.push(m);
    const r = { m, leaderRuns: 0, everyRuns: 0 };
    m.add({
      async start(signal) {
        r.leaderRuns++;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      },
    });
    m.add({
      needLeaderElection: false,
      async start(signal) {
        r.everyRuns++;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      },
    });
    m.start().catch(() => {});
    replicas.push(r);
  }
  await Promise.race(replicas.map((r) => r.m.elected()));
  await waitFor("both every-replica runnables", () => replicas.every((r) => r.everyRuns === 1), 30_000);
  const lead = replicas.find((r) => r.m.isLeader())!;
  const standby = replicas.find((r) => r !== lead)!;
  await waitFor("the leader's runnable", () => lead.leaderRuns === 1, 30_000);
  expect(standby.leaderRuns).toBe(0);

  const probes = standby.m.healthProbeUrl!;
  expect((await httpGet(`${probes}/readyz/informers`)).status).toBe(200);
  expect((await httpGet(`${probes}/readyz/nope`)).status).toBe(404);
  const metrics = (await httpGet(`${standby.m.metricsUrl}/metrics`)).body;
  expect(sample(metrics, "process_resident_memory_bytes")).toBeGreaterThan(0);

  await lead.m.stop();
  await waitFor("the standby's leader-only runnable", () => standby.leaderRuns === 1, 30_000);
}, 120_000);
