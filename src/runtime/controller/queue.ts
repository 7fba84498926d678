// The controller work queue, with client-go's semantics: a key waiting in the queue is stored once
// (adds are deduplicated), a key being processed is never handed to a second worker (it is re-queued
// when the first calls done(), once however often it was added meanwhile), delayed adds keep the
// earliest deadline, and retries go through a rate limiter (ratelimit.ts: client-go's defaults).
// Its metrics (queue-metrics.ts) move where client-go's do: depth counts the keys waiting, those
// re-added while processed included.
import { defaultRateLimiter, type RateLimiter } from "./ratelimit.js";
import { waitForDrain } from "./drain.js";
import { NO_QUEUE_METRICS, type QueueMetrics } from "./queue-metrics.js";

export class WorkQueue {
  private readonly queue: string[] = [];
  /** Keys waiting to be processed (in `queue`, or re-added while processing). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(
    readonly rateLimiter: RateLimiter = defaultRateLimiter(),
    private readonly metrics: QueueMetrics = NO_QUEUE_METRICS,
  ) {}

  /** Queues a key unless it is already waiting. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.add(key);
    this.dirty.add(key);
    if (this.processing.has(key)) return; // done() puts it back
    this.push(key);
  }

  /** Hands a dirty key to a waiting worker, or queues it. */
  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.metrics.get(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
  }

  /**
   * Queues a key after a delay; an earlier pending deadline for the same key wins. Every delayed
   * add counts as a retry (rate-limited requeues and requeueAfter alike), as controller-runtime's
   * priority queue counts them.
   */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    this.metrics.retry();
    const at = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    timer.unref?.();
    this.delayed.set(key, { at, timer });
  }

  /** Queues a key after its rate-limited backoff (one more failure counted). */
  addRateLimited(key: string): void {
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears the key's failure count. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  retries(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** The next key to process, or undefined once shut down. Call done(key) when finished. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.metrics.get(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was added meanwhile it goes back in the queue. */
  done(key: string): void {
    this.processing.delete(key);
    this.metrics.done(key);
    // Added while it was processed: queued again now, counted once (when it was added), as client-go.
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Keys waiting (not counting delayed ones or ones being processed). */
  len(): number {
    return this.queue.length;
  }

  /** Whether nothing is waiting, delayed or in progress. */
  idle(): boolean {
    return this.queue.length === 0 && this.delayed.size === 0 && this.processing.size === 0;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops handing out keys; resolves when in-flight keys are done (or the timeout passes). */
  async shutdown(drainTimeoutMs = 30_000): Promise<void> {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue.length = 0;
    this.dirty.clear();
    this.metrics.shutdown();
    for (const w of this.waiters.splice(0)) w(undefined);
    if (this.processing.size === 0) return;
    await waitForDrain(this.drainWaiters, drainTimeoutMs);
  }
}
