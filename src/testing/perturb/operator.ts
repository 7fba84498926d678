// The author's operator inside a perturbation run: a Manager set up by their own `controllers`
// function, each reconciler wrapped to record its spans and errors, and its context's client
// wrapped to count writes, let another actor race them (conflictingWrites) and crash the manager
// right after the Nth one (restartBetweenWrites) — a new manager then takes over.
import {
  type Client,
  type Controller,
  type KindRef,
  type KubeObjectLike,
  type LogSink,
  Manager,
  type ReconcileContext,
  type Reconciler,
  type ReconcileFunction,
  type Request,
} from "../../runtime/index.js";
import { gvkOf } from "../../runtime/connect/mapper.js";
import type { RunRecorder } from "./recorder.js";
import type { ReconcileError } from "./types.js";

/** The user the operator's requests come from (faults match it). */
export const OPERATOR_USER = "perturb-operator";
/** Set by conflictingWrites' other actor on the objects it races (left out of comparisons). */
export const CONFLICT_ANNOTATION = "perturb.tsop.dev/conflicting-write";

const WRITES = new Set([
  "create",
  "update",
  "updateStatus",
  "patch",
  "patchStatus",
  "apply",
  "delete",
  "deleteAllOf",
]);
const RACED = new Set(["update", "updateStatus", "patch"]);
const READS = new Set(["get", "list"]);

export interface OperatorHooks {
  /** Crash the manager right after this write (1-based, counted over the whole run). */
  crashAfterWrite?: number;
  /** Another actor updates the object before this many of the operator's updates and patches. */
  conflicts?: number;
}

/** Why the errors a reconcile may throw need not be surfaced (see docs/testing.md). */
export function exemptReason(error: unknown, aborted: boolean): string | undefined {
  if (aborted) return "the manager was stopping";
  const e = error as { status?: number; reason?: string; name?: string; code?: string };
  if (e?.status === 409 && e.reason === "Conflict") return "optimistic concurrency: requeued";
  if (typeof e?.status === "number" && (e.status >= 500 || e.status === 429))
    return "the API server was unavailable";
  if (typeof e?.code === "string" && /^E(CONNREFUSED|CONNRESET|PIPE)$/.test(e.code))
    return "the API server was unreachable";
  return undefined;
}

class OperatorCrashed extends Error {
  constructor() {
    super("the operator crashed (perturb: restartBetweenWrites)");
  }
}

export class PerturbedOperator {
  generation = 0;
  manager: Manager | undefined;
  /** The kinds the author's controllers reconcile. */
  readonly primaries: Array<KindRef<KubeObjectLike>> = [];
  private controllers: Controller[] = [];
  private dead = false;
  private conflictsLeft: number;
  private restarting: Promise<void> | undefined;
  /** A manager's start() that rejected (lost leadership, a failed runnable). */
  failure: unknown;

  constructor(
    private readonly kubeconfigPath: string,
    private readonly setup: (manager: Manager) => Promise<unknown> | unknown,
    private readonly recorder: RunRecorder,
    private readonly admin: Client,
    private readonly hooks: OperatorHooks = {},
    private readonly log: LogSink = { write: () => undefined },
  ) {
    this.conflictsLeft = hooks.conflicts ?? 0;
  }

