// The controller builder: for (the primary kind), owns (events on a child enqueue its controller
// owner) and watches (any kind through a mapping function) become informer handlers that enqueue
// keys in the controller's queue; predicates filter the primary kind's events.
import type { KubeObjectLike } from "../client/client.js";
import {
  type GroupVersionKind,
  gvkOf,
  type KindRef,
  type ObjectKey,
  splitApiVersion,
} from "../connect/mapper.js";
import {
  Controller,
  type ControllerHost,
  type ControllerOptions,
  type Reconciler,
  type ReconcileFunction,
  type Request,
} from "./controller.js";

export type Predicate = (event: {
  type: "create" | "update" | "delete";
  object: KubeObjectLike;
  old?: KubeObjectLike;
}) => boolean;

/** Skips updates that did not change metadata.generation (status-only updates), like controller-runtime's GenerationChangedPredicate. */
export const generationChanged: Predicate = ({ type, object, old }) =>
  type !== "update" ||
  (old?.metadata as { generation?: number } | undefined)?.generation !==
    (object.metadata as { generation?: number } | undefined)?.generation;

export type MapFunction = (obj: KubeObjectLike) => ObjectKey | ObjectKey[] | undefined | null;

export interface WatchOptions {
  /**
   * Watch and cache only metadata (PartialObjectMetadata: no spec, no status). Less memory and
   * traffic; the client's get/list of this kind then return metadata-only objects too.
   */
  metadataOnly?: boolean;
}

function metaOf(obj: KubeObjectLike): {
  namespace?: string;
  name?: string;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; controller?: boolean }>;
} {
  return (obj.metadata ?? {}) as never;
}

export class ControllerBuilder {
  private name: string | undefined;
  private readonly watchesList: Array<{
    kind: KindRef;
    map: (obj: KubeObjectLike) => ObjectKey[];
    options: WatchOptions;
  }> = [];
  private options: ControllerOptions = {};
  private predicates: Predicate[] = [];
  private primaryNamespaced = true;

  constructor(
    private readonly host: ControllerHost,
    private readonly primary: KindRef,
  ) {}

  /** Controller name (metrics, logs). Default: the primary kind, lowercased. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** Events on objects of `kind` controlled by a primary object enqueue that primary object. */
  owns(kind: KindRef, options: WatchOptions = {}): this {
    const owner = gvkOf(this.primary);
    const ownerGroup = splitApiVersion(owner.apiVersion).group;
    this.watchesList.push({
      kind,
      map: (obj) => {
        const m = metaOf(obj);
        const ref = (m.ownerReferences ?? []).find(
          (r) => r.controller && r.kind === owner.kind && splitApiVersion(r.apiVersion).group === ownerGroup,
        );
        // A cluster-scoped owner (e.g. a cluster-wide CR owning namespaced children) has no namespace.
        return ref ? [{ namespace: this.primaryNamespaced ? m.namespace : "", name: ref.name }] : [];
      },
      options,
    });
    return this;
  }

  /** Events on objects of `kind` enqueue the requests `map` returns. */
  watches(kind: KindRef, map: MapFunction, options: WatchOptions = {}): this {
    this.watchesList.push({
      kind,
      map: (obj) => {
        const out = map(obj);
        return out ? (Array.isArray(out) ? out : [out]) : [];
      },
      options,
    });
    return this;
  }

  /** Filters events on the primary kind (e.g. generationChanged). */
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
    const primary = await this.host.informerFor(this.primary);
    this.primaryNamespaced = primary.mapping.namespaced;
    const predicates = this.predicates;
    const pass = (event: Parameters<Predicate>[0]) => predicates.every((p) => p(event));
    primary.addHandler({
      onAdd: (obj) => pass({ type: "create", object: obj }) && controller.enqueue(requestOf(obj)),
      onUpdate: (old, obj) =>
        (old === obj || pass({ type: "update", object: obj, old })) && controller.enqueue(requestOf(obj)),
      onDelete: (obj) => pass({ type: "delete", object: obj }) && controller.enqueue(requestOf(obj)),
    });
    for (const w of this.watchesList) {
      const informer = await this.host.informerFor(w.kind, { metadataOnly: w.options.metadataOnly });
      const enqueueAll = (obj: KubeObjectLike) => {
        for (const key of w.map(obj)) controller.enqueue({ namespace: key.namespace ?? "", name: key.name });
      };
      informer.addHandler({
        onAdd: enqueueAll,
        onUpdate: (old, obj) => {
          enqueueAll(obj);
          if (old !== obj) enqueueAll(old);
        },
        onDelete: enqueueAll,
      });
    }
    this.host.register(controller);
    return controller;
  }
}

function requestOf(obj: KubeObjectLike): Request {
  const m = metaOf(obj);
  return { namespace: m.namespace ?? "", name: m.name ?? "" };
}
