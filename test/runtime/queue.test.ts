import { describe, expect, it } from "vitest";
import { WorkQueue } from "../../src/runtime/controller/queue.js";
import {
  BucketRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  backoffDelay,
  defaultRateLimiter,
  type RateLimiter,
} from "../../src/runtime/controller/ratelimit.js";
import { NO_QUEUE_METRICS } from "../../src/runtime/controller/queue-metrics.js";

const noDelay: RateLimiter = { when: () => 0, forget: () => {}, retries: () => 0 };

describe("rate limiters", () => {
  it("backs off exponentially per key, capped, and forgets", () => {
    const rl = new ExponentialBackoffRateLimiter({
      baseDelay: 5,
      maxDelay: 100,
      jitter: 0,
      random: () => 0.5,
    });
    expect([1, 2, 3, 4, 5, 6].map(() => rl.when("a"))).toEqual([5, 10, 20, 40, 80, 100]);
    expect(rl.when("b")).toBe(5);
    expect(rl.retries("a")).toBe(6);
    rl.forget("a");
    expect(rl.retries("a")).toBe(0);
    expect(rl.when("a")).toBe(5);
  });

  it("adds jitter within bounds and never exceeds the cap", () => {
    expect(backoffDelay(3, 10, 1000, 0.5, () => 0)).toBe(80);
    expect(backoffDelay(3, 10, 1000, 0.5, () => 0.999)).toBeCloseTo(80 * 1.4995);
    expect(backoffDelay(200, 10, 1000, 0.5, () => 0.999)).toBe(1000);
    const rl = new ExponentialBackoffRateLimiter({ baseDelay: 10, jitter: 0.2 });
    const d = rl.when("k");
    expect(d).toBeGreaterThanOrEqual(10);
    expect(d).toBeLessThanOrEqual(12);
  });

  it("token bucket delays once the burst is spent", () => {
    let now = 0;
    const bucket = new BucketRateLimiter({ qps: 10, burst: 2, now: () => now });
    expect(bucket.when("x")).toBe(0);
    expect(bucket.when("y")).toBe(0);
    expect(bucket.when("z")).toBeCloseTo(100);
    now += 1000;
    expect(bucket.when("z")).toBe(0);
  });

  it("max-of takes the largest delay", () => {
    const rl = new MaxOfRateLimiter([
      new ExponentialBackoffRateLimiter({ baseDelay: 50, jitter: 0 }),
      { when: () => 7, forget: () => {}, retries: () => 0 },
    ]);
    expect(rl.when("k")).toBe(50);
    expect(rl.retries("k")).toBe(1);
  });
});

// client-go's DefaultTypedControllerRateLimiter (util/workqueue/default_rate_limiters.go, v0.34),
// which controller-runtime v0.22 uses: max of NewTypedItemExponentialFailureRateLimiter(5ms, 1000s)
// (baseDelay × 2^failures, no jitter) and a rate.NewLimiter(10, 100) bucket. Fake clock throughout.
describe("defaultRateLimiter, as client-go's default controller rate limiter", () => {
  it("per key: 5 ms × 2^failures, no jitter, capped at 1000 s; forget starts over", () => {
    let now = 0;
    const rl = defaultRateLimiter({ now: () => now });
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      delays.push(rl.when("a"));
      now += 1000; // the bucket refills: only the per-key backoff counts
    }
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(5 * 2 ** 17); // 655.36 s
    expect(delays.slice(18)).toEqual([1_000_000, 1_000_000]);
    expect(rl.retries("a")).toBe(20);
    rl.forget("a");
    expect(rl.retries("a")).toBe(0);
    expect(rl.when("a")).toBe(5);
  });

  it("overall: a burst of 100 retries passes at once, then 10 per second", () => {
    let now = 0;
    const rl = defaultRateLimiter({ now: () => now });
    const first = Array.from({ length: 100 }, (_, i) => rl.when(`k${i}`));
    expect(new Set(first)).toEqual(new Set([5]));
    expect(rl.when("k100")).toBeCloseTo(100);
    expect(rl.when("k101")).toBeCloseTo(200);
    now += 60_000; // refilled (to the burst, no more)
    const again = Array.from({ length: 100 }, (_, i) => rl.when(`n${i}`));
    expect(new Set(again)).toEqual(new Set([5]));
    expect(rl.when("n100")).toBeCloseTo(100);
  });
});

