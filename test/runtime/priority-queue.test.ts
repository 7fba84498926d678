// The priority queue (controller-runtime's default queue): order by priority then first-in
// first-out, deduplication that keeps the highest priority, delayed adds, the client-go contract
// (a key is never handed to two workers; an add while it is processed waits until done()), rate
// limited retries, the priority a key was handed out with, and shutdown; and a Controller's use of
// it (the default; Result.priority).
import { describe, expect, it } from "vitest";
import { LOW_PRIORITY, PriorityQueue } from "../../src/runtime/controller/priority-queue.js";
import type { RateLimiter } from "../../src/runtime/controller/ratelimit.js";
import { Controller, type ControllerHost, type Result } from "../../src/runtime/controller/controller.js";
import { WorkQueue } from "../../src/runtime/controller/queue.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry, runtimeMetrics } from "../../src/runtime/metrics/metrics.js";
import { NO_QUEUE_METRICS } from "../../src/runtime/controller/queue-metrics.js";

const noDelay: RateLimiter = { when: () => 0, forget: () => {}, retries: () => 0 };

async function drain(q: PriorityQueue): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const key = (await q.get())!;
    out.push(key);
    q.done(key);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("PriorityQueue", () => {
  it("hands out keys by priority, then in the order they came", async () => {
    const q = new PriorityQueue(noDelay);
    q.add("low-1", LOW_PRIORITY);
    q.add("low-2", LOW_PRIORITY);
    q.add("normal-1");
    q.add("high", 10);
    q.add("low-3", LOW_PRIORITY);
    q.add("normal-2", 0);
    expect(q.len()).toBe(6);
    expect(await drain(q)).toEqual(["high", "normal-1", "normal-2", "low-1", "low-2", "low-3"]);
    expect(q.idle()).toBe(true);
  });

  it("stores a waiting key once, with the highest priority it was added with (raised: last of its new level)", async () => {
    let adds = 0;
    const q = new PriorityQueue(noDelay, { ...NO_QUEUE_METRICS, add: () => adds++ });
    q.add("a", LOW_PRIORITY);
    q.add("b");
    q.add("c", LOW_PRIORITY);
    q.add("a", LOW_PRIORITY); // duplicate: no change
    q.add("c", 0); // raised: after b
    q.add("b", LOW_PRIORITY); // lower: b keeps 0 and its place
    expect(q.len()).toBe(3);
    expect(adds).toBe(3);
    expect(await drain(q)).toEqual(["b", "c", "a"]);
  });

  it("never hands a key to two workers; an add while it is processed waits for done(), once", async () => {
    const q = new PriorityQueue(noDelay);
    q.add("k");
    const first = await q.get();
    expect(first).toBe("k");
    q.add("k");
    q.add("k", 5);
    q.add("other", LOW_PRIORITY);
    // "k" is waiting but processing: the next worker gets "other", not "k".
    expect(await q.get()).toBe("other");
    let second: string | undefined;
    void q.get().then((key) => (second = key));
    await sleep(5);
    expect(second).toBeUndefined();
    q.done("k");
    await sleep(0);
    expect(second).toBe("k");
    expect(q.priorityOf("k")).toBe(5);
    q.done("k");
    q.done("other");
    expect(q.idle()).toBe(true);
  });

  it("delays addAfter keys, keeps the earliest deadline, and an immediate add beats a delay", async () => {
    const q = new PriorityQueue(noDelay);
    q.addAfter("late", 60);
    q.addAfter("late", 500); // later deadline: ignored
    q.addAfter("now", 500);
    q.add("now"); // immediate wins
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("now");
    q.done("now");
    expect(q.idle()).toBe(false);
    const started = Date.now();
    expect(await q.get()).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    q.done("late");
    expect(q.idle()).toBe(true);
  });

  it("a delayed key becomes ready at its priority, ordered by when it became ready", async () => {
    const q = new PriorityQueue(noDelay);
    q.addAfter("delayed", 20, 0);
    q.add("low", LOW_PRIORITY);
    await sleep(60);
    q.add("normal");
    expect(await drain(q)).toEqual(["delayed", "normal", "low"]);
  });

  it("retries through the rate limiter at the priority asked, and remembers the priority a key was handed out with", async () => {
    const whens: string[] = [];
    const rl: RateLimiter = {
      when: (k) => {
        whens.push(k);
        return 10;
      },
      forget: () => {},
      retries: () => whens.length,
    };
    let retries = 0;
    const q = new PriorityQueue(rl, { ...NO_QUEUE_METRICS, retry: () => retries++ });
    q.add("k", LOW_PRIORITY);
    const key = (await q.get())!;
    expect(q.priorityOf(key)).toBe(LOW_PRIORITY);
    q.addRateLimited(key, q.priorityOf(key));
    q.done(key);
    expect(q.priorityOf(key)).toBeUndefined();
    expect(whens).toEqual(["k"]);
    expect(retries).toBe(1);
    expect(await q.get()).toBe("k");
    expect(q.priorityOf("k")).toBe(LOW_PRIORITY);
  });

  it("shutdown releases waiting workers, drops waiting keys and waits for in-flight ones", async () => {
    const q = new PriorityQueue(noDelay);
    q.add("busy");
    const busy = (await q.get())!;
    q.add("waiting");
    q.addAfter("delayed", 10_000);
    const idle = new PriorityQueue(noDelay);
    const released = idle.get();
    await idle.shutdown();
    expect(await released).toBeUndefined();
    let drained = false;
    const done = q.shutdown(5_000).then(() => (drained = true));
    await sleep(5);
    expect(drained).toBe(false);
    expect(q.isShuttingDown()).toBe(true);
    q.add("after-shutdown");
    expect(q.len()).toBe(0);
    q.done(busy);
    await done;
    expect(await q.get()).toBeUndefined();
  });
});

