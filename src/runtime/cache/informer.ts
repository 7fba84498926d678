// Informer: keeps an in-memory copy of one resource in sync and tells handlers what changed.
// Loop: initial list → watch from the list's resourceVersion with bookmarks and a bounded lifetime
// (timeoutSeconds, randomised) → re-watch from the last seen version when the server ends it.
// The first list asks for resourceVersion="0" (served whole from the API server's watch cache, as
// client-go's reflector does); a relist after 410 Gone is a consistent, paged list (diffed against
// the cache, so deletes missed meanwhile are still delivered). With `watchList`, the initial state
// arrives instead as the first events of one watch (sendInitialEvents), falling back to a list when
// the server refuses it. Every object passes through `transform` before it is cached.
// Errors → reconnect with jittered exponential backoff. A watchdog aborts a watch that stays silent
// past its lifetime (wedged connection), and health() reports an informer that stopped making
// progress, so the liveness probe can restart a stuck process. The loop never exits until stop().
import { type RetryPolicy, retryDelay } from "../../common/retry.js";
import { ApiError, isGone, type StatusBody } from "../connect/errors.js";
import type { Logger } from "../log/logger.js";
import { type ResourceMapping, resourcePath } from "../connect/mapper.js";
import type { RuntimeMetrics } from "../metrics/metrics.js";
import type { RestClient, WatchEvent } from "../connect/rest.js";
import type { ObjectMeta } from "../schema.js";
import { selectorString } from "../client/client.js";
import { type CacheTransform, defaultTransform, toPartialObjectMetadata } from "./transform.js";

export interface InformerObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/**
 * Where an event comes from: "watch" (one change, in order: every change of an object passes), or
 * "list" (a diff of the cache against a list, which may fold several changes into one; the initial
 * list, a relist after a watch gap, a periodic resync).
 */
export type EventOrigin = "watch" | "list";

export interface EventHandler<T> {
  onAdd?(obj: T, origin?: EventOrigin): void;
  /** Also called on periodic resync with old === new. */
  onUpdate?(oldObj: T, newObj: T, origin?: EventOrigin): void;
  onDelete?(obj: T, origin?: EventOrigin): void;
}

export interface InformerOptions {
  /** Watch one namespace; omit for all. */
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /** Re-deliver every cached object as an update about this often (ms, ±10 % jitter); 0 disables. Default 10 h. */
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
  /** Applied to every listed or watched object before it is cached. Default: defaultTransform. */
  transform?: CacheTransform;
  /** Cache metadata only (PartialObjectMetadata answers: no spec, no status). Default false. */
  metadataOnly?: boolean;
  /** Initial state through a WatchList stream; a server that refuses it gets list+watch. Default false. */
  watchList?: boolean;
  logger: Logger;
  metrics?: RuntimeMetrics;
  /** Told of every list or watch failure (410 Gone aside) and how many came in a row; may stop(). */
  onError?: (err: unknown, failures: number) => void;
}

/** What the cache passes to every informer it creates. */
export type InformerSettings = Omit<
  InformerOptions,
  "namespace" | "labelSelector" | "fieldSelector" | "transform" | "metadataOnly" | "watchList"
>;

export interface InformerHealth {
  resource: string;
  synced: boolean;
  healthy: boolean;
  /** Why it is unhealthy, or the last error seen. */
  detail?: string;
}

class WatchAborted extends Error {}

/** The annotation of the BOOKMARK that ends a WatchList stream's initial events. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

const PARTIAL_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const PARTIAL_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** The server sent something that shows it does not speak WatchList (it ignored sendInitialEvents). */
class WatchListUnsupported extends Error {}

