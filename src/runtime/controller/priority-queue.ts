// The controller's priority queue, as controller-runtime's (pkg/controller/priorityqueue, the
// default since v0.23): keys wait ordered by priority (higher first), then first-in first-out. The
// builder enqueues objects of an informer's initial list, and resyncs (updates that did not change
// the resourceVersion), at LOW_PRIORITY and every other event at 0, so after a restart a user's
// edit is reconciled before the backlog of unchanged objects. The rest is WorkQueue's contract
// (client-go's): a key waits once (re-adding keeps the highest priority and the earliest
// deadline; a raised priority goes to the back of its new level), a key is never handed to two
// workers (an add while it is processed waits until done()), delayed adds, rate-limited retries.
// A requeue keeps the priority the key was handed out with unless the result names another.
// Metrics (queue-metrics.ts) move where controller-runtime's do: a key counts as an add and in
// the depth of its priority when it becomes ready, leaves the depth when handed out.
import { defaultRateLimiter, type RateLimiter } from "./ratelimit.js";
import { waitForDrain } from "./drain.js";
import { NO_QUEUE_METRICS, type QueueMetrics } from "./queue-metrics.js";

/** The priority of objects from an informer's initial list and of resyncs (controller-runtime's handler.LowPriority). */
export const LOW_PRIORITY = -100;

/** What a Controller needs of its queue: WorkQueue and PriorityQueue both have it (priorities are ignored by WorkQueue). */
export interface ControllerQueue {
  readonly rateLimiter: RateLimiter;
  add(key: string, priority?: number): void;
  addAfter(key: string, ms: number, priority?: number): void;
  addRateLimited(key: string, priority?: number): void;
  forget(key: string): void;
  retries(key: string): number;
  get(): Promise<string | undefined>;
  done(key: string): void;
  len(): number;
  idle(): boolean;
  isShuttingDown(): boolean;
  shutdown(drainTimeoutMs?: number): Promise<void>;
  /** The priority a key being processed was handed out with (PriorityQueue only). */
  priorityOf?(key: string): number | undefined;
}

interface Item {
  key: string;
  priority: number;
  /** Order of arrival at the current priority (FIFO within a level). */
  seq: number;
  /** Set while the item waits for a deadline; it is not ready then. */
  delayed?: { at: number; timer: NodeJS.Timeout };
}

interface HeapEntry {
  key: string;
  priority: number;
  seq: number;
}

function before(a: HeapEntry, b: HeapEntry): boolean {
  return a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;
}

/** A binary heap of ready entries; entries whose item has since changed are skipped when popped. */
class Heap {
  private readonly a: HeapEntry[] = [];

  get size(): number {
    return this.a.length;
  }

  push(e: HeapEntry): void {
    const a = this.a;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): HeapEntry | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.a.length = 0;
  }
}

export class PriorityQueue implements ControllerQueue {
  /** Keys waiting (ready or delayed), not yet handed out. */
  private readonly items = new Map<string, Item>();
  private readonly heap = new Heap();
  private ready = 0;
  /** Keys handed out and not yet done(), with the priority they were handed out with. */
  private readonly processing = new Map<string, number>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private seq = 0;
  private shuttingDown = false;

  constructor(
    readonly rateLimiter: RateLimiter = defaultRateLimiter(),
    private readonly metrics: QueueMetrics = NO_QUEUE_METRICS,
  ) {}

  /** Queues a key at a priority (default 0); a key already waiting keeps the higher priority. */
  add(key: string, priority = 0): void {
    if (this.shuttingDown) return;
    const item = this.items.get(key);
    if (!item) {
      this.items.set(key, { key, priority, seq: this.seq++ });
      this.makeReady(key);
      return;
    }
    const raised = priority > item.priority;
    if (raised) {
      // A ready key moves to its new priority's depth; a delayed one is counted when ready.
      if (!item.delayed) this.metrics.reprioritize(item.priority, priority);
      item.priority = priority;
      item.seq = this.seq++;
    }
    if (item.delayed) {
      // An immediate add beats a pending deadline.
      clearTimeout(item.delayed.timer);
      item.delayed = undefined;
      if (!raised) item.seq = this.seq++;
      this.makeReady(key);
    } else if (raised) {
      this.heap.push({ key, priority: item.priority, seq: item.seq });
    }
  }