  async start(): Promise<void> {
    this.generation++;
    this.dead = false;
    this.controllers = [];
    const manager = await Manager.create({
      kubeconfig: this.kubeconfigPath,
      metricsBindAddress: "0",
      healthProbeBindAddress: "0",
      handleSignals: false,
      gracefulShutdownTimeoutMs: 5_000,
      logger: { level: "error", format: "json", sink: this.log },
    });
    this.manager = manager;
    await this.setup(this.instrument(manager));
    manager.start().catch((error: unknown) => {
      this.failure ??= error;
    });
    while (!(await manager.cachesSynced())) {
      if (this.failure) throw this.failure;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async stop(): Promise<void> {
    await this.restarting;
    await this.manager?.stop();
  }

  /**
   * No reconcile running or queued, no restart under way and, with `retries`, no retry due (a
   * reconcile failing on a view perturbed on purpose keeps retrying until the perturbation ends).
   */
  idle(retries = true): boolean {
    return this.busy(retries) === undefined;
  }

  /** What keeps the operator from being idle, in words; undefined when it is. */
  busy(retries = true): string | undefined {
    if (this.restarting) return "a restart is under way";
    const running = this.recorder.spans.filter((s) => s.end === undefined).map((s) => s.key);
    if (running.length > 0) return `reconciling ${[...new Set(running)].join(", ")}`;
    if (retries && this.recorder.retrying.size > 0) {
      const last = this.recorder.errors.at(-1);
      return `retrying ${[...this.recorder.retrying].join(", ")}${last ? ` (last error: ${last.message})` : ""}`;
    }
    const queued = this.controllers.reduce((n, c) => n + c.queue.len(), 0);
    return queued > 0 ? `${queued} key(s) queued` : undefined;
  }

  /** The manager handed to `controllers`: its builders wrap every reconciler they complete. */
  private instrument(manager: Manager): Manager {
    return new Proxy(manager, {
      get: (target, prop) => {
        if (prop === "controller") {
          return (kind: KindRef<KubeObjectLike>, options?: object) => {
            const builder = target.controller(kind, options);
            this.primaries.push(kind);
            const complete = builder.complete.bind(builder);
            builder.complete = async (reconciler: Reconciler | ReconcileFunction) => {
              const rec = typeof reconciler === "function" ? { reconcile: reconciler } : reconciler;
              const controller = await complete(this.wrap(kind, rec));
              this.controllers.push(controller);
              return controller;
            };
            return builder;
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  private wrap(kind: KindRef, reconciler: Reconciler): Reconciler {
    const gvk = gvkOf(kind);
    const generation = this.generation;
    return {
      reconcile: async (request: Request, ctx: ReconcileContext) => {
        const key = `${gvk.kind} ${request.namespace ? `${request.namespace}/` : ""}${request.name}`;
        const span = this.recorder.begin(key, generation);
        try {
          if (this.dead) await this.die(ctx.signal);
          const result = await reconciler.reconcile(request, {
            ...ctx,
            client: this.client(ctx.client, ctx.signal),
          });
          if (result && (result.requeue || (result.requeueAfter ?? Infinity) <= 1_000))
            this.recorder.retrying.add(key);
          return result;
        } catch (error) {
          if (!this.dead && !exemptReason(error, ctx.signal.aborted)) {
            this.recorder.retrying.add(key);
            span.error = await this.describe(error, key, gvk, request);
            this.recorder.errors.push(span.error);
          } else if (!this.dead) {
            this.recorder.retrying.add(key);
          }
          throw error;
        } finally {
          this.recorder.end(span);
        }
      },
    };
  }

  /** The error, and whether the object carries a condition whose message names it right now. */
  private async describe(
    error: unknown,
    key: string,
    gvk: { apiVersion: string; kind: string },
    request: Request,
  ): Promise<ReconcileError> {
    const message = error instanceof Error ? error.message : String(error);
    const reason = (error as { reason?: string })?.reason;
    const live = await this.admin.get(gvk, request).catch(() => undefined);
    const conditions = ((live as { status?: { conditions?: unknown } } | undefined)?.status?.conditions ??
      []) as Array<{
      type?: string;
      message?: string;
    }>;
    const found = conditions.find((c) => mentions(c.message, message));
    return {
      key,
      kind: gvk.kind,
      message,
      reason,
      reportedAs: found ? `condition ${found.type}` : undefined,
    };
  }

  /** The reconcile's client: writes counted, raced and possibly the last before a crash. */
  private client(client: Client, signal: AbortSignal): Client {
    return new Proxy(client, {
      get: (target, prop) => {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function" || typeof prop !== "string") return value;
        const call = value as (...args: unknown[]) => unknown;
        if (prop === "withSignal" || prop === "withTimeout")
          return (...args: unknown[]) => this.client(call.apply(target, args) as Client, signal);
        if (READS.has(prop))
          return async (...args: unknown[]) => {
            if (this.dead) await this.die(signal);
            return call.apply(target, args);
          };
        if (!WRITES.has(prop)) return call.bind(target);
        return async (...args: unknown[]) => {
          if (this.dead) await this.die(signal);
          if (RACED.has(prop)) await this.race(args[0] as KubeObjectLike);
          const out = await call.apply(target, args);
          const n = ++this.recorder.writes;
          if (n === this.hooks.crashAfterWrite) {
            this.dead = true;
            this.restarting = this.restart();
            await this.die(signal);
          }
          return out;
        };
      },
    });
  }

  /** conflictingWrites: another actor updates `obj` between the operator's read and its write. */
  private async race(obj: KubeObjectLike): Promise<void> {
    if (this.conflictsLeft <= 0 || !obj?.apiVersion || !obj.kind) return;
    const meta = (obj as { metadata?: { name?: string; namespace?: string } }).metadata;
    if (!meta?.name) return;
    const kind = { apiVersion: obj.apiVersion, kind: obj.kind };
    // Best effort: whatever the other actor meets (the object gone, a conflict of its own) is its
    // problem, never an error of the operator's.
    const live = await this.admin
      .get(kind, { namespace: meta.namespace, name: meta.name })
      .catch(() => undefined);
    if (!live) return;
    this.conflictsLeft--;
    const m = (live as { metadata: { annotations?: Record<string, string> } }).metadata;
    m.annotations = {
      ...m.annotations,
      [CONFLICT_ANNOTATION]: String((this.hooks.conflicts ?? 0) - this.conflictsLeft),
    };
    await this.admin.update(live).catch(() => undefined);
  }

  /** A dead manager answers nothing: calls wait until its stop aborts them. */
  private die(signal: AbortSignal): Promise<never> {
    return new Promise((_resolve, reject) => {
      if (signal.aborted) reject(new OperatorCrashed());
      else signal.addEventListener("abort", () => reject(new OperatorCrashed()), { once: true });
    });
  }

  private async restart(): Promise<void> {
    await this.manager?.stop();
    await this.start();
    this.restarting = undefined;
  }
}

/** Whether a condition's or Event's message names the error (its first 60 characters). */
export function mentions(text: string | undefined, errorMessage: string): boolean {
  return Boolean(text?.includes(errorMessage.slice(0, 60).trim()));
}
