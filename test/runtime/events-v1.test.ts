// events.k8s.io/v1 recording as controller-runtime's recorder since v0.23 (client-go's
// tools/events): the field mapping (regarding, related, reportingController, reportingInstance,
// action, note, type, eventTime), repeats as a series (the second a PATCH of series.count 2, later
// ones counted and written when swept or flushed), the choice by discovery with core/v1 where the
// server does not serve the API or refuses the writes (403), and the option that forces either.
// The series' timing runs on a fake clock; the recorder's requests are counted at a tsop/testing
// server (which serves both APIs from one storage, as the API server does).
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import {
  EventSeriesCache,
  type EventV1,
  SERIES_FINISH_MS,
  microTime,
} from "../../src/runtime/events/event-series.js";
import { makeEventV1 } from "../../src/runtime/events/events-v1.js";
import { EventRecorder, type EventRecorderOptions } from "../../src/runtime/events/events.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";

let cluster: TestCluster | undefined;
let rest: RestClient | undefined;
afterEach(async () => {
  rest?.close();
  await cluster?.stop();
  cluster = rest = undefined;
});

async function setup() {
  cluster = await startTestCluster();
  const c = cluster;
  const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  const client = new Client(rest, new RestMapper(rest));
  const target = await client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "web", namespace: "default" },
  });
  const logs: string[] = [];
  const recorder = (options: EventRecorderOptions) =>
    new EventRecorder(client, "web-operator", new Logger({ sink: { write: (l) => logs.push(l) } }), options);
  const writes = (from: number) =>
    c.requests
      .slice(from)
      .filter((r) => r.path.includes("/events"))
      .map(
        (r) =>
          `${r.method} ${r.path.startsWith("/apis/events.k8s.io/v1") ? "events.k8s.io/v1" : "v1"} ${r.status}`,
      );
  const eventsV1 = () =>
    c.list("events.k8s.io/v1", "Event", "default") as unknown as Array<
      EventV1 & { metadata: { name: string } }
    >;
  return { c, client, target, recorder, writes, eventsV1, logs };
}

describe("EventRecorder with events.k8s.io/v1", () => {
  it("writes client-go's fields; a repeat makes a series (one PATCH), later repeats are counted and written at flush", async () => {
    const { c, client, target, recorder, writes, eventsV1 } = await setup();
    const owner = await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "owner", namespace: "default" },
    });
    let now = Date.parse("2026-01-02T03:04:05.678Z");
    const r = recorder({ api: "auto", now: () => now });
    const from = c.requests.length;
    r.normal(target, "Scaled", "scaled to 3", { action: "Scale", related: owner });
    await r.flush();
    const [made] = eventsV1();
    expect(made).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { namespace: "default" },
      eventTime: "2026-01-02T03:04:05.678000Z",
      reportingController: "web-operator",
      reportingInstance: `web-operator-${hostname()}`,
      action: "Scale",
      reason: "Scaled",
      note: "scaled to 3",
      type: "Normal",
      regarding: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "web",
        namespace: "default",
        uid: (target.metadata as { uid?: string }).uid,
        resourceVersion: (target.metadata as { resourceVersion?: string }).resourceVersion,
      },
      related: { kind: "ConfigMap", name: "owner", uid: (owner.metadata as { uid?: string }).uid },
    });
    expect(made?.series).toBeUndefined();

    now += 1000;
    r.normal(target, "Scaled", "scaled to 4", { action: "Scale", related: owner }); // same key: the note is not part of it
    now += 1000;
    r.normal(target, "Scaled", "scaled to 5", { action: "Scale", related: owner });
    r.normal(target, "Scaled", "scaled to 5", { action: "Scale", related: owner });
    await until(() => eventsV1()[0]?.series !== undefined); // the PATCH of the second; the third only counts
    expect(eventsV1()[0]?.series).toEqual({ count: 2, lastObservedTime: "2026-01-02T03:04:06.678000Z" });
    await r.flush();
    expect(eventsV1()).toHaveLength(1);
    expect(eventsV1()[0]).toMatchObject({
      note: "scaled to 3",
      series: { count: 4, lastObservedTime: "2026-01-02T03:04:07.678000Z" },
    });
    expect(writes(from)).toEqual([
      "GET events.k8s.io/v1 200", // discovery
      "POST events.k8s.io/v1 201",
      "PATCH events.k8s.io/v1 200",
      "PATCH events.k8s.io/v1 200",
    ]);
    // A Warning about the same object is another Event; the action defaults to the reason.
    r.warning(target, "Failed", "oops");
    await r.flush();
    expect(eventsV1().find((e) => e.type === "Warning")).toMatchObject({ action: "Failed", note: "oops" });
    // The core/v1 view of the same storage: what `kubectl get events` shows.
    const core = c.list("v1", "Event", "default").find((e) => e.reason === "Scaled");
    expect(core).toMatchObject({ message: "scaled to 3", reportingComponent: "web-operator" });
  });

  it("creates the Event again when its series is patched after it expired on the server", async () => {
    const { c, client, target, recorder, writes, eventsV1 } = await setup();
    const r = recorder({ api: "events.k8s.io/v1" });
    r.normal(target, "Synced", "ok");
    await r.flush();
    const [first] = eventsV1();
    await client.delete({
      kind: { apiVersion: "events.k8s.io/v1", kind: "Event" },
      key: { namespace: "default", name: first!.metadata.name },
    });
    const from = c.requests.length;
    r.normal(target, "Synced", "ok");
    await r.flush();
    expect(writes(from)).toEqual(["PATCH events.k8s.io/v1 404", "POST events.k8s.io/v1 201"]);
    expect(eventsV1()[0]?.series?.count).toBe(2);
  });

  it("chooses core/v1 where discovery does not find events.k8s.io/v1, and when forced", async () => {
    const { c, target, recorder, writes } = await setup();
    c.faults.add({ method: "GET", path: /^\/apis\/events\.k8s\.io\/v1$/, status: 404, count: Infinity });
    let from = c.requests.length;
    const auto = recorder({ api: "auto" });
    auto.normal(target, "Synced", "ok");
    await auto.flush();
    expect(writes(from)).toEqual(["GET events.k8s.io/v1 404", "GET events.k8s.io/v1 404", "POST v1 201"]);
    from = c.requests.length;
    const forced = recorder({ api: "v1" });
    forced.normal(target, "Other", "ok");
    await forced.flush();
    expect(writes(from)).toEqual(["POST v1 201"]);
    const core = c.list("v1", "Event", "default").find((e) => e.reason === "Other");
    expect(core).toMatchObject({ count: 1, source: { component: "web-operator" } });
  });

  it("falls back to core/v1 for good when the server refuses events.k8s.io/v1 writes (403: RBAC for core events only)", async () => {
    const { c, target, recorder, writes, logs } = await setup();
    c.faults.add({ method: "POST", path: /^\/apis\/events\.k8s\.io\//, status: 403, count: Infinity });
    const r = recorder({ api: "auto" });
    const from = c.requests.length;
    r.normal(target, "Synced", "ok");
    r.normal(target, "Deleted", "gone");
    await r.flush();
    expect(writes(from)).toEqual([
      "GET events.k8s.io/v1 200",
      "POST events.k8s.io/v1 403",
      "POST v1 201",
      "POST v1 201",
    ]);
    expect(logs.filter((l) => l.includes("refused an events.k8s.io/v1 Event"))).toHaveLength(1);
    expect(logs.join("\n")).toContain("Grant create and patch on events in the events.k8s.io group");
  });

  it("keeps the notes within the API's 1024 bytes and puts events about cluster-scoped objects in default", () => {
    const node: KubeObjectLike = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", uid: "u" } };
    const event = makeEventV1({
      name: "n1.1",
      regarding: node,
      type: "Warning",
      reason: "Pressure",
      action: "Check",
      note: "é".repeat(1000),
      reportingController: "c",
      reportingInstance: "c-host",
      now: 0,
    });
    expect(event.metadata.namespace).toBe("default");
    expect(Buffer.byteLength(event.note)).toBeLessThanOrEqual(1024);
    expect(event.note.endsWith("...")).toBe(true);
  });
});

