// A controller: keys from its watches (builder.ts) wait in a rate-limited work queue; workers call
// the reconciler with one key at a time (never the same key twice at once) and act on its result:
// done, requeue (with backoff), requeueAfter, or error (with backoff; a TerminalError is not
// retried). Each reconcile gets a signal (attempt.ts), aborted when the controller stops or at its
// reconciliationTimeout, that every request through ctx.client carries. A 409 Conflict (a write
// based on a stale cached read) is logged at debug level until it repeats (reconcile-log.ts).
import type { OwnWrites } from "../cache/own-writes.js";
import { runAsWriter } from "../client/write-observer.js";
import { randomUUID } from "node:crypto";
import type { Client, KubeObjectLike } from "../client/client.js";
import type { EventRecorder } from "../events/events.js";
import type { Logger } from "../log/logger.js";
import { type RateLimiter, defaultRateLimiter } from "./ratelimit.js";
import { WorkQueue } from "./queue.js";
import { ControllerQueueMetrics } from "./queue-metrics.js";
import { type ControllerQueue, PriorityQueue } from "./priority-queue.js";
import type { InformerRequest } from "../cache/cache.js";
import type { SharedInformer } from "../cache/informer.js";
import type { KindRef } from "../connect/mapper.js";
import type { RuntimeMetrics } from "../metrics/metrics.js";
import { type AttemptOutcome, startAttempt } from "./attempt.js";
import { InFlight } from "./in-flight.js";
import { logFailure } from "./reconcile-log.js";
import { isTerminalError } from "./terminal-error.js";
import { isPanic } from "./panic.js";

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
   * the few reads that must be fresh. Every request it makes carries `signal`.
   */
  client: Client;
  /** Carries controller, namespace, name and reconcileID fields. */
  log: Logger;
  events: EventRecorder;
  /**
   * Aborted when the controller stops (at the start of the manager's shutdown: finish or give up
   * quickly) and at the controller's reconciliationTimeout. Requests through ctx.client then reject
   * with RequestAbortedError; pass it to your own long waits (fetch, timers) too.
   */
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
  /**
   * Milliseconds a reconcile may run (controller-runtime's ReconciliationTimeout); default none.
   * At the deadline ctx.signal aborts, the attempt counts as an error and is retried with backoff,
   * and its worker takes the next key even if the reconciler ignores the signal. Its code may go on
   * running; the key is not reconciled again until it has returned.
   */
  reconciliationTimeout?: number;
  /**
   * Run the workers only on the replica that leads. Default true; false runs them on every replica
   * (read-only or idempotent work), as controller-runtime's NeedLeaderElection.
   */
  needLeaderElection?: boolean;
}

/** What Controller.stop() found. */
export interface StopResult {
  /** True when no reconcile was still running when stop() resolved. */
  drained: boolean;
}

/** What a controller needs from the manager (kept narrow so controllers can be unit-tested). */
export interface ControllerHost {
  informerFor(kind: KindRef, request?: InformerRequest): Promise<SharedInformer>;
  /** The writes of each controller, to skip the events they cause (cache.ownWriteEvents). */
  ownWrites?: OwnWrites;
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

type Outcome = AttemptOutcome<Result | undefined | void>;

export class Controller {
  readonly queue: ControllerQueue;
  private workers: Promise<void>[] = [];
  /** Aborted at the start of stop(): every running reconcile's signal aborts with it. */
  private readonly stopping = new AbortController();
  private readonly inFlight = new InFlight();
  private readonly log: Logger;
  private started = false;
  /** The informer of the primary kind (set by the builder); an optional one may wait for its CRD. */
  primarySource: SharedInformer | undefined;
  /**
   * With sharding: whether this replica may reconcile `key` now (its shard holds the object and it
   * is not moving away). A key refused is dropped when a worker takes it. Unset: every key.
   */
  admits: ((key: string) => boolean) | undefined;
  /** The reconcile of each key whose code is running (timed-out ones until they return). */
  private readonly runningKeys = new Map<string, Promise<void>>();

  constructor(
    readonly name: string,
    private readonly reconciler: Reconciler,
    private readonly host: ControllerHost,
    private readonly options: ControllerOptions,
    /** The kind reconciled: terminal errors are recorded as Warning events on its objects. */
    readonly primary?: KindRef,
  ) {
    // The queue is named after the controller (controller-runtime labels its metrics with both).
    const priorities = options.usePriorityQueue !== false;
    const queueMetrics = new ControllerQueueMetrics(host.metrics, name, { priorities });
    const Queue = priorities ? PriorityQueue : WorkQueue;
    this.queue = new Queue(options.rateLimiter ?? defaultRateLimiter(), queueMetrics);
    this.log = host.logger.named("controller").child({ controller: name });
    const labels = { controller: name };
    host.metrics.maxConcurrent.set(labels, this.concurrency);
    host.metrics.activeWorkers.set(labels, 0);
    for (const result of ["success", "error", "requeue", "requeue_after"])
      host.metrics.reconcileTotal.inc({ ...labels, result }, 0);
    host.metrics.reconcileErrors.inc(labels, 0);
    host.metrics.terminalReconcileErrors.inc(labels, 0);
    host.metrics.reconcilePanics.inc(labels, 0);
    host.metrics.reconcileTimeouts.inc(labels, 0);
  }

  /** What the controller waits for while its primary kind's CRD is not served (readiness shows it). */
  waitingFor(): string | undefined {
    return this.primarySource?.waitingFor?.();
  }

  /** Whether the manager starts this controller's workers only on the leader. */
  get needLeaderElection(): boolean {
    return this.options.needLeaderElection !== false;
  }

