// Informer: keeps an in-memory copy of one resource in sync and tells handlers what changed.
// Loop: list (paged) → watch from the list's resourceVersion with bookmarks and a bounded lifetime
// (timeoutSeconds, randomised) → re-watch from the last seen version when the server ends it.
// 410 Gone → relist (diffed against the cache, so deletes missed meanwhile are still delivered).
// Errors → reconnect with jittered exponential backoff. A watchdog aborts a watch that stays silent
// past its lifetime (wedged connection), and health() reports an informer that stopped making
// progress, so the liveness probe can restart a stuck process. The loop never exits until stop().
import { type RetryPolicy, retryDelay } from "../common/retry.js";
import { ApiError, isGone, type StatusBody } from "./errors.js";
import type { Logger } from "./logger.js";
import { type ResourceMapping, resourcePath } from "./mapper.js";
import type { RuntimeMetrics } from "./metrics.js";
import type { RestClient, WatchEvent } from "./rest.js";
import type { ObjectMeta } from "./schema.js";
import { selectorString } from "./client.js";

export interface InformerObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  /** Also called on periodic resync with old === new. */
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  /** Watch one namespace; omit for all. */
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /** Re-deliver every cached object as an update this often (ms); 0 disables. Default 10 h. */
  resyncPeriodMs?: number;
  /** Watch lifetime asked of the server, randomised in [t, 2t). Default 300 s. */
  watchTimeoutSeconds?: number;
  /** Silence (no bytes, no bookmark) past the watch lifetime after which the watch is aborted. Default 30 s. */
  wedgedGraceMs?: number;
  /** No progress for this long makes health() fail. Default 2 × max watch lifetime + 60 s. */
  staleAfterMs?: number;
  /** Reconnect backoff bounds (ms). Defaults 800 / 30 000, as client-go's reflector. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Page size of lists. Default 500. */
  pageSize?: number;
  logger: Logger;
  metrics?: RuntimeMetrics;
  /** Told of every list or watch failure (410 Gone aside) and how many came in a row; may stop(). */
  onError?: (err: unknown, failures: number) => void;
}

export interface InformerHealth {
  resource: string;
  synced: boolean;
  healthy: boolean;
  /** Why it is unhealthy, or the last error seen. */
  detail?: string;
}

class WatchAborted extends Error {}

