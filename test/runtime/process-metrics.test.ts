// process_* and nodejs_* metrics: registered by the manager by default, read at scrape time.
import { afterAll, beforeAll, expect, it } from "vitest";
import { MetricsRegistry } from "../../src/runtime/metrics/metrics.js";
import { registerProcessMetrics } from "../../src/runtime/metrics/process.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

it("reads the process and Node.js runtime at each render", async () => {
  const registry = new MetricsRegistry();
  const stop = registerProcessMetrics(registry);
  try {
    const first = registry.render();
    const cpu = sample(first, "process_cpu_seconds_total")!;
    expect(cpu).toBeGreaterThan(0);
    expect(sample(first, "process_resident_memory_bytes")).toBeGreaterThan(1e6);
    expect(sample(first, "process_start_time_seconds")).toBeCloseTo(Date.now() / 1000 - process.uptime(), -1);
    expect(sample(first, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(sample(first, 'nodejs_heap_space_size_used_bytes{space="old_space"}')).toBeGreaterThan(0);
    expect(sample(first, `nodejs_version_info{version="${process.version}"}`)).toBe(1);
    expect(first).toMatch(/^nodejs_eventloop_lag_seconds\{quantile="p99"\} /m);
    expect(first).toContain("# TYPE nodejs_gc_duration_seconds histogram");
    if (process.platform === "linux") {
      expect(sample(first, "process_open_fds")).toBeGreaterThan(2);
      expect(sample(first, "process_max_fds")).toBeGreaterThan(100);
      expect(sample(first, "process_virtual_memory_bytes")).toBeGreaterThan(
        sample(first, "process_resident_memory_bytes")!,
      );
    }
    // Busy work and garbage between scrapes show up in the next one.
    const until = Date.now() + 50;
    let junk: number[][] = [];
    while (Date.now() < until) junk.push(new Array(1000).fill(1));
    junk = [];
    (globalThis as { gc?: () => void }).gc?.();
    const second = registry.render();
    expect(sample(second, "process_cpu_seconds_total")).toBeGreaterThan(cpu);
    expect(junk).toEqual([]);
  } finally {
    stop();
  }
});

let h: Harness;
beforeAll(async () => {
  h = await harness();
}, 60_000);
afterAll(async () => h?.stop());

it("the manager serves them on /metrics by default, and not with processMetrics: false", async () => {
  const on = await h.startManager();
  const off = await h.startManager({ processMetrics: false });
  on.start().catch(() => {});
  off.start().catch(() => {});
  const onUrl = await waitFor("metrics", () => on.metricsUrl);
  const offUrl = await waitFor("metrics", () => off.metricsUrl);
  const body = (await httpGet(`${onUrl}/metrics`)).body;
  expect(sample(body, "process_resident_memory_bytes")).toBeGreaterThan(0);
  expect(sample(body, 'nodejs_eventloop_lag_seconds{quantile="max"}')).toBeGreaterThanOrEqual(0);
  expect((await httpGet(`${offUrl}/metrics`)).body).not.toContain("process_cpu_seconds_total");
});