describe("EventSeriesCache (client-go's series bookkeeping)", () => {
  const base = (): EventV1 =>
    makeEventV1({
      name: "web.1",
      regarding: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "web", namespace: "default", uid: "u" },
      },
      type: "Normal",
      reason: "Synced",
      action: "Sync",
      note: "ok",
      reportingController: "c",
      reportingInstance: "c-host",
      now: 0,
    });

  it("writes a finished series' final count 6 minutes after its last observation, and refreshes live ones every 30 minutes", () => {
    const cache = new EventSeriesCache();
    expect(cache.observe(base(), 0)?.action).toBe("create");
    expect(cache.observe(base(), 1000)?.action).toBe("patch");
    expect(cache.observe(base(), 2000)).toBeUndefined();
    expect(cache.unwritten().map((e) => e.series)).toEqual([{ count: 3, lastObservedTime: microTime(2000) }]);
    expect(cache.unwritten()).toEqual([]); // written now
    expect(cache.sweep(2000 + SERIES_FINISH_MS, false)).toEqual([]); // not yet 6 minutes
    expect(cache.sweep(2000 + SERIES_FINISH_MS - 1, true).map((e) => e.series?.count)).toEqual([3]); // refresh
    expect(cache.sweep(2001 + SERIES_FINISH_MS, false).map((e) => e.series?.count)).toEqual([3]); // final
    expect(cache.observe(base(), 3000 + SERIES_FINISH_MS)?.action).toBe("create"); // forgotten: a new Event
  });

  it("forgets a single Event 6 minutes after it was made, and keys by regarding object, not note", () => {
    const cache = new EventSeriesCache();
    cache.observe(base(), 0);
    const other = base();
    other.regarding = { ...other.regarding, name: "api" };
    expect(cache.observe(other, 10)?.action).toBe("create");
    expect(cache.observe({ ...base(), note: "different" }, 20)?.action).toBe("patch");
    expect(cache.sweep(11 + SERIES_FINISH_MS, false)).toEqual([]); // "api" forgotten, no write
    expect(cache.observe(other, 12 + SERIES_FINISH_MS)?.action).toBe("create");
  });
});

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 2));
  }
}
