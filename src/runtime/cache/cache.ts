// The manager's cache: one shared informer per kind (per cached namespace), and the reads the
// default client serves from it. As controller-runtime's client: reads of a kind the manager
// watches come from its informer (copies, so a reconciler cannot corrupt the cache), writes go to
// the server, whose optimistic concurrency (409 Conflict) catches a read that was stale. Kinds
// nobody watches are read live by default (or get an informer on first read, per kind).
import {
  LabelSelectorError,
  labelsMatch,
  parseLabelSelector,
  splitSelectorTerms,
} from "../../common/label-selector.js";
import type { CacheReader, KubeObjectLike, ListOptions, ReadOptions } from "../client/client.js";
import { selectorString } from "../client/client.js";
import { markTransformedCopy } from "../client/cache-copies.js";
import { ConfigError, NoKindMatchError } from "../connect/errors.js";
import {
  Informer,
  type InformerObject,
  type InformerOptions,
  type InformerSettings,
  objectKey,
  type SharedInformer,
} from "./informer.js";
import {
  type GroupVersionKind,
  gvkOf,
  type KindRef,
  type ObjectKey,
  type RestMapper,
  type ResourceMapping,
  splitApiVersion,
} from "../connect/mapper.js";
import { NamespacedInformers } from "./namespaced-informer.js";
import { CrdWatch } from "./crd-watch.js";
import { CrdGatedInformer } from "./crd-gated-informer.js";
import { type NamespaceSelector, NamespaceWatch, namespaceSelectorString } from "./namespace-watch.js";
import { SelectedNamespaceInformers } from "./selected-namespace-informers.js";
import { FieldIndexes, hasMatchingFields, type IndexFunction } from "./field-index.js";
import type { RestClient } from "../connect/rest.js";
import type { ObservedWrite, WriteObserver } from "../client/write-observer.js";
import { WrittenOverlay } from "./written-overlay.js";
import { type OwnWriteEvents, OwnWrites } from "./own-writes.js";
import {
  type CacheTransform,
  chainTransforms,
  defaultTransform,
  toPartialObjectMetadata,
} from "./transform.js";

/** How reads of a kind no controller watches are served. */
export type UnwatchedReads = "live" | "informer";

/** Cache settings of one kind (ManagerOptions.cache.byKind). */
export interface CacheKindOptions {
  kind: KindRef;
  /** Cache only objects with these labels (reads see nothing else). */
  labelSelector?: string | Record<string, string>;
  /** Cache only objects matching this field selector. */
  fieldSelector?: string;
  /** Cache only these namespaces (one informer each); overrides the manager-wide list. */
  namespaces?: string[];
  /** Runs after the default and the cache-wide transform (copies of the kind: see CacheOptions.transform). */
  transform?: CacheTransform;
  /** How reads of this kind are served while nothing watches it. Default: cache.unwatched. */
  unwatched?: UnwatchedReads;
}

export interface CacheOptions {
  /** Reads of kinds no controller watches: "live" (default) or "informer" (start one on first read). */
  unwatched?: UnwatchedReads;
  /** Per-kind selectors, namespaces, transforms. */
  byKind?: CacheKindOptions[];
  /** Kinds always read from the server, watched or not. */
  disableFor?: KindRef[];
  /** Cache only these namespaces (one informer per namespace). Default: ManagerOptions.namespace, else all. */
  namespaces?: string[];
  /**
   * Cache only the namespaces whose labels match (e.g. `{ matchLabels: { "tsop.io/watched": "true" } }`),
   * following them as they change: a namespace that appears or gains the labels gets its informers,
   * one that loses them or is deleted loses them (its objects leave the cache, nothing is
   * reconciled for them). Needs list and watch on namespaces. Not with `namespaces`.
   */
  namespaceSelector?: NamespaceSelector;
  /**
   * Runs on every cached object after the default transform (which drops only managedFields). A
   * kind with a transform of the user's hands out copies client.update refuses (patch them instead).
   */
  transform?: CacheTransform;
  /** Initial state of informers through a WatchList stream (falls back to list+watch). Default false. */
  watchList?: boolean;
  /**
   * After a write through the manager's client succeeds, reads of that object from the cache see at
   * least that write until the informer catches up (no live GET). Default true.
   */
  readYourOwnWrites?: boolean;
  /**
   * Which watch events caused by a controller's own writes do not enqueue that controller again
   * (own-writes.ts): "status" (default), "all", or "none" (every event enqueues).
   */
  ownWriteEvents?: OwnWriteEvents;
  /**
   * Set by the manager with sharding (`shard.tsop.io/<ring>=<identity>`): added to the label selector
   * of the primary and owned kinds' informers (InformerRequest.shardRole). Not for users.
   */
  shardSelector?: string;
}