export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name}` : (obj.metadata?.name ?? "");
}

/** What controllers and the cache use of an informer (one per kind, or one per cached namespace). */
export interface SharedInformer<T extends InformerObject = InformerObject> {
  readonly mapping: ResourceMapping;
  readonly resource: string;
  /** The namespaces it caches; undefined: all. */
  readonly namespaces: readonly string[] | undefined;
  addHandler(handler: EventHandler<T>): void;
  start(): void;
  stop(): Promise<void>;
  hasSynced(): boolean;
  waitForSync(): Promise<void>;
  /** The cached object itself (not a copy: do not modify it). */
  get(key: { namespace?: string; name: string }): T | undefined;
  /** The cached objects themselves (not copies), in no particular order. */
  list(): T[];
  health(now?: number): InformerHealth;
  /** The last list or watch failure, until a watch succeeds (names the kind's 403, 5xx, …). */
  lastError(): Error | undefined;
  isStarted(): boolean;
  /**
   * An optional kind whose CRD is not served: what it waits for (e.g. "CRD widgets.example.com
   * (example.com/v1 Widget): no CRD defines it"); undefined while served, and for other informers.
   */
  waitingFor?(): string | undefined;
}

/**
 * The delay before the next periodic resync: the period × [0.9, 1.1), drawn each time, as
 * controller-runtime's cache does, so informers started together do not resync in lock-step.
 */
export function jitteredResyncDelay(periodMs: number, random: () => number = Math.random): number {
  return Math.floor(periodMs * (0.9 + random() / 5));
}

export class Informer<T extends InformerObject = InformerObject> implements SharedInformer<T> {
  private readonly store = new Map<string, T>();
  private readonly handlers: EventHandler<T>[] = [];
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  private resourceVersion = "";
  private lastProgress = Date.now();
  private failure: Error | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private sleepTimer: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  private currentWatch: AbortController | undefined;
  /** Objects of a WatchList stream's initial events, until its closing bookmark. */
  private initial: Map<string, T> | undefined;
  /** Set once the server refused a WatchList request: list+watch from then on. */
  private watchListRefused = false;
  /** Whether the last WatchList stream delivered all its initial events. */
  private initialDone = false;
  private listedOnce = false;
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
    if (this.synced) for (const obj of this.store.values()) this.call(handler, "list", "onAdd", obj);
  }

  get namespaces(): readonly string[] | undefined {
    return this.options.namespace && this.mapping.namespaced ? [this.options.namespace] : undefined;
  }

  isStarted(): boolean {
    return this.loop !== undefined;
  }

  start(): void {
    if (this.loop) return;
    this.lastProgress = Date.now();
    this.loop = this.run();
    this.scheduleResync();
  }

  private scheduleResync(): void {
    const period = this.options.resyncPeriodMs ?? 10 * 3600_000;
    if (period <= 0 || this.abort.signal.aborted) return;
    this.resyncTimer = setTimeout(() => {
      this.resync();
      this.scheduleResync();
    }, jitteredResyncDelay(period));
    this.resyncTimer.unref?.();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.resyncTimer);
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
    const last = this.failure?.message;
    const detail = healthy
      ? last
      : `no list/watch progress for ${Math.round(silent / 1000)} s${last ? ` (last error: ${last})` : ""}`;
    return { resource: this.resource, synced: this.synced, healthy, ...(detail ? { detail } : {}) };
  }

  lastError(): Error | undefined {
    return this.failure;
  }

  /** Re-delivers every cached object as an update (periodic resync). */
  resync(): void {
    if (!this.synced) return;
    for (const obj of this.store.values()) this.emit("list", "onUpdate", obj, obj);
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
        let initial = false;
        if (needList && this.options.watchList && !this.watchListRefused) {
          initial = true; // the watch below starts with the whole state
        } else if (needList) {
          await this.relist();
          needList = false;
          failures = 0;
          this.failure = undefined; // listed: the error is over (a watch error will say otherwise)
          if (this.abort.signal.aborted) break; // a handler stopped the informer
        }
        const outcome = await this.watchOnce(initial);
        // A WatchList stream cut (wedged) before its initial events were complete: start over.
        if (initial && this.initialDone) needList = false;
        this.failure = undefined;
        if (outcome === "quick" || needList) failures += 1;
        else failures = 0;
        this.options.metrics?.watchRestarts.inc({
          resource: this.resource,
          reason: outcome === "wedged" ? "wedged" : "timeout",
        });
        if (outcome === "wedged") this.log.warn("watch stalled; reconnecting");
      } catch (err) {
        if (this.abort.signal.aborted) break;
        if (needList && this.refusesWatchList(err)) continue;
        if (isGone(err)) {
          this.log.info("watch resourceVersion too old (410 Gone); relisting");
          this.options.metrics?.watchRestarts.inc({ resource: this.resource, reason: "gone" });
          needList = true;
          this.resourceVersion = "";
          continue;
        }
        failures += 1;
        this.failure = err instanceof Error ? err : new Error(String(err));
        this.options.metrics?.watchRestarts.inc({ resource: this.resource, reason: "error" });
        if (needList)
          this.options.metrics?.listErrors.inc({
            resource: this.resource,
            code: err instanceof ApiError ? String(err.status) : "<error>",
          });
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

  /**
   * Falls back to list+watch when the server refused a WatchList request: a 4xx answer (422 when
   * its WatchList feature gate is off; 400/403 from proxies and older servers) or a stream that
   * ignored sendInitialEvents. Returns whether it did.
   */
  private refusesWatchList(err: unknown): boolean {
    if (!this.options.watchList || this.watchListRefused) return false;
    const refused =
      err instanceof WatchListUnsupported ||
      (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 410);
    if (!refused) return false;
    this.watchListRefused = true;
    this.initial = undefined;
    this.log.info("the server does not serve WatchList streams; using list+watch", {
      err: (err as Error).message,
    });
    return true;
  }

  /**
   * The first list asks for resourceVersion "0": the API server answers it from its watch cache,
   * whole (the cache ignores limit then), as client-go's reflector's first list. A relist after
   * 410 Gone must not go back in time, so it is a consistent read (no resourceVersion), in pages.
   * Either way, pages are followed while the server sends a continue token.
   */
  private async relist(): Promise<void> {
    const items = new Map<string, T>();
    let cont: string | undefined;
    let rv = "";
    const resourceVersion = this.listedOnce ? undefined : "0";
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
          resourceVersion: cont ? undefined : resourceVersion,
        },
        signal: this.abort.signal,
        timeoutMs: 60_000,
        accept: this.options.metadataOnly ? PARTIAL_LIST_ACCEPT : undefined,
      });
      this.progress();
      for (const raw of page.items ?? []) {
        const item = this.normalise(raw);
        items.set(objectKey(item), item);
      }
      cont = page.metadata?.continue || undefined;
      rv = page.metadata?.resourceVersion ?? rv;
    } while (cont);
    this.listedOnce = true;
    this.options.metrics?.relists.inc({ resource: this.resource });
    this.replace(items, rv);
  }

  /** Replaces the cache, telling handlers exactly what differs (deletes included); marks it synced. */
  private replace(items: Map<string, T>, rv: string): void {
    const previous = new Map(this.store);
    this.store.clear();
    for (const [key, obj] of items) {
      this.store.set(key, obj);
      const old = previous.get(key);
      if (!old) this.emit("list", "onAdd", obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
        this.emit("list", "onUpdate", old, obj);
    }
    for (const [key, old] of previous) if (!items.has(key)) this.emit("list", "onDelete", old);
    this.resourceVersion = rv;
    this.log.debug("listed", { count: items.size, resourceVersion: rv });
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /**
   * One watch until the server ends it: "normal", "quick" (ended at once, empty), or "wedged".
   * `initial`: a WatchList stream, whose first events are the whole state up to a closing bookmark.
   */
  private async watchOnce(initial = false): Promise<"normal" | "quick" | "wedged"> {
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
      this.initial = initial ? new Map() : undefined;
      this.initialDone = false;
      const stream = this.rest.watch<T>(
        this.basePath(),
        {
          resourceVersion: initial ? undefined : this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: timeout,
          labelSelector: selectorString(this.options.labelSelector),
          fieldSelector: this.options.fieldSelector,
          ...(initial ? { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" } : {}),
        },
        controller.signal,
        () => {
          arm();
          this.progress();
        },
        this.options.metadataOnly ? PARTIAL_ACCEPT : undefined,
      );
      for await (const event of stream) {
        events += 1;
        this.handle(event);
      }
      if (this.initial) throw new Error("the WatchList stream ended before its initial events were complete");
    } catch (err) {
      this.initial = undefined;
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
    if (this.initial) {
      this.handleInitial(event);
      return;
    }
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (event.type === "BOOKMARK") return;
    this.apply(event.type, this.normalise(obj));
  }

  /** A WatchList stream's initial events: collected until the closing bookmark, then cached at once. */
  private handleInitial(event: WatchEvent<T>): void {
    const initial = this.initial!;
    if (event.type === "BOOKMARK") {
      const annotations = event.object.metadata?.annotations ?? {};
      // A server that ignored sendInitialEvents sends plain bookmarks: it does not speak WatchList.
      if (annotations[INITIAL_EVENTS_END] !== "true")
        throw new WatchListUnsupported("a bookmark arrived before the end of the initial events");
      this.initial = undefined;
      this.initialDone = true;
      this.options.metrics?.relists.inc({ resource: this.resource });
      this.replace(initial, event.object.metadata?.resourceVersion ?? "");
      return;
    }
    const obj = this.normalise(event.object);
    if (event.type === "DELETED") initial.delete(objectKey(obj));
    else initial.set(objectKey(obj), obj);
  }

  private apply(type: "ADDED" | "MODIFIED" | "DELETED", obj: T): void {
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (type === "DELETED") {
      this.store.delete(key);
      this.emit("watch", "onDelete", obj);
      return;
    }
    this.store.set(key, obj);
    if (old) this.emit("watch", "onUpdate", old, obj);
    else this.emit("watch", "onAdd", obj);
  }

  /** Self-describing objects (metadata-only ones as PartialObjectMetadata), then the cache transform. */
  private normalise(raw: T): T {
    let obj = raw;
    if (this.options.metadataOnly) obj = toPartialObjectMetadata(obj);
    else {
      obj.apiVersion ??= this.mapping.apiVersion;
      obj.kind ??= this.mapping.kind;
    }
    return (this.options.transform ?? defaultTransform)(obj);
  }

  private emit(origin: EventOrigin, kind: "onAdd" | "onDelete", obj: T): void;
  private emit(origin: EventOrigin, kind: "onUpdate", old: T, obj: T): void;
  private emit(origin: EventOrigin, kind: keyof EventHandler<T>, a: T, b?: T): void {
    for (const h of this.handlers) this.call(h, origin, kind, a, b);
  }

  private call(h: EventHandler<T>, origin: EventOrigin, kind: keyof EventHandler<T>, a: T, b?: T): void {
    try {
      if (kind === "onUpdate") h.onUpdate?.(a, b as T, origin);
      else h[kind]?.(a, origin);
    } catch (err) {
      this.log.error("event handler failed", err);
    }
  }
}
