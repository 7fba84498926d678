// Event handlers: what an event on a watched object enqueues (controller-runtime's pkg/handler,
// camelCased). `watches(kind, handler)` takes one made here: enqueueRequestForOwner(ownerKind)
// (the owners of the object, of any kind) or enqueueRequestsFromMapFunc(fn) (whatever fn returns
// for the event; fn may be async). A plain function passed to watches() is the older map-function
// form (object → keys); the two are told apart by a brand only these factories set.
// KeyDispatcher delivers the keys of successive events in event order even when some come from
// Promises, and turns a failing handler into a log line and a metric, never an informer crash.
import type { KubeObjectLike } from "../client/client.js";
import { gvkOf, type KindRef, type ObjectKey, type RestMapper, splitApiVersion } from "../connect/mapper.js";
import type { ObjectEvent } from "./predicates.js";

/** What a handler returns: one key, several, or none. */
export type WatchKeys = ObjectKey | ObjectKey[] | undefined | null;

/** A map function of enqueueRequestsFromMapFunc: the event → keys (or a Promise of them). */
export type EventMapFunction = (event: ObjectEvent) => WatchKeys | Promise<WatchKeys>;

const BRAND = Symbol.for("tsop.watchHandler");

/** What a handler needs when the controller is built. */
export interface HandlerContext {
  mapper: RestMapper;
}

/**
 * An event handler for watches(kind, handler) (controller-runtime's handler.EventHandler). Make
 * one with enqueueRequestForOwner or enqueueRequestsFromMapFunc.
 */
export interface WatchHandler {
  readonly [BRAND]: true;
  /** Shown in logs. */
  readonly description: string;
  /** Resolves what the handler needs (e.g. the owner kind's scope) and returns the event → keys function. */
  bind(context: HandlerContext): Promise<EventMapFunction>;
}

/** Whether `value` is a handler made by enqueueRequestForOwner / enqueueRequestsFromMapFunc. */
export function isWatchHandler(value: unknown): value is WatchHandler {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function handler(description: string, bind: WatchHandler["bind"]): WatchHandler {
  return Object.freeze({ [BRAND]: true as const, description, bind });
}

/**
 * Enqueues whatever `fn` returns for the event (EnqueueRequestsFromMapFunc). `fn` sees
 * `{ type, object, old }` and may return a Promise (e.g. after a cached list or an index lookup).
 * It is called once per event: on an update, return the keys for `old` too when the mapping
 * depends on something that can change (controller-runtime maps old and new separately).
 */
export function enqueueRequestsFromMapFunc(fn: EventMapFunction): WatchHandler {
  return handler(`enqueueRequestsFromMapFunc(${fn.name || "anonymous"})`, () => Promise.resolve(fn));
}

export interface EnqueueForOwnerOptions {
  /** Only the controller owner (ownerReferences[].controller); default false: every owner of that kind. */
  onlyController?: boolean;
}

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  controller?: boolean;
}

function ownerRefs(obj: KubeObjectLike | undefined): OwnerRef[] {
  return ((obj?.metadata as { ownerReferences?: OwnerRef[] } | undefined)?.ownerReferences ?? []).filter(
    (r) => r && typeof r.name === "string",
  );
}

/**
 * Enqueues the owners of `ownerKind` named in the object's ownerReferences (and, on an update,
 * in the old object's), matched by group and kind whatever their version
 * (EnqueueRequestForOwner). With `onlyController`, only the controller owner.
 */
export function enqueueRequestForOwner(
  ownerKind: KindRef,
  options: EnqueueForOwnerOptions = {},
): WatchHandler {
  const owner = gvkOf(ownerKind);
  const group = splitApiVersion(owner.apiVersion).group;
  return handler(`enqueueRequestForOwner(${owner.kind})`, async ({ mapper }) => {
    const namespaced = (await mapper.mapping(ownerKind)).namespaced;
    const ownersOf = (obj: KubeObjectLike | undefined): ObjectKey[] =>
      ownerRefs(obj)
        .filter(
          (r) =>
            (!options.onlyController || r.controller === true) &&
            r.kind === owner.kind &&
            splitApiVersion(r.apiVersion ?? "").group === group,
        )
        .map((r) => ({
          // A cluster-scoped owner (e.g. a cluster-wide CR owning namespaced children) has no namespace.
          namespace: namespaced ? ((obj?.metadata as { namespace?: string }).namespace ?? "") : "",
          name: r.name,
        }));
    return ({ object, old }) => [...ownersOf(object), ...(old && old !== object ? ownersOf(old) : [])];
  });
}

/** The older watches(kind, map) form: map(object), and on a real update map(old) too. */
export function fromObjectMap(map: (obj: KubeObjectLike) => WatchKeys): EventMapFunction {
  return ({ object, old }) => {
    const keys = asArray(map(object));
    return old && old !== object ? [...keys, ...asArray(map(old))] : keys;
  };
}

export function asArray(keys: WatchKeys): ObjectKey[] {
  return keys ? (Array.isArray(keys) ? keys : [keys]) : [];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Runs a watch's handler on each event and enqueues its keys in event order: a synchronous answer
 * goes straight to the queue unless earlier asynchronous answers are still pending, in which case
 * it waits its turn behind them. Handlers run at once (lookups overlap); only delivery is ordered.
 * A handler that throws or rejects costs that event's keys only: `onError` logs and counts it.
 */
export class KeyDispatcher {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(
    private readonly map: EventMapFunction,
    private readonly enqueue: (key: ObjectKey, priority: number | undefined) => void,
    private readonly onError: (err: unknown, event: ObjectEvent) => void,
  ) {}

  dispatch(event: ObjectEvent, priority?: number): void {
    let result: WatchKeys | Promise<WatchKeys>;
    try {
      result = this.map(event);
    } catch (err) {
      this.report(err, event);
      return;
    }
    if (!isThenable(result) && this.pending === 0) {
      this.deliver(result, priority);
      return;
    }
    this.pending += 1;
    const answer = Promise.resolve(result);
    answer.catch(() => {}); // handled in turn below; no unhandled rejection meanwhile
    // The chain never rejects, so one failed answer never stops the ones after it.
    this.tail = this.tail.then(async () => {
      try {
        this.deliver(await answer, priority);
      } catch (err) {
        this.report(err, event);
      } finally {
        this.pending -= 1;
      }
    });
  }

  /** Resolves once every pending asynchronous answer has been delivered (tests, shutdown). */
  settled(): Promise<void> {
    return this.tail;
  }

  private report(err: unknown, event: ObjectEvent): void {
    try {
      this.onError(err, event);
    } catch {
      // a failing error reporter must not break the chain
    }
  }

  private deliver(keys: WatchKeys, priority: number | undefined): void {
    const seen = new Set<string>();
    for (const key of asArray(keys)) {
      if (!key || typeof key.name !== "string" || key.name === "") continue;
      const id = `${key.namespace ?? ""}/${key.name}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.enqueue(key, priority);
    }
  }
}