describe("WorkQueue", () => {
  it("a key added while processed is processed once more after done, counted as one add (client-go)", async () => {
    let adds = 0;
    const q = new WorkQueue(noDelay, { ...NO_QUEUE_METRICS, add: () => adds++ });
    q.add("a");
    expect(await q.get()).toBe("a");
    q.add("a");
    q.add("a");
    expect(q.len()).toBe(0); // not handed out while processed
    q.done("a");
    expect(q.len()).toBe(1);
    expect(await q.get()).toBe("a");
    q.done("a");
    expect(q.idle()).toBe(true);
    expect(adds).toBe(2);
  });

  it("deduplicates waiting keys and hands them out in order", async () => {
    const q = new WorkQueue(noDelay);
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.len()).toBe(0);
  });

  it("never gives a key being processed to a second worker; re-adds it after done", async () => {
    const q = new WorkQueue(noDelay);
    q.add("a");
    const first = await q.get();
    q.add("a"); // changed while processing
    q.add("a");
    let second: string | undefined;
    void q.get().then((k) => {
      second = k;
    });
    await Promise.resolve();
    expect(second).toBeUndefined();
    expect(q.len()).toBe(0);
    q.done(first as string);
    await Promise.resolve();
    expect(second).toBe("a");
  });

  it("wakes a waiting worker on add", async () => {
    const q = new WorkQueue(noDelay);
    const pending = q.get();
    q.add("x");
    expect(await pending).toBe("x");
  });

  it("addAfter keeps the earliest deadline and fires once", async () => {
    const q = new WorkQueue(noDelay);
    q.addAfter("k", 60_000);
    q.addAfter("k", 20);
    q.addAfter("k", 40_000);
    expect(await q.get()).toBe("k");
    q.done("k");
    expect(q.idle()).toBe(true);
    await q.shutdown();
  });

  it("addRateLimited uses the limiter and counts retries", async () => {
    const limiter = new ExponentialBackoffRateLimiter({ baseDelay: 1, jitter: 0 });
    let retries = 0;
    const q = new WorkQueue(limiter, { ...NO_QUEUE_METRICS, retry: () => retries++ });
    q.addRateLimited("k");
    expect(await q.get()).toBe("k");
    expect(q.retries("k")).toBe(1);
    q.forget("k");
    expect(q.retries("k")).toBe(0);
    expect(retries).toBe(1);
  });

  it("reports adds and hand-outs to its metrics", () => {
    const calls: string[] = [];
    const q = new WorkQueue(noDelay, {
      ...NO_QUEUE_METRICS,
      add: (k) => calls.push(`add ${k}`),
      get: (k) => calls.push(`get ${k}`),
    });
    q.add("a");
    q.add("b");
    void q.get();
    expect(calls).toEqual(["add a", "add b", "get a"]);
  });

  it("shutdown releases waiters and drains in-flight keys", async () => {
    const q = new WorkQueue(noDelay);
    q.add("busy");
    const key = await q.get();
    const waiter = q.get();
    let drained = false;
    const done = q.shutdown(5000).then(() => {
      drained = true;
    });
    expect(await waiter).toBeUndefined();
    await Promise.resolve();
    expect(drained).toBe(false);
    q.add("late");
    q.done(key as string);
    await done;
    expect(drained).toBe(true);
    expect(await q.get()).toBeUndefined();
  });

  it("runs different keys concurrently but one key at a time", async () => {
    const q = new WorkQueue(noDelay);
    const active = new Set<string>();
    let maxParallel = 0;
    let overlapSameKey = false;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (active.has(key)) overlapSameKey = true;
        active.add(key);
        maxParallel = Math.max(maxParallel, active.size);
        await new Promise((r) => setTimeout(r, 2));
        active.delete(key);
        processed++;
        q.done(key);
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    for (let i = 0; i < 50; i++) q.add(`k${i % 5}`);
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 50; i++) q.add(`k${i % 5}`);
    while (!q.idle()) await new Promise((r) => setTimeout(r, 2));
    await q.shutdown();
    await Promise.all(workers);
    expect(overlapSameKey).toBe(false);
    expect(maxParallel).toBeGreaterThan(1);
    expect(maxParallel).toBeLessThanOrEqual(4);
    expect(processed).toBeLessThan(100); // deduplicated
    expect(processed).toBeGreaterThanOrEqual(5);
  });
});