  /**
   * Queues a key after a delay; an earlier deadline (or an immediate add) already pending wins.
   * Every delayed add counts as a retry (requeueAfter too), as controller-runtime's priority queue.
   */
  addAfter(key: string, ms: number, priority = 0): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key, priority);
      return;
    }
    this.metrics.retry();
    const at = Date.now() + ms;
    let item = this.items.get(key);
    if (item && !item.delayed) {
      // Already ready: only the priority can change.
      this.add(key, Math.max(priority, item.priority));
      return;
    }
    if (!item) {
      item = { key, priority, seq: this.seq++ };
      this.items.set(key, item);
    } else {
      if (priority > item.priority) item.priority = priority;
      if (item.delayed && item.delayed.at <= at) return;
      if (item.delayed) clearTimeout(item.delayed.timer);
    }
    const timer = setTimeout(() => {
      const current = this.items.get(key);
      if (!current?.delayed || current.delayed.timer !== timer) return;
      current.delayed = undefined;
      // Ordered by when it became ready, as controller-runtime.
      current.seq = this.seq++;
      this.makeReady(key);
    }, ms);
    timer.unref?.();
    item.delayed = { at, timer };
  }

  /** Queues a key after its rate-limited backoff (one more failure counted). */
  addRateLimited(key: string, priority = 0): void {
    this.addAfter(key, this.rateLimiter.when(key), priority);
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  retries(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** The priority a key being processed was handed out with. */
  priorityOf(key: string): number | undefined {
    return this.processing.get(key);
  }

  /** The next key (highest priority, then oldest), or undefined once shut down. Call done(key) after. */
  get(): Promise<string | undefined> {
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was added meanwhile it is ready again now. */
  done(key: string): void {
    this.processing.delete(key);
    this.metrics.done(key);
    const item = this.items.get(key);
    if (item && !item.delayed && !this.shuttingDown) this.heap.push(this.entry(item));
    this.serve();
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Keys ready to be handed out (not counting delayed ones or ones being processed). */
  len(): number {
    return this.ready;
  }

  /** Whether nothing is waiting, delayed or in progress. */
  idle(): boolean {
    return this.items.size === 0 && this.processing.size === 0;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops handing out keys; resolves when in-flight keys are done (or the timeout passes). */
  async shutdown(drainTimeoutMs = 30_000): Promise<void> {
    this.shuttingDown = true;
    for (const item of this.items.values()) if (item.delayed) clearTimeout(item.delayed.timer);
    this.items.clear();
    this.heap.clear();
    this.ready = 0;
    this.metrics.shutdown();
    for (const w of this.waiters.splice(0)) w(undefined);
    if (this.processing.size === 0) return;
    await waitForDrain(this.drainWaiters, drainTimeoutMs);
  }

  private entry(item: Item): HeapEntry {
    return { key: item.key, priority: item.priority, seq: item.seq };
  }

  /** A waiting item became ready: counted, pushed, and handed to a waiting worker if any. */
  private makeReady(key: string): void {
    const item = this.items.get(key)!;
    this.ready += 1;
    this.metrics.add(key, item.priority);
    if (!this.processing.has(key)) this.heap.push(this.entry(item));
    this.serve();
  }

  private serve(): void {
    while (this.waiters.length > 0) {
      const key = this.take();
      if (key === undefined) return;
      this.waiters.shift()!(key);
    }
  }

  /** Pops the best ready key not being processed (stale heap entries are dropped). */
  private take(): string | undefined {
    for (;;) {
      const e = this.heap.pop();
      if (!e) return undefined;
      const item = this.items.get(e.key);
      // Stale: gone, delayed again, re-prioritised since, or being processed (done() pushes it back).
      if (!item || item.delayed || item.priority !== e.priority || item.seq !== e.seq) continue;
      if (this.processing.has(e.key)) continue;
      this.items.delete(e.key);
      this.ready -= 1;
      this.metrics.get(e.key, item.priority);
      this.processing.set(e.key, item.priority);
      return e.key;
    }
  }
}
