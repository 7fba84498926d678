// Reads that see their own writes and events of a controller's own writes, on the real
// kube-apiserver v1.34 (issue 40): a read right after a write sees it with no GET while the watch
// is held back; on a cold start each Widget is reconciled once (controller-runtime, and
// ownWriteEvents "none": twice); a second writer racing the operator loses no change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager, type ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { httpGet, sample } from "./support/cluster.js";
import { statusController } from "./support/own-writes.js";
import { installWidgetCrd, type Widget, WIDGET } from "./support/trust-writes.js";
import { waitFor } from "./support/wait.js";

let cluster: RealTestCluster;
let rest: RestClient;
let client: Client;
const managers: Manager[] = [];
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfig: cluster.kubeconfigPath });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  await installWidgetCrd(client);
}, 180_000);
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  rest?.close();
  await cluster?.stop();
});

async function startManager(options: ManagerOptions = {}): Promise<Manager> {
  const manager = await Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    metricsBindAddress: "127.0.0.1:0",
    healthProbeBindAddress: "127.0.0.1:0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "error", sink: { write: () => {} } }),
    ...options,
  });
  managers.push(manager);
  return manager;
}

async function ready(manager: Manager): Promise<Manager> {
  manager.start().catch(() => {});
  await waitFor(
    "manager ready",
    async () => manager.healthProbeUrl && (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200,
    60_000,
  );
  return manager;
}

async function stop(manager: Manager): Promise<void> {
  await manager.stop();
  managers.splice(managers.indexOf(manager), 1);
}

const widget = (namespace: string, name: string, size = 1): Widget => ({
  ...WIDGET,
  metadata: { namespace, name },
  spec: { size },
});

async function namespace(name: string): Promise<string> {
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** Every Widget of the namespace reconciled at its current generation (read from the server). */
async function allObserved(ns: string, count: number): Promise<boolean> {
  const items = await client.list<Widget>(WIDGET, { namespace: ns });
  return items.length === count && items.every((w) => w.status?.observedGeneration === w.metadata.generation);
}

const skipped = async (manager: Manager) =>
  sample(
    (await httpGet(`${manager.metricsUrl}/metrics`)).body,
    'tsop_controller_own_write_events_skipped_total{controller="widget",kind="Widget"}',
  ) ?? 0;

describe("own writes on the real API server", () => {
  it("a read right after a write sees it, with no GET, while the watch is held back", async () => {
    const ns = await namespace("ryow");
    const manager = await ready(await startManager({ cache: { unwatched: "informer" } }));
    await client.create(widget(ns, "w"));
    const key = { namespace: ns, name: "w" };
    const cached = await waitFor("the widget cached", () => manager.client.get<Widget>(WIDGET, key));
    const release = cluster.faults.holdWatchEvents({ path: /widgets/ });
    try {
      const written = await manager.client.patchStatus(cached, { status: { observedGeneration: 9 } });
      const before = cluster.requests.length;
      const read = await manager.client.get<Widget>(WIDGET, key);
      expect(read?.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
      expect(read?.status?.observedGeneration).toBe(9);
      expect(
        cluster.requests.slice(before).filter((r) => r.method === "GET" && !/watch=/.test(r.path)),
      ).toEqual([]);
    } finally {
      release();
    }
    await stop(manager);
  });

  it("a cold start reconciles each Widget once; with ownWriteEvents none, twice", async () => {
    const count = 20;
    for (const [mode, perWidget] of [
      ["status", 1],
      ["none", 2],
    ] as const) {
      const ns = await namespace(`cold-${mode}`);
      for (let i = 0; i < count; i++) await client.create(widget(ns, `w${i}`));
      const manager = await startManager({ namespace: ns, cache: { ownWriteEvents: mode } });
      const { reconciles } = await statusController(manager);
      await ready(manager);
      await waitFor(`${count} Widgets observed (${mode})`, () => allObserved(ns, count), 60_000);
      // Each status write's own event has been handled: skipped, or (mode none) reconciled again.
      await waitFor(`every status event handled (${mode})`, async () =>
        mode === "status"
          ? (await skipped(manager)) === count
          : [...reconciles.values()].every((seen) => seen.length >= 2),
      );
      const counts = [...reconciles.values()].map((seen) => seen.length);
      expect(counts, `reconciles per Widget (${mode})`).toEqual(Array(count).fill(perWidget));
      await stop(manager);
    }
  });

  it("a second writer racing the operator loses no change", async () => {
    const ns = await namespace("race");
    const manager = await startManager({ namespace: ns });
    const { reconciles } = await statusController(manager);
    await ready(manager);
    const names = ["a", "b", "c"];
    for (const name of names) await client.create(widget(ns, name));
    // 30 spec changes per Widget, interleaved with the operator's status writes.
    for (let round = 2; round <= 31; round++)
      await Promise.all(
        names.map((name) =>
          client.patch({ ...WIDGET, metadata: { namespace: ns, name } }, { spec: { size: round } }),
        ),
      );
    await waitFor("every change reconciled", () => allObserved(ns, names.length), 60_000);
    for (const name of names) {
      const w = await client.get<Widget>(WIDGET, { namespace: ns, name });
      expect(w?.metadata.generation).toBe(31);
      expect(reconciles.get(name)).toContain(31);
    }
    expect(await skipped(manager)).toBeGreaterThan(0);
    await stop(manager);
  });
});
