// Event writes as client-go's recorder makes them (tools/record/events_cache.go defaults): repeats
// patch one Event, an object's events pass a 25-token bucket refilled every 5 minutes, and the 10th
// distinct message for one reason within 10 minutes is combined. The correlator runs on a fake
// clock; the recorder's requests are counted at a tsop/testing server.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { type EventDraft, EventCorrelator } from "../../src/runtime/events/event-correlator.js";
import { EventRecorder } from "../../src/runtime/events/events.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";

const draft = (message: string, name = "web"): EventDraft => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  namespace: "default",
  name,
  uid: `uid-${name}`,
  type: "Normal",
  reason: "Scaled",
  message,
});

function names(): () => string {
  let n = 0;
  return () => `event-${++n}`;
}

describe("EventCorrelator (fake clock)", () => {
  it("creates once, then patches the count; past 25 writes per object it drops until tokens refill", () => {
    let now = 0;
    const c = new EventCorrelator("op\u0000host", () => now);
    const next = names();
    const first = Array.from({ length: 30 }, () => c.correlate(draft("scaled to 3"), next));
    expect(first[0]).toEqual({ action: "create", name: "event-1", message: "scaled to 3", count: 1 });
    expect(first[1]).toEqual({ action: "patch", name: "event-1", message: "scaled to 3", count: 2 });
    expect(first.slice(0, 25).every((r) => r.action !== "skip")).toBe(true);
    expect(first.slice(25).map((r) => r.action)).toEqual(["skip", "skip", "skip", "skip", "skip"]);
    // Another object has its own bucket.
    expect(c.correlate(draft("scaled to 3", "db"), next).action).toBe("create");
    now += 299_999;
    expect(c.correlate(draft("scaled to 3"), next).action).toBe("skip");
    now += 1; // one token after 5 minutes; the count went on while events were dropped
    expect(c.correlate(draft("scaled to 3"), next)).toEqual({
      action: "patch",
      name: "event-1",
      message: "scaled to 3",
      count: 32,
    });
    expect(c.correlate(draft("scaled to 3"), next).action).toBe("skip");
  });

  it("combines the 10th distinct message for one reason within 10 minutes, and counts on that Event", () => {
    let now = 0;
    const c = new EventCorrelator("op\u0000host", () => now);
    const next = names();
    const results = Array.from({ length: 12 }, (_, i) => c.correlate(draft(`scaled to ${i}`), next));
    expect(results.slice(0, 9).map((r) => r.action)).toEqual(Array(9).fill("create"));
    expect(results[9]).toEqual({
      action: "create",
      name: "event-10",
      message: "(combined from similar events): scaled to 9",
      count: 1,
    });
    expect(results[10]).toEqual({
      action: "patch",
      name: "event-10",
      message: "(combined from similar events): scaled to 10",
      count: 2,
    });
    now += 600_001; // the window passed: messages stand alone again
    expect(c.correlate(draft("scaled to 99"), next)).toMatchObject({
      action: "create",
      message: "scaled to 99",
    });
  });
});

let cluster: TestCluster | undefined;
let rest: RestClient | undefined;
afterEach(async () => {
  rest?.close();
  await cluster?.stop();
  cluster = rest = undefined;
});

describe("EventRecorder against the server", () => {
  it("30 identical events about one object: one POST and 24 PATCHes, in order, count 25 on the Event", async () => {
    cluster = await startTestCluster();
    const c = cluster;
    const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
    rest = new RestClient(loaded.server, loaded);
    const client = new Client(rest, new RestMapper(rest));
    const target = await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "noisy", namespace: "default" },
    });
    const recorder = new EventRecorder(
      client,
      "test-operator",
      new Logger({ sink: { write: () => {} } }),
      () => 0,
    );
    const from = c.requests.length;
    for (let i = 0; i < 30; i++) recorder.normal(target, "Synced", "all good"); // no await: fire and forget
    await recorder.flush();
    const writes = c.requests
      .slice(from)
      .filter((r) => r.path.includes("/events"))
      .map((r) => `${r.method} ${r.status}`);
    expect(writes).toEqual(["POST 201", ...Array(24).fill("PATCH 200")]);
    const events = c.list("v1", "Event", "default").filter((e) => e.involvedObject?.name === "noisy");
    expect(events.map((e) => [e.reason, e.count, e.message])).toEqual([["Synced", 25, "all good"]]);
  });
});
