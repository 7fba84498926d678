// The controller builder: for (the primary kind), owns (events on a child enqueue its controller
// owner) and watches (any kind, through a handler of handlers.ts or a map function) become
// informer handlers that enqueue keys in the controller's queue. withEventFilter's predicates
// (predicates.ts) filter every watch, each watch's own `predicates` that watch only; events of
// the initial list and resyncs go to the priority queue at low priority.
import type { KubeObjectLike } from "../client/client.js";
import type { EventOrigin, SharedInformer } from "../cache/informer.js";
import { ConfigError } from "../connect/errors.js";
import { type GroupVersionKind, gvkOf, type KindRef, type ObjectKey } from "../connect/mapper.js";
import {
  Controller,
  type ControllerHost,
  type ControllerOptions,
  type Reconciler,
  type ReconcileFunction,
  type Request,
} from "./controller.js";
import {
  enqueueRequestForOwner,
  type EventMapFunction,
  fromObjectMap,
  isWatchHandler,
  KeyDispatcher,
  type WatchHandler,
} from "./handlers.js";
import { type ObjectEvent, type Predicate, generationChanged } from "./predicates.js";
import { LOW_PRIORITY } from "./priority-queue.js";

export { generationChanged, type Predicate };

/** The older map-function form of watches(kind, map): object → keys. */
export type MapFunction = (obj: KubeObjectLike) => ObjectKey | ObjectKey[] | undefined | null;

export interface WatchOptions {
  /**
   * Watch and cache only metadata (PartialObjectMetadata: no spec, no status). Less memory and
   * traffic; the client's get/list of this kind then return metadata-only objects too.
   */
  metadataOnly?: boolean;
  /** Events of this watch that fail any of these are dropped (after withEventFilter's). */
  predicates?: Predicate[];
  /**
   * The kind's CRD may be missing, or come and go (docs/runtime.md, "CRDs that come and go"): the
   * controller runs, and this source joins when the CRD is established. Needs get, list, watch on
   * customresourcedefinitions (`tsop generate` adds the rule).
   */
  optional?: boolean;
}

/** Options of the primary kind: manager.controller(kind, { predicates }). */
export interface ForOptions {
  /** Events on the primary kind that fail any of these are dropped (after withEventFilter's). */
  predicates?: Predicate[];
  /**
   * The primary kind's CRD may be missing, or come and go: the controller waits for it (readiness
   * names the CRD) instead of failing the manager, reconciles once it is established and waits
   * again when it is deleted. Needs get, list, watch on customresourcedefinitions (`tsop generate`
   * adds the rule). Default false: a kind that is not served fails loudly.
   */
  optional?: boolean;
}

interface Watch {
  kind: KindRef;
  /** A handler (bound at complete()) or the older map function. */
  handler: WatchHandler | MapFunction;
  options: WatchOptions;
  /** An owns(): with sharding, its informer holds only the shard's objects, as the primary's. */
  owned?: boolean;
}

export class ControllerBuilder {
  private name: string | undefined;
  private readonly watchesList: Watch[] = [];
  private options: ControllerOptions = {};
  private predicates: Predicate[] = [];

  constructor(
    private readonly host: ControllerHost,
    private readonly primary: KindRef,
    private readonly forOptions: ForOptions = {},
  ) {}

  /** Controller name (metrics, logs). Default: the primary kind, lowercased. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /**
   * Events on objects of `kind` controlled by a primary object enqueue that primary object
   * (controller-runtime's Owns: enqueueRequestForOwner(primary, { onlyController: true })).
   */
  owns(kind: KindRef, options: WatchOptions = {}): this {
    this.watchesList.push({
      kind,
      handler: enqueueRequestForOwner(this.primary, { onlyController: true }),
      options,
      owned: true,
    });
    return this;
  }

  /**
   * Events on objects of `kind` enqueue what `handler` returns: a handler made by
   * enqueueRequestForOwner or enqueueRequestsFromMapFunc (it sees { type, object, old }), or a
   * map function of the object (called for the new and the old object of an update).
   */
  watches(kind: KindRef, handler: WatchHandler | MapFunction, options: WatchOptions = {}): this {
    if (typeof handler !== "function" && !isWatchHandler(handler))
      throw new ConfigError(`watches(${gvkOf(kind).kind}, …) needs a handler or a map function`, {
        hint: "pass enqueueRequestsFromMapFunc(fn), enqueueRequestForOwner(kind) or (object) => keys",
      });
    this.watchesList.push({ kind, handler, options });
    return this;
  }

