// A controller: keys from its watches (builder.ts) wait in a rate-limited work queue; workers call
// the reconciler with one key at a time (never the same key twice at once) and act on its result: done, requeue (with backoff), requeueAfter, or error
// (with backoff). A 409 Conflict (a write based on a stale cached read) is an expected retry, not
// a failure: requeued with backoff and logged at debug level.
import { randomUUID } from "node:crypto";
import type { Client } from "../client/client.js";
import { isConflict } from "../connect/errors.js";
import type { EventRecorder } from "../events/events.js";
import type { Logger } from "../log/logger.js";
import { type RateLimiter, defaultRateLimiter } from "./ratelimit.js";
import { WorkQueue } from "./queue.js";
import { type ControllerQueue, PriorityQueue } from "./priority-queue.js";
import type { InformerRequest } from "../cache/cache.js";
import type { SharedInformer } from "../cache/informer.js";
import type { KindRef } from "../connect/mapper.js";
import type { RuntimeMetrics } from "../metrics/metrics.js";

export interface Request {
  namespace: string;
  name: string;
}

export interface Result {
  /** Reconcile again after the rate limiter's backoff. */
  requeue?: boolean;
  /** Reconcile again after this many milliseconds (takes precedence over requeue). */
  requeueAfter?: number;
  /** Priority of the requeue (priority queue only); default: the priority the request was handed out with. */
  priority?: number;
}

export interface ReconcileContext {
  /**
   * Writes go to the API server; reads of kinds the manager watches come from its cache (copies;
   * possibly a little behind the server: a write based on a stale read fails with 409 Conflict
   * and the request is reconciled again). `client.apiReader` reads straight from the server, for
   * the few reads that must be fresh.
   */
  client: Client;
  /** Carries controller, namespace, name and reconcileID fields. */
  log: Logger;
  events: EventRecorder;
  /** Aborted when the manager shuts down; pass it to long waits. */
  signal: AbortSignal;
  /** Failed attempts of this key since its last success. */
  retries: number;
}

export interface Reconciler {
  // lets `async reconcile() {}` without a return satisfy the type
  reconcile(request: Request, ctx: ReconcileContext): Promise<Result | undefined | void>;
}
export type ReconcileFunction = Reconciler["reconcile"];

export interface ControllerOptions {
  /** Workers; each key is still reconciled by one worker at a time. Default 1. */
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
  /** The priority queue (initial list at low priority, as controller-runtime's default); false: a FIFO WorkQueue. Default true. */
  usePriorityQueue?: boolean;
}

/** Decides whether an event on the primary kind enqueues it. */
/** What a controller needs from the manager (kept narrow so controllers can be unit-tested). */
export interface ControllerHost {
  informerFor(kind: KindRef, request?: InformerRequest): Promise<SharedInformer>;
  client: Client;
  events: EventRecorder;
  logger: Logger;
  metrics: RuntimeMetrics;
  register(controller: Controller): void;
}

function requestKey(r: { namespace?: string; name: string }): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

function parseKey(key: string): Request {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: "", name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class Controller {
  readonly queue: ControllerQueue;
  private workers: Promise<void>[] = [];
  private readonly abort = new AbortController();
  private readonly log: Logger;
  private started = false;

  constructor(
    readonly name: string,
    private readonly reconciler: Reconciler,
    private readonly host: ControllerHost,
    private readonly options: ControllerOptions,
  ) {
    const labels = { name };
    const Queue = options.usePriorityQueue === false ? WorkQueue : PriorityQueue;
    this.queue = new Queue(options.rateLimiter ?? defaultRateLimiter(), {
      depth: (d) => host.metrics.queueDepth.set(labels, d),
      adds: () => host.metrics.queueAdds.inc(labels),
      retries: () => host.metrics.queueRetries.inc(labels),
    });
    this.log = host.logger.named("controller").child({ controller: name });
    host.metrics.queueDepth.set(labels, 0);
    host.metrics.maxConcurrent.set({ controller: name }, this.concurrency);
    host.metrics.activeWorkers.set({ controller: name }, 0);
    for (const result of ["success", "error", "requeue", "requeue_after"])
      host.metrics.reconcileTotal.inc({ controller: name, result }, 0);
    host.metrics.reconcileErrors.inc({ controller: name }, 0);
  }

  private get concurrency(): number {
    return Math.max(1, this.options.maxConcurrentReconciles ?? 1);
  }

  enqueue(request: { namespace?: string; name: string }, priority?: number): void {
    if (request.name) this.queue.add(requestKey(request), priority);
  }

  /** Starts the workers (the manager calls this once caches are synced and, if enabled, it leads). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.log.info("starting workers", { workers: this.concurrency });
    for (let i = 0; i < this.concurrency; i++) this.workers.push(this.work());
  }

  /** Stops taking keys and waits (up to the timeout) for in-flight reconciles. */
  async stop(drainTimeoutMs = 30_000): Promise<void> {
    this.abort.abort();
    await this.queue.shutdown(drainTimeoutMs);
    if (this.started) await Promise.race([Promise.all(this.workers), delay(drainTimeoutMs)]);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileKey(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async reconcileKey(key: string): Promise<void> {
    const request = parseKey(key);
    const m = this.host.metrics;
    const labels = { controller: this.name };
    const log = this.log.child({
      namespace: request.namespace || undefined,
      name: request.name,
      reconcileID: randomUUID(),
    });
    const ctx: ReconcileContext = {
      client: this.host.client,
      log,
      events: this.host.events,
      signal: this.abort.signal,
      retries: this.queue.retries(key),
    };
    const started = performance.now();
    m.activeWorkers.inc(labels);
    try {
      const result = (await this.reconciler.reconcile(request, ctx)) ?? {};
      const priority = result.priority ?? this.queue.priorityOf?.(key);
      if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfter, priority);
        m.reconcileTotal.inc({ ...labels, result: "requeue_after" });
      } else if (result.requeue) {
        this.queue.addRateLimited(key, priority);
        m.reconcileTotal.inc({ ...labels, result: "requeue" });
      } else {
        this.queue.forget(key);
        m.reconcileTotal.inc({ ...labels, result: "success" });
      }
    } catch (err) {
      m.reconcileTotal.inc({ ...labels, result: "error" });
      m.reconcileErrors.inc(labels);
      if (this.abort.signal.aborted) return;
      if (isConflict(err)) {
        // Level-triggered: the object changed since it was read (often: the cache had not seen
        // the latest write yet). Reconcile again once the cache has caught up.
        log.debug("reconcile hit a conflict; retrying", { err: (err as Error).message });
      } else {
        log.error("reconcile failed", err, { retries: this.queue.retries(key) });
      }
      this.queue.addRateLimited(key, this.queue.priorityOf?.(key));
    } finally {
      m.activeWorkers.dec(labels);
      m.reconcileTime.observe(labels, (performance.now() - started) / 1000);
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
  });
}