  private get concurrency(): number {
    return Math.max(1, this.options.maxConcurrentReconciles ?? 1);
  }

  enqueue(request: { namespace?: string; name: string }, priority?: number): void {
    if (request.name) this.queue.add(requestKey(request), priority);
  }

  /** Resolves once no reconcile of `key` is running (a shard hands the key over only then). */
  whenIdle(key: string): Promise<void> {
    return this.runningKeys.get(key) ?? Promise.resolve();
  }

  /** Starts the workers (the manager calls this once caches are synced and, if enabled, it leads). */
  start(): void {
    if (this.started || this.stopping.signal.aborted) return;
    this.started = true;
    this.log.info("starting workers", { workers: this.concurrency });
    for (let i = 0; i < this.concurrency; i++) this.workers.push(this.work());
  }

  /**
   * Stops taking keys, aborts every running reconcile's signal, and waits for them, all within one
   * budget of `drainTimeoutMs`. `drained` is false when a reconcile was still running at the end of
   * the budget (its code goes on; nothing requeues it). Safe to call again (e.g. with 0 to stop
   * waiting at once).
   */
  async stop(drainTimeoutMs = 30_000): Promise<StopResult> {
    if (!this.stopping.signal.aborted) this.stopping.abort(new Error(`controller ${this.name} is stopping`));
    void this.queue.shutdown(0);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, drainTimeoutMs));
    });
    const finished = Promise.all([...this.workers, this.inFlight.idle()]).then(() => true);
    const drained = await Promise.race([finished, budget]);
    clearTimeout(timer);
    if (!drained)
      this.log.warn("stopped without draining: reconciles still running", { running: this.inFlight.size });
    return { drained };
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      if (this.admits && !this.admits(key)) {
        this.queue.forget(key);
        this.queue.done(key);
        continue;
      }
      await this.reconcileKey(key);
    }
  }

  /** Runs one reconcile of `key` and acts on its outcome; returns when the worker is free. */
  private async reconcileKey(key: string): Promise<void> {
    const request = parseKey(key);
    const m = this.host.metrics;
    const labels = { controller: this.name };
    const log = this.log.child({
      namespace: request.namespace || undefined,
      name: request.name,
      reconcileID: randomUUID(),
    });
    const retries = this.queue.retries(key);
    const timeoutMs = this.options.reconciliationTimeout;
    const attempt = startAttempt(
      (signal) =>
        runAsWriter(this.name, () =>
          this.reconciler.reconcile(request, {
            client: this.host.client.withSignal(signal),
            log,
            events: this.host.events,
            signal,
            retries,
          }),
        ),
      {
        parent: this.stopping.signal,
        timeoutMs,
        timeoutError: () =>
          new Error(`reconcile of ${key} exceeded the reconciliationTimeout of ${timeoutMs} ms`),
      },
    );
    this.inFlight.track(attempt.settled);
    // Set before any await: a shard draining this key sees the reconcile from its first moment.
    this.runningKeys.set(key, attempt.settled);
    void attempt.settled.then(() => {
      if (this.runningKeys.get(key) === attempt.settled) this.runningKeys.delete(key);
    });
    const started = performance.now();
    m.activeWorkers.inc(labels);
    let outcome: Outcome | undefined;
    try {
      outcome = await attempt.outcome;
      this.act(key, request, outcome, retries, log);
    } finally {
      m.activeWorkers.dec(labels);
      m.reconcileTime.observe(labels, (performance.now() - started) / 1000);
      if (outcome?.kind === "timedOut") {
        // Hold the key until the abandoned code returns: never two reconciles of one key at once.
        void attempt.settled.then(() => {
          log.info("timed-out reconcile returned; its key can be reconciled again");
          this.queue.done(key);
        });
      } else {
        this.queue.done(key);
      }
    }
  }

  private act(key: string, request: Request, outcome: Outcome, retries: number, log: Logger): void {
    const m = this.host.metrics;
    const labels = { controller: this.name };
    if (outcome.kind === "returned") {
      const result = outcome.value ?? {};
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
      return;
    }
    // Every failure counts as controller-runtime counts it: reconcile_errors_total and result="error".
    m.reconcileTotal.inc({ ...labels, result: "error" });
    m.reconcileErrors.inc(labels);
    const err = outcome.error;
    if (outcome.kind === "timedOut") m.reconcileTimeouts.inc(labels);
    else if (isPanic(err)) m.reconcilePanics.inc(labels);
    if (this.stopping.signal.aborted) {
      log.info("reconcile ended while the controller stops; not retried", { err: err as Error });
      return;
    }
    if (outcome.kind !== "timedOut" && isTerminalError(err)) {
      // Not requeued (and, as controller-runtime, its backoff is not reset): the next event retries.
      m.terminalReconcileErrors.inc(labels);
      log.error("reconcile failed with a terminal error; not retried until the object changes", err);
      this.recordTerminal(request, err as Error, log);
      return;
    }
    logFailure(log, key, err, { retries: retries + 1, timedOut: outcome.kind === "timedOut" });
    this.queue.addRateLimited(key, this.queue.priorityOf?.(key));
  }

  /** A Warning event on the primary object, so `kubectl describe` shows why it is stuck. */
  private recordTerminal(request: Request, err: Error, log: Logger): void {
    const kind = this.primary as KindRef<KubeObjectLike> | undefined;
    if (!kind) return;
    this.host.client
      .get(kind, request)
      .then((obj) => {
        if (obj)
          this.host.events.warning(
            obj,
            "ReconcileFailed",
            `${err.message} (not retried until the object changes)`,
          );
      })
      .catch((readErr: unknown) =>
        log.debug("could not read the object to record the terminal error", { err: readErr as Error }),
      );
  }
}
