// Reads that see their own writes, and events from a controller's own writes not enqueued again
// (issue 40), on the in-memory server: a read right after a write sees it without a live GET even
// while the watch holds the event back; a status write does not reconcile its object a second
// time; another actor's change between the reconcile's read and its write still reconciles.
import { afterEach, describe, expect, it } from "vitest";
import type { Manager, ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { installWidgetCrd, type Widget, WIDGET } from "./support/trust-writes.js";
import { statusController } from "./support/own-writes.js";
import { waitFor } from "./support/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function started(manager: Manager): Promise<Manager> {
  manager.start().catch(() => {});
  await waitFor(
    "manager ready",
    async () => manager.healthProbeUrl && (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200,
  );
  return manager;
}

/** Reads of kinds no controller watches start an informer (instead of reading live). */
const INFORMER_READS: ManagerOptions = { cache: { unwatched: "informer" } };
const KEY = { namespace: "default", name: "w" };
const widget = (size: number): Widget => ({ ...WIDGET, metadata: { ...KEY }, spec: { size } });

/** The status-only operator on a started manager; its reconciles of Widget "w". */
async function statusOperator(options: ManagerOptions, beforeWrite?: (seen: number[]) => Promise<void>) {
  const manager = await h!.startManager(options);
  const { reconciles } = await statusController(manager, beforeWrite);
  await started(manager);
  return { manager, seen: () => reconciles.get("w") ?? [] };
}

async function metricsOf(manager: Manager): Promise<string> {
  return (await httpGet(`${manager.metricsUrl}/metrics`)).body;
}

const SKIPPED = 'tsop_controller_own_write_events_skipped_total{controller="widget",kind="Widget"}';

describe("reads see this manager's own writes", () => {
  it("a read right after a status write sees it while the watch holds its event back, with no GET", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const manager = await started(await h.startManager(INFORMER_READS));
    await manager.client.list(WIDGET, { namespace: "default" }); // starts the Widget informer
    await h.client.create(widget(1));
    const cached = await waitFor("the widget cached", () => manager.client.get<Widget>(WIDGET, KEY));
    const release = h.cluster.faults.holdWatchEvents({ path: /widgets/ });
    try {
      const written = await manager.client.patchStatus(cached, { status: { observedGeneration: 7 } });
      const before = h.cluster.requests.length;
      const read = await manager.client.get<Widget>(WIDGET, KEY);
      expect(read?.status?.observedGeneration).toBe(7);
      expect(read?.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
      const listed = await manager.client.list<Widget>(WIDGET, { namespace: "default" });
      expect(listed.map((w) => w.status?.observedGeneration)).toEqual([7]);
      expect(h.cluster.requests.slice(before).filter((r) => r.method === "GET")).toEqual([]);
    } finally {
      release();
    }
  });

  it("a delete is seen at once; another actor's newer write wins over the overlay", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const manager = await started(await h.startManager(INFORMER_READS));
    await manager.client.list(WIDGET, { namespace: "default" });
    await h.client.create(widget(1));
    const cached = await waitFor("the widget cached", () => manager.client.get<Widget>(WIDGET, KEY));
    await manager.client.patch(cached, { spec: { size: 2 } });
    await h.client.patch(cached, { spec: { size: 3 } });
    await waitFor(
      "the other write seen",
      async () => (await manager.client.get<Widget>(WIDGET, KEY))?.spec?.size === 3,
    );
    const release = h.cluster.faults.holdWatchEvents({ path: /widgets/ });
    try {
      await manager.client.delete(cached);
      expect(await manager.client.get(WIDGET, KEY)).toBeUndefined();
      expect(await manager.client.list(WIDGET, { namespace: "default" })).toEqual([]);
    } finally {
      release();
    }
  });

  it("readYourOwnWrites: false serves the informer's copy (stale while the watch lags)", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const manager = await started(
      await h.startManager({ cache: { unwatched: "informer", readYourOwnWrites: false } }),
    );
    await manager.client.list(WIDGET, { namespace: "default" });
    await h.client.create(widget(1));
    const cached = await waitFor("the widget cached", () => manager.client.get<Widget>(WIDGET, KEY));
    const release = h.cluster.faults.holdWatchEvents({ path: /widgets/ });
    try {
      await manager.client.patchStatus(cached, { status: { observedGeneration: 7 } });
      expect((await manager.client.get<Widget>(WIDGET, KEY))?.status?.observedGeneration).toBeUndefined();
    } finally {
      release();
    }
  });
});

describe("events of a controller's own writes", () => {
  it("its status write does not reconcile the object again (and counts in a metric)", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const { manager, seen } = await statusOperator({});
    await h.client.create(widget(1));
    await waitFor(
      "the status event handled",
      async () => sample(await metricsOf(manager), SKIPPED) === 1 || seen().length > 1,
    );
    expect(seen()).toEqual([1]);
    // The next change by someone else reconciles as always.
    await h.client.patch({ ...WIDGET, metadata: KEY }, { spec: { size: 2 } });
    await waitFor(
      "generation 2 reconciled",
      async () => (await h!.client.get<Widget>(WIDGET, KEY))?.status?.observedGeneration === 2,
    );
    await waitFor(
      "its status event handled",
      async () => sample(await metricsOf(manager), SKIPPED) === 2 || seen().length > 2,
    );
    expect(seen()).toEqual([1, 2]);
  });

  it('ownWriteEvents: "none" reconciles again after each status write, as controller-runtime', async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const { seen } = await statusOperator({ cache: { ownWriteEvents: "none" } });
    await h.client.create(widget(1));
    await waitFor("the second reconcile", () => seen().length >= 2);
    expect(seen()).toEqual([1, 1]);
  });

  it("another actor's change between the reconcile's read and its write still reconciles", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    let raced = false;
    const { seen } = await statusOperator({}, async () => {
      if (raced) return;
      raced = true;
      await h!.client.patch({ ...WIDGET, metadata: KEY }, { spec: { size: 5 } });
    });
    await h.client.create(widget(1));
    const done = await waitFor("generation 2 reconciled", async () => {
      const w = await h!.client.get<Widget>(WIDGET, KEY);
      return w?.status?.observedGeneration === 2 ? w : undefined;
    });
    expect(done.spec?.size).toBe(5);
    expect(seen()).toContain(2);
  });

  it("another actor's change that a relist folds into the same transition as its own write still reconciles", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const faults = h.cluster.faults;
    let folded = false;
    let release = () => {};
    const { seen } = await statusOperator({}, async (generations) => {
      if (folded || generations.at(-1) !== 2) return;
      folded = true;
      // From here the watch shows nothing; the relist after the 410 sees gen 2 → gen 3 + own status at once.
      release = faults.holdWatchEvents({ path: /widgets/ });
      await h!.client.patch({ ...WIDGET, metadata: KEY }, { spec: { size: 3 } });
    });
    await h.client.create(widget(1));
    await waitFor(
      "generation 1 reconciled",
      async () => (await h!.client.get<Widget>(WIDGET, KEY))?.status?.observedGeneration === 1,
    );
    await h.client.patch({ ...WIDGET, metadata: KEY }, { spec: { size: 2 } });
    await waitFor(
      "the own write of generation 2 made",
      async () => (await h!.client.get<Widget>(WIDGET, KEY))?.status?.observedGeneration === 2,
    );
    expect(faults.expireWatches({ path: /widgets/ })).toBe(1);
    release();
    await waitFor(
      "generation 3 reconciled",
      async () => (await h!.client.get<Widget>(WIDGET, KEY))?.status?.observedGeneration === 3,
    );
    expect(seen()).toContain(3);
  });
});