export type { InformerSettings } from "./informer.js";

export interface InformerRequest {
  /** Cache metadata only (PartialObjectMetadata). */
  metadataOnly?: boolean;
  /**
   * The kind's CRD may be missing, or come and go: the informer waits for it (crd-gated-informer.ts)
   * instead of failing. Decided by the request that creates the kind's informer.
   */
  optional?: boolean;
  /**
   * With sharding (cache.shardSelector set): the kind is a controller's primary or owned kind, so
   * its informer holds only this replica's shard. Decided by the request that creates the informer.
   */
  shardRole?: "primary" | "owned";
}

function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.apiVersion}/${gvk.kind}`;
}

export class Cache implements CacheReader, WriteObserver {
  private readonly informers = new Map<string, Promise<SharedInformer>>();
  private readonly byKind = new Map<string, CacheKindOptions>();
  private readonly disabled: Set<string>;
  private started = false;
  private readonly indexes = new FieldIndexes();
  private readonly written = new WrittenOverlay();
  /** Writes each controller made, to recognise the events they cause (ownWriteEvents). */
  readonly ownWrites: OwnWrites;
  /** CRDs, watched once some optional kind needs them. */
  private readonly crds: CrdWatch;
  /** The namespaces namespaceSelector selects (when set). */
  private readonly namespaceWatch: NamespaceWatch | undefined;
  /** Kinds whose informers select the shard (gvkKey), with sharding. */
  private readonly sharded = new Set<string>();
  /** With sharding: labels a child created through the client with its controller owner's shard. */
  prepareCreate: (<T extends KubeObjectLike>(obj: T) => T) | undefined;

  constructor(
    private readonly rest: RestClient,
    private readonly mapper: RestMapper,
    private readonly options: CacheOptions,
    private readonly settings: InformerSettings,
  ) {
    for (const entry of options.byKind ?? []) {
      const key = gvkKey(gvkOf(entry.kind));
      if (this.byKind.has(key))
        throw new ConfigError(`cache.byKind lists ${key} twice`, { hint: "give each kind one entry" });
      this.byKind.set(key, entry);
    }
    this.disabled = new Set((options.disableFor ?? []).map((k) => gvkKey(gvkOf(k))));
    this.ownWrites = new OwnWrites(options.ownWriteEvents ?? "status");
    this.crds = new CrdWatch(rest, settings);
    if (options.namespaceSelector !== undefined) {
      if (options.namespaces?.length)
        throw new ConfigError("cache.namespaces and cache.namespaceSelector are both set", {
          hint: "choose one: a fixed list of namespaces (cache.namespaces, --namespace, WATCH_NAMESPACE) or the namespaces whose labels match (cache.namespaceSelector)",
        });
      this.namespaceWatch = new NamespaceWatch(
        rest,
        namespaceSelectorString(options.namespaceSelector),
        settings,
      );
    }
  }

  /** The shared informer of a kind (created on first use; started with the cache). */
  informerFor(kind: KindRef, request: InformerRequest = {}): Promise<SharedInformer> {
    const gvk = gvkOf(kind);
    const key = `${gvkKey(gvk)}${request.metadataOnly ? "#metadata" : ""}`;
    let informer = this.informers.get(key);
    if (!informer) {
      const made = request.optional
        ? this.optionalMapping(kind).then((known) =>
            this.gated(gvk, known, typeof kind !== "function" && known !== undefined, request),
          )
        : this.mapper.mapping(kind).then((mapping) => this.create(mapping, request));
      informer = made.then((inf) => {
        this.followCatchUp(gvkKey(gvk), inf);
        if (this.started) inf.start();
        return inf;
      });
      informer.catch(() => this.informers.delete(key));
      this.informers.set(key, informer);
    }
    return informer;
  }

  /** An optional kind's mapping if it is known now (its class, or discovery); undefined if not served. */
  private async optionalMapping(kind: KindRef): Promise<ResourceMapping | undefined> {
    try {
      return await this.mapper.mapping(kind);
    } catch (err) {
      if (err instanceof NoKindMatchError) return undefined;
      throw err;
    }
  }

  private gated(
    gvk: GroupVersionKind,
    known: ResourceMapping | undefined,
    discovered: boolean,
    request: InformerRequest,
  ) {
    const kind = { ...gvk, ...splitApiVersion(gvk.apiVersion) };
    const labels = { group: kind.group, version: kind.version, kind: kind.kind };
    const gauge = this.settings.metrics?.waitingForCrd;
    return new CrdGatedInformer(
      kind,
      known,
      discovered,
      this.crds,
      (mapping) => this.create(mapping, request),
      this.settings.logger.named("crd-gate"),
      (waiting) => gauge?.set(labels, waiting ? 1 : 0),
    );
  }

  private create(mapping: ResourceMapping, request: InformerRequest): SharedInformer {
    const kindOptions = this.byKind.get(gvkKey(mapping));
    if (request.shardRole && this.options.shardSelector) this.sharded.add(gvkKey(mapping));
    const labelSelector = this.selectorsOf(mapping).labelSelector;
    const options = (namespace: string | undefined): InformerOptions => ({
      ...this.settings,
      namespace,
      labelSelector,
      fieldSelector: kindOptions?.fieldSelector,
      transform: chainTransforms(defaultTransform, this.options.transform, kindOptions?.transform),
      metadataOnly: request.metadataOnly,
      watchList: this.options.watchList,
    });
    if (mapping.namespaced && !kindOptions?.namespaces && this.namespaceWatch)
      return new SelectedNamespaceInformers(
        mapping,
        this.namespaceWatch,
        (ns) => new Informer(this.rest, mapping, options(ns)),
      );
    const namespaces = mapping.namespaced ? (kindOptions?.namespaces ?? this.options.namespaces) : undefined;
    if (!namespaces || namespaces.length === 0) return new Informer(this.rest, mapping, options(undefined));
    if (namespaces.length === 1) return new Informer(this.rest, mapping, options(namespaces[0]));
    const each = new Map<string, SharedInformer>();
    for (const ns of [...new Set(namespaces)].sort())
      each.set(ns, new Informer(this.rest, mapping, options(ns)));
    return new NamespacedInformers(each);
  }

  /** What the informer delivers supersedes this manager's writes of the same objects. */
  private followCatchUp(kind: string, informer: SharedInformer): void {
    const seen = (obj: InformerObject, deleted: boolean) => {
      this.written.caughtUp(kind, obj, deleted);
      this.ownWrites.caughtUp(kind, obj, deleted);
    };
    informer.addHandler({
      onAdd: (obj) => seen(obj, false),
      onUpdate: (_old, obj) => seen(obj, false),
      onDelete: (obj) => seen(obj, true),
    });
  }

  /** A write through the manager's client is being sent: events of its object wait for its answer. */
  beginWrite(
    mapping: ResourceMapping,
    key: ObjectKey,
    write: { writer: string | undefined; subresource: string | undefined },
  ): () => void {
    const kind = gvkKey(mapping);
    if (!this.informers.has(kind) && !this.informers.has(`${kind}#metadata`)) return () => {};
    return this.ownWrites.beginWrite(kind, objectKey({ metadata: key }), {
      writer: write.writer,
      status: write.subresource === "status",
    });
  }

  /**
   * A write through the manager's client succeeded: remember it for reads (readYourOwnWrites) and
   * for recognising the event it causes (ownWriteEvents). Only kinds the cache holds, and only
   * answers that are the object itself (the main resource or its status).
   */
  observeWrite(write: ObservedWrite): void {
    const kind = gvkKey(write.mapping);
    const result = write.result as InformerObject | undefined;
    if (!result?.metadata?.name) return;
    if (write.subresource && write.subresource !== "status") return;
    if (!this.informers.has(kind) && !this.informers.has(`${kind}#metadata`)) return;
    if (!this.holdsNamespace(write.mapping, result.metadata.namespace)) return;
    if (write.writer)
      this.ownWrites.record(kind, result, {
        writer: write.writer,
        basedOn: write.verb === "create" ? "" : write.basedOn,
        status: write.subresource === "status",
      });
    if (this.options.readYourOwnWrites === false) return;
    const gone = write.verb === "delete" && !(result.metadata.finalizers?.length ?? 0);
    const stillCached = cacheMatcher(this.selectorsOf(write.mapping));
    if (!stillCached) return; // a field selector only the server can evaluate
    if (gone || !stillCached(result)) this.written.removed(kind, result);
    else this.written.wrote(kind, this.transformed(write.mapping, result));
  }

  private holdsNamespace(mapping: ResourceMapping, namespace: string | undefined): boolean {
    if (!mapping.namespaced) return true;
    const byKind = this.byKind.get(gvkKey(mapping))?.namespaces;
    if (!byKind && this.namespaceWatch) return namespace !== undefined && this.namespaceWatch.has(namespace);
    const held = byKind ?? this.options.namespaces;
    return !held || held.length === 0 || (namespace !== undefined && held.includes(namespace));
  }

  private selectorsOf(mapping: ResourceMapping): ListOptions {
    const kindOptions = this.byKind.get(gvkKey(mapping));
    const shard = this.sharded.has(gvkKey(mapping)) ? this.options.shardSelector : undefined;
    const own = selectorString(kindOptions?.labelSelector);
    const labelSelector = shard ? (own ? `${own},${shard}` : shard) : kindOptions?.labelSelector;
    return { labelSelector, fieldSelector: kindOptions?.fieldSelector };
  }

  /** The written object as the informer would cache it. */
  private transformed(mapping: ResourceMapping, obj: InformerObject): InformerObject {
    const copy = structuredClone(obj);
    copy.apiVersion ??= mapping.apiVersion;
    copy.kind ??= mapping.kind;
    const kindOptions = this.byKind.get(gvkKey(mapping));
    return chainTransforms(defaultTransform, this.options.transform, kindOptions?.transform)(copy);
  }

  /** Starts every informer, and from now on each new one at once. */
  async start(): Promise<SharedInformer[]> {
    this.started = true;
    const all = await this.all();
    for (const inf of all) inf.start();
    return all;
  }

  async stop(): Promise<void> {
    const settled = await Promise.allSettled(this.informers.values());
    await Promise.all(settled.map((r) => (r.status === "fulfilled" ? r.value.stop() : undefined)));
    await Promise.all([this.crds.stop(), this.namespaceWatch?.stop()]);
  }

  all(): Promise<SharedInformer[]> {
    return Promise.all(this.informers.values());
  }

  // ---- reads for the client (CacheReader) ------------------------------------------------------

  async get<T>(
    mapping: ResourceMapping,
    key: ObjectKey,
    options: ReadOptions = {},
  ): Promise<{ object: T | undefined } | undefined> {
    const namespace = mapping.namespaced ? key.namespace : undefined;
    const reader = await this.readerFor(mapping, namespace, options.metadataOnly === true);
    if (!reader) return undefined;
    const stored = reader.informer.get({ namespace, name: key.name });
    const found = this.written.resolve(
      gvkKey(mapping),
      objectKey({ metadata: { namespace, name: key.name } }),
      stored,
    );
    return { object: found === undefined ? undefined : this.copy<T>(mapping, found, reader) };
  }

  async list<T>(mapping: ResourceMapping, options: ListOptions): Promise<T[] | undefined> {
    if (hasMatchingFields(options))
      return this.indexes.list<T>(gvkKey(mapping), mapping, options, this.started, cacheMatcher(options));
    const namespace = mapping.namespaced ? options.namespace || undefined : undefined;
    const match = cacheMatcher(options);
    if (!match) return undefined; // a field selector only the server can evaluate
    const reader = await this.readerFor(mapping, namespace, options.metadataOnly === true);
    if (!reader) return undefined;
    const items = this.written
      .overlay(gvkKey(mapping), reader.informer.list())
      .filter((o) => (!namespace || o.metadata?.namespace === namespace) && match(o));
    items.sort((a, b) => compareKeys(objectKey(a), objectKey(b)));
    return items.map((o) => this.copy<T>(mapping, o, reader));
  }

  /**
   * What a read hands out: a copy (a reconciler cannot corrupt the cache); only its metadata for a
   * metadata-only read of a full informer; marked when a user transform may have dropped fields, so
   * client.update refuses to write it back whole.
   */
  private copy<T>(mapping: ResourceMapping, obj: InformerObject, reader: Reader): T {
    if (reader.metadataOnly && (!reader.informerIsMetadata || obj.apiVersion !== "meta.k8s.io/v1"))
      return toPartialObjectMetadata({ metadata: structuredClone(obj.metadata) }) as T;
    const copy = structuredClone(obj) as T & object;
    if (!reader.metadataOnly && this.hasUserTransform(mapping)) markTransformedCopy(copy);
    return copy;
  }

  private hasUserTransform(mapping: ResourceMapping): boolean {
    return Boolean(this.options.transform ?? this.byKind.get(gvkKey(mapping))?.transform);
  }

  /**
   * Adds a field index to the kind's shared informer (created if needed): list with
   * `matchingFields: { [name]: value }` then answers from it (field-index.ts).
   */
  async indexField(kind: KindRef, name: string, fn: IndexFunction): Promise<void> {
    const informer = await this.informerFor(kind);
    this.indexes.add(gvkKey(gvkOf(kind)), informer, name, fn, this.settings.logger.named("field-index"));
  }

  /**
   * The synced informer to read a kind from, or undefined to read live: kinds in disableFor, reads
   * before the manager started, namespaces the cache does not hold, whole objects of a kind watched
   * only metadata-only (that informer has no spec or status), and kinds nobody watches (unless they
   * are to get an informer on first read). A metadata-only read takes the metadata-only informer,
   * else the full one.
   */
  private async readerFor(
    mapping: ResourceMapping,
    namespace: string | undefined,
    metadataOnly: boolean,
  ): Promise<Reader | undefined> {
    const key = gvkKey(mapping);
    if (this.disabled.has(key) || !this.started) return undefined;
    const full = await this.informers.get(key)?.catch(() => undefined);
    const partial = await this.informers.get(`${key}#metadata`)?.catch(() => undefined);
    let informer = metadataOnly ? (partial ?? full) : full;
    let informerIsMetadata = informer !== undefined && informer === partial;
    if (!informer) {
      if (partial) return undefined; // whole objects of a kind watched metadata-only: read live
      const policy = this.byKind.get(key)?.unwatched ?? this.options.unwatched ?? "live";
      if (policy === "live") return undefined;
      informer = await this.informerFor(mapping, { metadataOnly });
      informerIsMetadata = metadataOnly;
    }
    if (namespace && informer.namespaces && !informer.namespaces.includes(namespace)) return undefined;
    await informer.waitForSync();
    return { informer, metadataOnly, informerIsMetadata };
  }

  /**
   * Why the cache can never hold `obj` (read from the server) although it serves reads of its kind:
   * the kind's byKind labelSelector or fieldSelector excludes it. undefined when it would hold it,
   * or when reads of the kind (in obj's namespace) go to the server anyway.
   */
  async whyNotCached(mapping: ResourceMapping, obj: KubeObjectLike): Promise<string | undefined> {
    const meta = (obj.metadata ?? {}) as { namespace?: string };
    const reader = await this.readerFor(mapping, mapping.namespaced ? meta.namespace : undefined, false);
    if (!reader) return undefined;
    const kindOptions = this.byKind.get(gvkKey(mapping));
    const excluded: string[] = [];
    const cached = obj as InformerObject;
    const labels = selectorString(kindOptions?.labelSelector);
    if (labels && !cacheMatcher({ labelSelector: labels })!(cached))
      excluded.push(`cache.byKind labelSelector "${labels}"`);
    const fields = kindOptions?.fieldSelector;
    if (fields) {
      const match = cacheMatcher({ fieldSelector: fields });
      // Only the server can evaluate most field selectors: name it as the likely cause.
      if (!match) excluded.push(`cache.byKind fieldSelector "${fields}" (probably)`);
      else if (!match(cached)) excluded.push(`cache.byKind fieldSelector "${fields}"`);
    }
    if (excluded.length === 0) return undefined;
    const namespaces = reader.informer.namespaces;
    return `${excluded.join(" and ")}${namespaces ? ` (cached namespaces: ${namespaces.join(", ")})` : ""}`;
  }
}