  /** Filters the events of every watch of the controller (for, owns, watches), e.g. generationChanged. */
  withEventFilter(...predicates: Predicate[]): this {
    this.predicates.push(...predicates);
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /** Builds the controller and registers it with the manager. */
  async complete(reconciler: Reconciler | ReconcileFunction): Promise<Controller> {
    const rec: Reconciler = typeof reconciler === "function" ? { reconcile: reconciler } : reconciler;
    const gvk: GroupVersionKind = gvkOf(this.primary);
    const name = this.name ?? gvk.kind.toLowerCase();
    const controller = new Controller(name, rec, this.host, this.options, this.primary);
    const global = this.predicates;
    const forPredicates = this.forOptions.predicates ?? [];
    // Resolve every handler first: a bad owner kind fails here, before any informer handler is added.
    const watches: Array<{ watch: Watch; map: EventMapFunction }> = [];
    for (const watch of this.watchesList) {
      const map = isWatchHandler(watch.handler)
        ? await watch.handler.bind({ mapper: this.host.client.mapper })
        : fromObjectMap(watch.handler);
      watches.push({ watch, map });
    }
    controller.primarySource = await this.attach(
      controller,
      this.primary,
      { optional: this.forOptions.optional },
      ({ object }) => requestOf(object),
      [...global, ...forPredicates],
      "primary",
    );
    for (const { watch, map } of watches)
      await this.attach(
        controller,
        watch.kind,
        watch.options,
        map,
        [...global, ...(watch.options.predicates ?? [])],
        watch.owned ? "owned" : undefined,
      );
    this.host.register(controller);
    return controller;
  }

  /**
   * Adds one watch's handler to its kind's informer: predicates, then the handler's keys, enqueued
   * in event order. Objects of the initial list (delivered before the informer synced, or replayed
   * to this handler when it is added to a synced informer) and resyncs (updates that did not change
   * the resourceVersion) are enqueued at LOW_PRIORITY, everything else at the default 0.
   * Resyncs (old === object) bypass predicates.
   */
  private async attach(
    controller: Controller,
    kind: KindRef,
    options: WatchOptions,
    map: EventMapFunction,
    predicates: Predicate[],
    shardRole?: "primary" | "owned",
  ): Promise<SharedInformer> {
    const informer = await this.host.informerFor(kind, {
      metadataOnly: options.metadataOnly,
      optional: options.optional,
      ...(shardRole ? { shardRole } : {}),
    });
    const kindName = gvkOf(kind).kind;
    const log = this.host.logger.named("controller").child({ controller: controller.name, kind: kindName });
    const report = (err: unknown, event: ObjectEvent) => {
      log.error("watch handler failed; the event enqueued nothing", err, {
        event: event.type,
        object: keyOf(event.object),
      });
      this.host.metrics.watchHandlerErrors.inc({ controller: controller.name, kind: kindName });
    };
    const dispatcher = new KeyDispatcher(
      map,
      (key, priority) => controller.enqueue({ namespace: key.namespace ?? "", name: key.name }, priority),
      report,
    );
    const deliver = (event: ObjectEvent, priority: number | undefined, filter: boolean) => {
      try {
        if (filter && !predicates.every((p) => p(event))) return;
      } catch (err) {
        report(err, event);
        return;
      }
      dispatcher.dispatch(event, priority);
    };
    // An event the controller's own write caused (only from the watch: a list may fold in others'),
    // decided once this controller's writes of the object in flight are answered (own-writes.ts);
    // later events of the object wait behind it, so their order holds.
    const kindKey = `${informer.mapping.apiVersion}/${informer.mapping.kind}`;
    const ownWrites = this.host.ownWrites;
    const unlessOwn = (
      old: KubeObjectLike | undefined,
      obj: KubeObjectLike,
      origin: EventOrigin | undefined,
      send: () => void,
    ) => {
      if (!ownWrites || ownWrites.mode === "none") return send();
      ownWrites.whenAnswered(kindKey, obj, () => {
        if (origin !== "watch" || !ownWrites.isOwn(controller.name, kindKey, old, obj)) return send();
        this.host.metrics.ownWriteEventsSkipped.inc({ controller: controller.name, kind: kindName });
      });
    };
    let replaying = true;
    informer.addHandler({
      onAdd: (obj, origin) => {
        const priority = replaying || !informer.hasSynced() ? LOW_PRIORITY : undefined;
        unlessOwn(undefined, obj, origin, () => deliver({ type: "create", object: obj }, priority, true));
      },
      onUpdate: (old, obj, origin) => {
        const priority = resourceVersionOf(old) === resourceVersionOf(obj) ? LOW_PRIORITY : undefined;
        unlessOwn(old, obj, origin, () =>
          deliver({ type: "update", object: obj, old }, priority, old !== obj),
        );
      },
      // A delete is never an own write's event; it only keeps its place behind parked events.
      onDelete: (obj) =>
        unlessOwn(undefined, obj, undefined, () => deliver({ type: "delete", object: obj }, undefined, true)),
    });
    replaying = false;
    return informer;
  }
}

function metaOf(obj: KubeObjectLike): { namespace?: string; name?: string; resourceVersion?: string } {
  return (obj.metadata ?? {}) as never;
}

function resourceVersionOf(obj: KubeObjectLike): string | undefined {
  return metaOf(obj).resourceVersion;
}

function keyOf(obj: KubeObjectLike): string {
  const m = metaOf(obj);
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? "");
}

function requestOf(obj: KubeObjectLike): Request {
  const m = metaOf(obj);
  return { namespace: m.namespace ?? "", name: m.name ?? "" };
}
