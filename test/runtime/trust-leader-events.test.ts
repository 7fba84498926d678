// The event backlog is bounded (issue 38), as client-go's broadcaster drops past 1000 queued
// events: with the API server slow to take Events, a manager's recorder keeps at most 1000 writes
// waiting, drops the rest, counts them (tsop_events_dropped_total) and warns, rate-limited.
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  h?.cluster.faults.clear();
  await h?.stop();
  h = undefined;
});

describe("event backlog", () => {
  it("drops events past 1000 waiting writes, counts them and warns once per interval", async () => {
    h = await harness();
    const manager = await h.startManager({ gracefulShutdownTimeoutMs: 500 });
    const running = manager.start();
    running.catch(() => {});
    await waitFor("started", () => manager.metricsUrl);
    h.cluster.faults.latency(60_000, { path: "/api/v1/namespaces/default/events*" });
    // The manager records events.k8s.io/v1 Events (found by discovery), core/v1 ones elsewhere: slow both.
    h.cluster.faults.latency(60_000, { path: "/apis/events.k8s.io/v1/namespaces/default/events*" });
    for (let i = 0; i < 1100; i++)
      manager.events.normal(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `cm-${i}`, namespace: "default", uid: `u${i}` },
        },
        "Tested",
        `event ${i}`,
      );
    const metrics = (await httpGet(`${manager.metricsUrl}/metrics`)).body;
    expect(sample(metrics, "tsop_events_dropped_total")).toBe(100);
    const warnings = h.logs.filter((l) => l.includes("event backlog full"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: "warn",
      dropped: 1,
      backlog: 1000,
      object: "default/cm-1000",
    });
  });
});