interface Reader {
  informer: SharedInformer;
  /** The read asked for metadata only. */
  metadataOnly: boolean;
  /** The informer caches metadata only. */
  informerIsMetadata: boolean;
}

/** Namespace/name order (cluster-scoped objects: by name), as the API server lists. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The filter of a cached list: labelSelector (string or map, set-based as the server), and a
 * fieldSelector on metadata.name / metadata.namespace. undefined when the field selector names any
 * other field: only the server knows how to evaluate those.
 */
export function cacheMatcher(options: ListOptions): ((obj: InformerObject) => boolean) | undefined {
  const labelText = selectorString(options.labelSelector);
  let labels;
  try {
    labels = labelText ? parseLabelSelector(labelText) : [];
  } catch (err) {
    if (err instanceof LabelSelectorError)
      throw new ConfigError(`invalid labelSelector "${labelText}": ${err.message}`, {
        hint: 'use the API server\'s syntax, e.g. "app=web,tier in (a,b),!legacy"',
      });
    throw err;
  }
  const fields: Array<{ field: "name" | "namespace"; equal: boolean; value: string }> = [];
  for (const term of splitSelectorTerms(options.fieldSelector ?? "")) {
    if (term === "") continue;
    const m = /^\s*metadata\.(name|namespace)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!m) return undefined;
    fields.push({ field: m[1] as "name" | "namespace", equal: m[2] !== "!=", value: m[3]! });
  }
  return (obj) =>
    labelsMatch(obj.metadata?.labels, labels) &&
    fields.every((f) => ((obj.metadata?.[f.field] ?? "") === f.value) === f.equal);
}
