// The opt-in profiling endpoint on the metrics server (ManagerOptions.profiling): a CPU profile and
// a heap snapshot from node:inspector, as Go's pprof; off by default; behind the metrics auth.
import https from "node:https";
import { afterEach, expect, it } from "vitest";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

it("answers a CPU profile and a heap snapshot when enabled", async () => {
  h = await harness();
  const m = await h.startManager({ profiling: true });
  m.start().catch(() => {});
  const url = await waitFor("metrics", () => m.metricsUrl);
  const cpu = await httpGet(`${url}/debug/pprof/profile?seconds=0.2`);
  expect(cpu.status).toBe(200);
  const profile = JSON.parse(cpu.body) as { nodes: unknown[]; startTime: number; endTime: number };
  expect(profile.nodes.length).toBeGreaterThan(0);
  expect(profile.endTime).toBeGreaterThan(profile.startTime);
  const heap = await httpGet(`${url}/debug/pprof/heap`);
  expect(heap.status).toBe(200);
  expect((JSON.parse(heap.body) as { snapshot: { node_count: number } }).snapshot.node_count).toBeGreaterThan(
    0,
  );
  const bad = await httpGet(`${url}/debug/pprof/profile?seconds=forever`);
  expect(bad.status).toBe(400);
  expect(bad.body).toContain("seconds must be a number");
  expect((await httpGet(`${url}/debug/pprof/goroutine`)).status).toBe(404);
}, 60_000);

it("is off by default", async () => {
  h = await harness();
  const m = await h.startManager();
  m.start().catch(() => {});
  const url = await waitFor("metrics", () => m.metricsUrl);
  expect((await httpGet(`${url}/debug/pprof/heap`)).status).toBe(404);
});

it("with metricsSecure, asks the same authentication as /metrics", async () => {
  h = await harness();
  const m = await h.startManager({ profiling: true, metricsSecure: true });
  m.start().catch(() => {});
  const url = await waitFor("metrics", () => m.metricsUrl);
  const status = await new Promise<number>((resolve, reject) =>
    https
      .get(`${url}/debug/pprof/heap`, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on("error", reject),
  );
  expect(status).toBe(401);
});