describe("Controller with the priority queue", () => {
  function controllerFor(
    reconcile: (name: string) => Promise<Result | undefined>,
    usePriorityQueue?: boolean,
  ) {
    // The reconciles here make no request: a client whose withSignal (every reconcile's ctx.client) is itself.
    const client = { withSignal: () => client } as unknown as ControllerHost["client"];
    const host: ControllerHost = {
      informerFor: () => Promise.reject(new Error("not used")),
      client,
      events: {} as ControllerHost["events"],
      logger: new Logger({ level: "error", sink: { write: () => {} } }),
      metrics: runtimeMetrics(new MetricsRegistry()),
      register: () => {},
    };
    return new Controller("prio", { reconcile: (req) => reconcile(req.name) }, host, {
      rateLimiter: noDelay,
      ...(usePriorityQueue === undefined ? {} : { usePriorityQueue }),
    });
  }

  async function run(priority: number | undefined, usePriorityQueue?: boolean): Promise<string[]> {
    const order: string[] = [];
    const c = controllerFor(async (name) => {
      order.push(name);
      if (name === "b") await sleep(30); // "a"'s requeue becomes ready meanwhile
      if (name === "a" && order.filter((n) => n === "a").length === 1)
        return { requeueAfter: 1, ...(priority === undefined ? {} : { priority }) };
      return undefined;
    }, usePriorityQueue);
    for (const name of ["a", "b", "c"]) c.enqueue({ namespace: "", name }, LOW_PRIORITY);
    c.start();
    await waitFor(() => order.length === 4);
    await c.stop(1000);
    return order;
  }

  it("is the default; Result.priority sets a requeue's priority, else it keeps the one it was handed out with", async () => {
    expect(controllerFor(async () => undefined).queue).toBeInstanceOf(PriorityQueue);
    expect(controllerFor(async () => undefined, false).queue).toBeInstanceOf(WorkQueue);
    expect(await run(10)).toEqual(["a", "b", "a", "c"]);
    expect(await run(undefined)).toEqual(["a", "b", "c", "a"]);
    expect(await run(10, false)).toEqual(["a", "b", "c", "a"]); // the WorkQueue ignores priorities
  });
});

async function waitFor(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(5);
  }
}
