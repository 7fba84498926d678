// The full workqueue metric set with controller-runtime v0.25's names, labels and buckets
// (pkg/internal/metrics/workqueue.go), kept as client-go's FIFO queue and controller-runtime's
// priority queue keep them: depth (per priority on the priority queue), adds, retries, queue and
// work durations, unfinished work and the longest running processor; and the reconcile counters
// (panics among them) a controller reports. Values are read from the rendered exposition text,
// what Prometheus scrapes.
import { describe, expect, it } from "vitest";
import { Controller, type ControllerHost } from "../../src/runtime/controller/controller.js";
import { LOW_PRIORITY, PriorityQueue } from "../../src/runtime/controller/priority-queue.js";
import { WorkQueue } from "../../src/runtime/controller/queue.js";
import { ControllerQueueMetrics } from "../../src/runtime/controller/queue-metrics.js";
import type { RateLimiter } from "../../src/runtime/controller/ratelimit.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry, runtimeMetrics } from "../../src/runtime/metrics/metrics.js";

const noDelay: RateLimiter = { when: () => 0, forget: () => {}, retries: () => 0 };

/** The value of one sample line (`series` exactly as rendered, labels sorted), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function setup(priorities: boolean) {
  const registry = new MetricsRegistry();
  const clock = { ms: 0 };
  const qm = new ControllerQueueMetrics(runtimeMetrics(registry), "ctl", { priorities, now: () => clock.ms });
  const at = (ms: number) => {
    clock.ms = ms;
  };
  const read = (series: string) => sample(registry.render(), series);
  return { registry, qm, at, read };
}

const L = 'controller="ctl",name="ctl"';

describe("workqueue metrics of the FIFO queue (client-go's)", () => {
  it("exports every series at zero from the start, with controller-runtime's names, labels and buckets", () => {
    const { registry } = setup(false);
    const text = registry.render();
    expect(sample(text, `workqueue_depth{${L},priority=""}`)).toBe(0);
    expect(sample(text, `workqueue_adds_total{${L}}`)).toBe(0);
    expect(sample(text, `workqueue_retries_total{${L}}`)).toBe(0);
    expect(sample(text, `workqueue_unfinished_work_seconds{${L}}`)).toBe(0);
    expect(sample(text, `workqueue_longest_running_processor_seconds{${L}}`)).toBe(0);
    for (const h of ["workqueue_queue_duration_seconds", "workqueue_work_duration_seconds"]) {
      expect(text).toContain(`# TYPE ${h} histogram`);
      expect(sample(text, `${h}_count{${L}}`)).toBe(0);
      // prometheus.ExponentialBuckets(10e-9, 10, 12)
      const bounds = text
        .split("\n")
        .filter((l) => l.startsWith(`${h}_bucket{`))
        .map((l) => /le="([^"]+)"/.exec(l)?.[1]);
      expect(bounds).toEqual([
        "1e-8",
        "1e-7",
        "0.000001",
        "0.00001",
        "0.0001",
        "0.001",
        "0.01",
        "0.1",
        "1",
        "10",
        "100",
        "1000",
        "+Inf",
      ]);
    }
    expect(text).toContain("# TYPE workqueue_unfinished_work_seconds gauge");
    expect(text).toContain("# TYPE workqueue_longest_running_processor_seconds gauge");
  });

  it("times a key from add to hand-out and from hand-out to done; work in progress is read at each scrape", async () => {
    const { qm, at, read } = setup(false);
    const q = new WorkQueue(noDelay, qm);
    at(0);
    q.add("a");
    q.add("b");
    q.add("a"); // waiting already: no add
    expect(read(`workqueue_adds_total{${L}}`)).toBe(2);
    expect(read(`workqueue_depth{${L},priority=""}`)).toBe(2);

    at(2000);
    expect(await q.get()).toBe("a"); // waited 2 s
    expect(read(`workqueue_depth{${L},priority=""}`)).toBe(1);
    at(3000);
    q.add("a"); // while processed: waits (client-go counts it in depth) until done()
    expect(read(`workqueue_adds_total{${L}}`)).toBe(3);
    expect(read(`workqueue_depth{${L},priority=""}`)).toBe(2);
    at(5000);
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(3);
    expect(read(`workqueue_longest_running_processor_seconds{${L}}`)).toBe(3);
    expect(await q.get()).toBe("b"); // waited 5 s
    at(6000);
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(4 + 1);
    expect(read(`workqueue_longest_running_processor_seconds{${L}}`)).toBe(4);
    q.done("a"); // worked 4 s; "a" is queued again
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(1);
    at(7000);
    expect(await q.get()).toBe("a"); // re-added at 3 s: waited 4 s
    q.done("b"); // worked 2 s
    q.done("a"); // worked 0 s
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(0);
    expect(read(`workqueue_longest_running_processor_seconds{${L}}`)).toBe(0);
    expect(read(`workqueue_depth{${L},priority=""}`)).toBe(0);

    expect(read(`workqueue_queue_duration_seconds_count{${L}}`)).toBe(3);
    expect(read(`workqueue_queue_duration_seconds_sum{${L}}`)).toBe(2 + 5 + 4);
    expect(read(`workqueue_queue_duration_seconds_bucket{${L},le="1"}`)).toBe(0);
    expect(read(`workqueue_queue_duration_seconds_bucket{${L},le="10"}`)).toBe(3);
    expect(read(`workqueue_work_duration_seconds_count{${L}}`)).toBe(3);
    expect(read(`workqueue_work_duration_seconds_sum{${L}}`)).toBe(4 + 2 + 0);
    expect(read(`workqueue_work_duration_seconds_bucket{${L},le="1e-8"}`)).toBe(1);

    q.addAfter("c", 60_000);
    q.addRateLimited("d");
    expect(read(`workqueue_retries_total{${L}}`)).toBe(1); // a zero delay is a plain add
    expect(read(`workqueue_adds_total{${L}}`)).toBe(4);
    q.add("e");
    await q.shutdown(0);
    expect(read(`workqueue_depth{${L},priority=""}`)).toBe(0);
  });
});

describe("workqueue metrics of the priority queue (controller-runtime's)", () => {
  it("keeps depth per priority: a raised key moves, a delayed key counts once it is ready", async () => {
    const { qm, at, read } = setup(true);
    const q = new PriorityQueue(noDelay, qm);
    const depth = (p: number | string) => read(`workqueue_depth{${L},priority="${p}"}`);
    expect(depth(0)).toBe(0);
    at(0);
    q.add("a", LOW_PRIORITY);
    q.add("b");
    expect([depth(LOW_PRIORITY), depth(0)]).toEqual([1, 1]);
    q.add("a", 0); // raised: moves to priority 0
    expect([depth(LOW_PRIORITY), depth(0)]).toEqual([0, 2]);
    expect(read(`workqueue_adds_total{${L}}`)).toBe(2);

    q.addAfter("c", 5, 10); // delayed: a retry, not yet in any depth
    expect(read(`workqueue_retries_total{${L}}`)).toBe(1);
    expect(depth(10)).toBeUndefined();
    at(1000);
    expect(await q.get()).toBe("b");
    expect(depth(0)).toBe(1);
    expect(await q.get()).toBe("a");
    expect(depth(0)).toBe(0);
    expect(await q.get()).toBe("c"); // ready after its delay: counted then as an add at its priority
    expect(depth(10)).toBe(0);
    expect(read(`workqueue_adds_total{${L}}`)).toBe(3);
    expect(read(`workqueue_queue_duration_seconds_count{${L}}`)).toBe(3);
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(0);
    at(1500);
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(1.5);
    expect(read(`workqueue_longest_running_processor_seconds{${L}}`)).toBe(0.5);
    for (const k of ["a", "b", "c"]) q.done(k);
    expect(read(`workqueue_work_duration_seconds_count{${L}}`)).toBe(3);
    expect(read(`workqueue_work_duration_seconds_sum{${L}}`)).toBe(1.5);
  });

  it("labels at most 25 distinct priorities, then exceeded_cardinality_limit (controller-runtime's cap)", () => {
    const { qm, read } = setup(true);
    const q = new PriorityQueue(noDelay, qm);
    for (let p = 1; p <= 30; p++) q.add(`k${p}`, p);
    // priority 0 was labelled at start: 24 more fit, the 25th distinct add on goes to the placeholder.
    expect(read(`workqueue_depth{${L},priority="24"}`)).toBe(1);
    expect(read(`workqueue_depth{${L},priority="25"}`)).toBeUndefined();
    expect(read(`workqueue_depth{${L},priority="exceeded_cardinality_limit"}`)).toBe(6);
  });
});

describe("a controller's metrics after driven work", () => {
  function controllerFor(registry: MetricsRegistry, reconcile: (name: string) => Promise<void>) {
    const client = { withSignal: () => client } as unknown as ControllerHost["client"];
    const host: ControllerHost = {
      informerFor: () => Promise.reject(new Error("not used")),
      client,
      events: {} as ControllerHost["events"],
      logger: new Logger({ level: "error", sink: { write: () => {} } }),
      metrics: runtimeMetrics(registry),
      register: () => {},
    };
    return new Controller("ctl", { reconcile: (req) => reconcile(req.name) }, host, { rateLimiter: noDelay });
  }

  it("reports work in progress while a reconcile runs, durations after, and panics (TypeError) apart from errors", async () => {
    const registry = new MetricsRegistry();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    const c = controllerFor(registry, async (name) => {
      seen.push(name);
      if (name === "slow") await held;
      if (name === "bug" && seen.filter((n) => n === "bug").length === 1)
        (undefined as unknown as { spec: { x: number } }).spec.x += 1; // TypeError: a bug, Go's nil dereference
      if (name === "fails" && seen.filter((n) => n === "fails").length === 1) throw new Error("API said no");
    });
    const read = (series: string) => sample(registry.render(), series);
    c.enqueue({ name: "slow" });
    c.start();
    await until(() => seen.includes("slow"));
    await new Promise((r) => setTimeout(r, 5));
    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBeGreaterThan(0);
    expect(read(`workqueue_longest_running_processor_seconds{${L}}`)).toBeGreaterThan(0);
    expect(read(`workqueue_work_duration_seconds_count{${L}}`)).toBe(0);
    expect(read(`workqueue_queue_duration_seconds_count{${L}}`)).toBe(1);
    release();
    c.enqueue({ name: "bug" });
    c.enqueue({ name: "fails" });
    await until(() => seen.filter((n) => n !== "slow").length === 4); // each failed once, then succeeded
    await c.stop(1000);

    expect(read(`workqueue_unfinished_work_seconds{${L}}`)).toBe(0);
    expect(read(`workqueue_work_duration_seconds_count{${L}}`)).toBe(5);
    expect(read(`workqueue_queue_duration_seconds_count{${L}}`)).toBe(5);
    expect(read(`workqueue_adds_total{${L}}`)).toBe(5);
    expect(read(`controller_runtime_reconcile_panics_total{controller="ctl"}`)).toBe(1);
    expect(read(`controller_runtime_reconcile_errors_total{controller="ctl"}`)).toBe(2);
    expect(read(`controller_runtime_reconcile_total{controller="ctl",result="error"}`)).toBe(2);
    expect(read(`controller_runtime_reconcile_total{controller="ctl",result="success"}`)).toBe(3);
    expect(read(`controller_runtime_terminal_reconcile_errors_total{controller="ctl"}`)).toBe(0);
    expect(read(`controller_runtime_reconcile_timeouts_total{controller="ctl"}`)).toBe(0);
    expect(read(`controller_runtime_max_concurrent_reconciles{controller="ctl"}`)).toBe(1);
    expect(read(`controller_runtime_active_workers{controller="ctl"}`)).toBe(0);
    expect(read(`controller_runtime_reconcile_time_seconds_count{controller="ctl"}`)).toBe(5);
  });
});

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 2));
  }
}
