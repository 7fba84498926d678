// Reconcile cancellation on the real kube-apiserver (through the fault proxy, which holds a write
// back): a write that hangs ends at the controller's reconciliationTimeout, counts and logs as a
// timeout, and the object converges once the fault ends; the manager's stop() ends a hanging write
// at once instead of waiting out its graceful-shutdown budget.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { isAborted } from "../../src/runtime/connect/aborted.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const HELD_MS = 30_000; // how long the proxy holds a write back

let cluster: RealTestCluster;
let rest: RestClient;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
});
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

const series = (text: string, name: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name} `))
      ?.split(" ")[1] ?? NaN,
  );

type Line = { level: string; msg: string };

function startManager(logs: Line[]): Promise<Manager> {
  return Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 20_000,
    logger: new Logger({
      format: "json",
      level: "debug",
      sink: { write: (l: string) => logs.push(JSON.parse(l) as Line) },
    }),
  });
}

it("ends a hung write at reconciliationTimeout, counts and logs it, and converges once the fault ends", async () => {
  const logs: Line[] = [];
  const manager = await startManager(logs);
  let attempts = 0;
  await manager
    .controller(CM)
    .named("timeout")
    .withOptions({ reconciliationTimeout: 1000 })
    .complete(async (req, ctx) => {
      if (req.name !== "slow") return;
      attempts++;
      await ctx.client.patch({ kind: CM, key: req }, { data: { attempt: String(attempts) } });
    });
  cluster.faults.latency(HELD_MS, { method: "PATCH", path: "/api/v1/namespaces/default/configmaps/slow" });
  await client.create({ ...CM, metadata: { name: "slow", namespace: "default" } });
  const running = manager.start();
  running.catch(() => {});
  try {
    // While the fault lasts: the write is abandoned at the deadline, counted and logged as a timeout.
    await waitFor(
      "a reconcile timeout",
      () =>
        series(
          manager.metrics.render(),
          'controller_runtime_reconcile_timeouts_total{controller="timeout"}',
        ) >= 1,
      30_000,
    );
    const logged = logs.find((l) => l.level === "error" && l.msg.includes("reconciliationTimeout"));
    expect(logged?.msg).toContain("reconcile of default/slow exceeded the reconciliationTimeout of 1000 ms");

    // Once it ends: a retry writes and the object converges (the held-back first write still sleeps).
    cluster.faults.clear();
    await waitFor(
      "the object to converge",
      async () => {
        const cm = await client.get<{ kind?: string; data?: Record<string, string> }>(CM, {
          namespace: "default",
          name: "slow",
        });
        return (
          cm?.data?.attempt !== undefined && cm.data.attempt !== "1" && cm.data.attempt === String(attempts)
        );
      },
      30_000,
    );
  } finally {
    cluster.faults.clear();
    await manager.stop();
  }
});

it("stop() aborts a write that hangs: the manager stops well within its 20 s budget", async () => {
  const manager = await startManager([]);
  const failures: unknown[] = [];
  let holding = false;
  await manager
    .controller(CM)
    .named("no-timeout")
    .complete(async (req, ctx) => {
      if (req.name !== "hold") return;
      holding = true;
      try {
        await ctx.client.patch({ kind: CM, key: req }, { data: { held: "no" } });
      } catch (err) {
        failures.push(err);
        throw err;
      }
    });
  cluster.faults.latency(HELD_MS, { method: "PATCH", path: "/api/v1/namespaces/default/configmaps/hold" });
  const running = manager.start();
  running.catch(() => {});
  await client.create({ ...CM, metadata: { name: "hold", namespace: "default" } });
  await waitFor("the held write", () => holding, 30_000);
  const before = Date.now();
  await manager.stop();
  await running;
  cluster.faults.clear();
  // Without the abort the write would hold the manager for its whole budget (20 s).
  expect(Date.now() - before).toBeLessThan(15_000);
  expect(failures).toHaveLength(1);
  expect(isAborted(failures[0])).toBe(true);
  expect((failures[0] as Error).message).toContain("controller no-timeout is stopping");
});