export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name}` : (obj.metadata?.name ?? "");
}

export class Informer<T extends InformerObject = InformerObject> {
  private readonly store = new Map<string, T>();
  private readonly handlers: EventHandler<T>[] = [];
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  private resourceVersion = "";
  private lastProgress = Date.now();
  private lastError: string | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private sleepTimer: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private currentWatch: AbortController | undefined;
  readonly resource: string;
  private readonly log: Logger;

  constructor(
    private readonly rest: RestClient,
    readonly mapping: ResourceMapping,
    private readonly options: InformerOptions,
  ) {
    this.resource = `${mapping.plural}${mapping.group ? `.${mapping.group}` : ""}`;
    this.log = options.logger.child({ resource: this.resource });
  }

  /** Reconnect backoff (the shared retry policy with the reflector's bounds); attempts are unbounded. */
  private get reconnectPolicy(): RetryPolicy {
    return {
      attempts: Number.POSITIVE_INFINITY,
      baseDelayMs: this.options.backoffBaseMs ?? 800,
      maxDelayMs: this.options.backoffMaxMs ?? 30_000,
      retryAfterCapMs: 30_000,
      unhinted: true,
    };
  }

  private get watchTimeout(): number {
    return this.options.watchTimeoutSeconds ?? 300;
  }

  /** Adds a handler; objects already cached are delivered to it as adds. */
  addHandler(handler: EventHandler<T>): void {
    this.handlers.push(handler);
    if (this.synced) for (const obj of this.store.values()) this.call(handler, "onAdd", obj);
  }

  start(): void {
    if (this.loop) return;
    this.lastProgress = Date.now();
    this.loop = this.run();
    const period = this.options.resyncPeriodMs ?? 10 * 3600_000;
    if (period > 0) {
      this.resyncTimer = setInterval(() => this.resync(), period);
      this.resyncTimer.unref?.();
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    clearInterval(this.resyncTimer);
    this.currentWatch?.abort();
    if (this.sleepTimer) {
      clearTimeout(this.sleepTimer.timer);
      this.sleepTimer.resolve();
    }
    await this.loop;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been loaded (or the informer stopped). */
  waitForSync(): Promise<void> {
    if (this.synced || this.abort.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(key: { namespace?: string; name: string }): T | undefined {
    return this.store.get(key.namespace ? `${key.namespace}/${key.name}` : key.name);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  health(now = Date.now()): InformerHealth {
    const staleAfter = this.options.staleAfterMs ?? 2 * 2 * this.watchTimeout * 1000 + 60_000;
    const silent = now - this.lastProgress;
    const healthy = !this.loop || this.abort.signal.aborted || silent <= staleAfter;
    const detail = healthy
      ? this.lastError
      : `no list/watch progress for ${Math.round(silent / 1000)} s${this.lastError ? ` (last error: ${this.lastError})` : ""}`;
    return { resource: this.resource, synced: this.synced, healthy, ...(detail ? { detail } : {}) };
  }

  /** Re-delivers every cached object as an update (periodic resync). */
  resync(): void {
    if (!this.synced) return;
    for (const obj of this.store.values()) this.emit("onUpdate", obj, obj);
  }

  private progress(): void {
    this.lastProgress = Date.now();
  }

  private async run(): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!this.abort.signal.aborted) {
      let retryAfter: string | undefined;
      try {
        if (needList) {
          await this.relist();
          needList = false;
          failures = 0;
          if (this.abort.signal.aborted) break; // a handler stopped the informer
        }
        const outcome = await this.watchOnce();
        this.lastError = undefined;
        if (outcome === "quick") failures += 1;
        else failures = 0;
        this.options.metrics?.watchRestarts.inc({
          resource: this.resource,
          reason: outcome === "wedged" ? "wedged" : "timeout",
        });
        if (outcome === "wedged") this.log.warn("watch stalled; reconnecting");
      } catch (err) {
        if (this.abort.signal.aborted) break;
        if (isGone(err)) {
          this.log.info("watch resourceVersion too old (410 Gone); relisting");
          this.options.metrics?.watchRestarts.inc({ resource: this.resource, reason: "gone" });
          needList = true;
          this.resourceVersion = "";
          continue;
        }
        failures += 1;
        this.lastError = (err as Error).message;
        this.options.metrics?.watchRestarts.inc({ resource: this.resource, reason: "error" });
        // The REST client already honoured Retry-After while it had attempts; keep honouring it.
        if (err instanceof ApiError && err.retryAfterSeconds !== undefined)
          retryAfter = String(err.retryAfterSeconds);
        this.log.warn(needList ? "list failed; retrying" : "watch failed; reconnecting", {
          err: err as Error,
          attempt: failures,
        });
        this.options.onError?.(err, failures);
        if (this.abort.signal.aborted) break;
      }
      if (failures > 0) await this.sleep(retryDelay(this.reconnectPolicy, failures, retryAfter));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleepTimer = undefined;
        resolve();
      }, ms);
      this.sleepTimer = { timer, resolve };
    });
  }

  private basePath(): string {
    return resourcePath(this.mapping, this.mapping.namespaced ? this.options.namespace : undefined);
  }

  private async relist(): Promise<void> {
    const items = new Map<string, T>();
    let cont: string | undefined;
    let rv = "";
    do {
      const page = await this.rest.request<{
        items?: T[];
        metadata?: { continue?: string; resourceVersion?: string };
      }>("GET", this.basePath(), {
        query: {
          labelSelector: selectorString(this.options.labelSelector),
          fieldSelector: this.options.fieldSelector,
          limit: this.options.pageSize ?? 500,
          continue: cont,
        },
        signal: this.abort.signal,
        timeoutMs: 60_000,
      });
      this.progress();
      for (const item of page.items ?? []) {
        this.normalise(item);
        items.set(objectKey(item), item);
      }
      cont = page.metadata?.continue || undefined;
      rv = page.metadata?.resourceVersion ?? rv;
    } while (cont);
    this.options.metrics?.relists.inc({ resource: this.resource });
    // Replace the cache, telling handlers exactly what differs (deletes included).
    const previous = new Map(this.store);
    this.store.clear();
    for (const [key, obj] of items) {
      this.store.set(key, obj);
      const old = previous.get(key);
      if (!old) this.emit("onAdd", obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
        this.emit("onUpdate", old, obj);
    }
    for (const [key, old] of previous) if (!items.has(key)) this.emit("onDelete", old);
    this.resourceVersion = rv;
    this.log.debug("listed", { count: items.size, resourceVersion: rv });
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** One watch until the server ends it: "normal", "quick" (ended at once, empty), or "wedged". */
  private async watchOnce(): Promise<"normal" | "quick" | "wedged"> {
    const timeout = Math.floor(this.watchTimeout * (1 + Math.random()));
    const controller = new AbortController();
    this.currentWatch = controller;
    const onStop = () => controller.abort(new WatchAborted("stopped"));
    // stop() may have run inside a handler of the list just delivered: do not open a watch then.
    if (this.abort.signal.aborted) return "normal";
    this.abort.signal.addEventListener("abort", onStop, { once: true });
    const idleLimit = timeout * 1000 + (this.options.wedgedGraceMs ?? 30_000);
    let wedged = false;
    let watchdog: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        wedged = true;
        controller.abort(new WatchAborted("wedged"));
      }, idleLimit);
      watchdog.unref?.();
    };
    const started = Date.now();
    let events = 0;
    try {
      arm();
      const stream = this.rest.watch<T>(
        this.basePath(),
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: timeout,
          labelSelector: selectorString(this.options.labelSelector),
          fieldSelector: this.options.fieldSelector,
        },
        controller.signal,
        () => {
          arm();
          this.progress();
        },
      );
      for await (const event of stream) {
        events += 1;
        this.handle(event);
      }
    } catch (err) {
      if (wedged) return "wedged";
      if (this.abort.signal.aborted) return "normal";
      throw err;
    } finally {
      clearTimeout(watchdog);
      this.abort.signal.removeEventListener("abort", onStop);
      this.currentWatch = undefined;
    }
    this.progress();
    return events === 0 && Date.now() - started < 1000 ? "quick" : "normal";
  }

  private handle(event: WatchEvent<T>): void {
    const obj = event.object;
    if (event.type === "ERROR") {
      // The server reports watch failures (410 Gone above all) as an ERROR event carrying a Status.
      const status = obj as unknown as StatusBody;
      throw new ApiError("WATCH", this.basePath(), status.code ?? 500, status);
    }
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === "BOOKMARK") return;
    this.normalise(obj);
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (event.type === "DELETED") {
      this.store.delete(key);
      this.emit("onDelete", obj);
      return;
    }
    this.store.set(key, obj);
    if (old) this.emit("onUpdate", old, obj);
    else this.emit("onAdd", obj);
  }

  /** Self-describing objects without managedFields (often the largest part; no reconciler needs them). */
  private normalise(obj: T): void {
    obj.apiVersion ??= this.mapping.apiVersion;
    obj.kind ??= this.mapping.kind;
    if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  }

  private emit(kind: "onAdd" | "onDelete", obj: T): void;
  private emit(kind: "onUpdate", old: T, obj: T): void;
  private emit(kind: keyof EventHandler<T>, a: T, b?: T): void {
    for (const h of this.handlers) this.call(h, kind, a, b);
  }

  private call(h: EventHandler<T>, kind: keyof EventHandler<T>, a: T, b?: T): void {
    try {
      if (kind === "onUpdate") h.onUpdate?.(a, b as T);
      else h[kind]?.(a);
    } catch (err) {
      this.log.error("event handler failed", err);
    }
  }
}
