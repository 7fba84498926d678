// The object client reconcilers use: typed CRUD, subresources (subresource.ts), merge/JSON/strategic
// patch, server-side apply, collection delete; every write takes dryRun (write-options.ts). Writes always go to the API server. Reads go there too, unless the client has
// a cache reader (the manager's client: kinds it watches are read from its informers, see
// cache.ts); the manager's apiReader has none. A missing object is `undefined` from get() and
// `false` from delete(); other failures throw ApiError.
import { TsopError } from "../../common/errors.js";
import { isNotFound } from "../connect/errors.js";
import {
  type GroupVersionKind,
  type KindRef,
  type ObjectKey,
  type ResourceMapping,
  type RestMapper,
  resourcePath,
} from "../connect/mapper.js";
import type { ObjectMeta } from "../schema.js";
import type { RequestOptions, RestClient } from "../connect/rest.js";
import { isTransformedCopy, transformedCopyError } from "./cache-copies.js";
import type { Patch } from "./patch.js";
import { assertStrategicMergeAllowed } from "./strategic-merge.js";
import { PATCH_CONTENT, patchBody, SubResourceClient, type SubResourceTarget } from "./subresource.js";
import { writeQuery, type WriteOptions } from "./write-options.js";
import { currentWriter, type ObservedWrite, type WriteObserver } from "./write-observer.js";

import type { KubeObjectLike, PatchType } from "./object.js";

export type { KubeObjectLike, PatchType } from "./object.js";
export type { WriteOptions } from "./write-options.js";

type Raw = {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  status?: unknown;
  [key: string]: unknown;
};

/** Every call that takes options takes a signal; `withSignal` gives one to all of a client's calls. */
export interface CallOptions {
  /** Aborts the request (and its retries): the call rejects with RequestAbortedError. */
  signal?: AbortSignal;
}

export interface ReadOptions extends CallOptions {
  /**
   * Read only the metadata: PartialObjectMetadata objects (apiVersion meta.k8s.io/v1, no spec, data
   * or status), from a metadata-only informer of the kind when there is one, else from the server.
   * Without it a read always returns the whole object.
   */
  metadataOnly?: boolean;
}

export interface ListOptions extends ReadOptions {
  /** Omit for all namespaces. */
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /**
   * Objects whose field index (manager.indexField) has these values; answered from the cache only
   * (the server knows nothing of the index): an error when the cache cannot answer.
   */
  matchingFields?: Record<string, string>;
}

/** What a metadata-only read returns (meta.k8s.io/v1 PartialObjectMetadata). */
export interface PartialObjectMetadata {
  apiVersion: "meta.k8s.io/v1";
  kind: "PartialObjectMetadata";
  metadata: ObjectMeta;
}

/**
 * Serves reads from a cache. Each method answers undefined when it cannot serve the read (the
 * kind is not cached, or the selector needs the server); the client then reads live.
 */
export interface CacheReader {
  get<T>(
    mapping: ResourceMapping,
    key: ObjectKey,
    options?: ReadOptions,
  ): Promise<{ object: T | undefined } | undefined>;
  list<T>(mapping: ResourceMapping, options: ListOptions): Promise<T[] | undefined>;
  /**
   * Why this cache can never hold `obj` (read from the server) although it serves reads of its kind:
   * the selector or namespaces that exclude it, for an error that says so. undefined when it would
   * hold it (or the kind's reads go to the server).
   */
  whyNotCached?(mapping: ResourceMapping, obj: KubeObjectLike): Promise<string | undefined>;
}

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  gracePeriodSeconds?: number;
  /** Only delete this exact version (precondition). */
  resourceVersion?: string;
}

export interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  force?: boolean;
}

export interface PatchOptions extends WriteOptions {
  /** For a body given as is (a Patch carries its own type). Default "merge". */
  type?: PatchType;
  subresource?: string;
}

export interface DeleteAllOfOptions extends WriteOptions {
  /** Required for namespaced kinds (the API server deletes collections one namespace at a time). */
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  gracePeriodSeconds?: number;
}

const PARTIAL_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const PARTIAL_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

export function selectorString(selector: string | Record<string, string> | undefined): string | undefined {
  if (selector === undefined || typeof selector === "string") return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

function objectGvk(obj: KubeObjectLike): GroupVersionKind {
  if (!obj.apiVersion || !obj.kind)
    throw new TsopError("object has no apiVersion/kind", {
      hint: "set apiVersion and kind on objects passed to the client",
    });
  if (obj.apiVersion === "meta.k8s.io/v1" && obj.kind === "PartialObjectMetadata")
    throw new TsopError(
      `${metaOf(obj).name ?? "object"} is a metadata-only copy (PartialObjectMetadata) from a metadataOnly cache and cannot be written`,
      {
        hint: "read the whole object with ctx.apiReader.get(kind, key), or patch it by { kind, key }",
      },
    );
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

function metaOf(obj: KubeObjectLike): ObjectMeta {
  return ((obj as Raw).metadata ?? {}) as ObjectMeta;
}

export class Client {
  constructor(
    readonly rest: RestClient,
    readonly mapper: RestMapper,
    /** Namespace for namespaced objects that name none. */
    readonly defaultNamespace = "default",
    /** Per-request timeout (ms); default 30 s. */
    readonly requestTimeoutMs?: number,
    /** Serves get/list of cached kinds; without it every read goes to the server. */
    readonly cache?: CacheReader,
    /** Carried by every request this client makes (see withSignal). */
    readonly signal?: AbortSignal,
    /** Told of every write that succeeded (the manager's cache: read-your-own-writes). */
    readonly writes?: WriteObserver,
  ) {}

  private live: Client | undefined;

  /**
   * This client without its cache: every read goes to the API server. For the few reads that must
   * be fresh (the manager's client reads watched kinds from its cache). Itself when it has no cache.
   */
  get apiReader(): Client {
    if (!this.cache) return this;
    this.live ??= new Client(
      this.rest,
      this.mapper,
      this.defaultNamespace,
      this.requestTimeoutMs,
      undefined,
      this.signal,
      this.writes,
    );
    return this.live;
  }

  /** The same client with another per-request timeout (e.g. bounded lease renewals). */
  withTimeout(ms: number): Client {
    return new Client(
      this.rest,
      this.mapper,
      this.defaultNamespace,
      ms,
      this.cache,
      this.signal,
      this.writes,
    );
  }

  /**
   * The same client (cache, timeout) whose every request, and its apiReader's, carries `signal`
   * besides any signal a call passes: ctx.client is the manager's client with the reconcile's signal.
   */
  withSignal(signal: AbortSignal): Client {
    return new Client(
      this.rest,
      this.mapper,
      this.defaultNamespace,
      this.requestTimeoutMs,
      this.cache,
      this.signal ? AbortSignal.any([this.signal, signal]) : signal,
      this.writes,
    );
  }

  /**
   * Sends a write and tells the write observer of it: that it is in flight (its watch event may come
   * before its answer), and what it wrote once answered. A dry run changes nothing and is not told.
   */
  private async writing<T>(
    options: WriteOptions,
    write: Omit<ObservedWrite, "writer" | "result"> & { key: ObjectKey },
    send: () => Promise<T>,
    written: (answer: T) => KubeObjectLike | undefined = (answer) => answer as KubeObjectLike,
  ): Promise<T> {
    const observer = options.dryRun ? undefined : this.writes;
    const writer = currentWriter();
    const answered = observer?.beginWrite(write.mapping, write.key, {
      writer,
      subresource: write.subresource,
    });
    try {
      const answer = await send();
      observer?.observeWrite({ ...write, result: written(answer), writer });
      return answer;
    } finally {
      answered?.();
    }
  }

  private call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const signal =
      this.signal && options.signal
        ? AbortSignal.any([this.signal, options.signal])
        : (options.signal ?? this.signal);
    return this.rest.request<T>(method, path, { timeoutMs: this.requestTimeoutMs, ...options, signal });
  }

  private async path(ref: KindRef, namespace: string | undefined, name?: string, sub?: string) {
    const m = await this.mapper.mapping(ref);
    return {
      m,
      path: resourcePath(m, m.namespaced ? namespace || this.defaultNamespace : undefined, name, sub),
    };
  }

  /** The object (only its metadata with `metadataOnly`), or undefined when it does not exist. */
  get<T extends KubeObjectLike = Raw>(
    kind: KindRef<T>,
    key: ObjectKey,
    options: ReadOptions & { metadataOnly: true },
  ): Promise<PartialObjectMetadata | undefined>;
  get<T extends KubeObjectLike = Raw>(
    kind: KindRef<T>,
    key: ObjectKey,
    options?: ReadOptions,
  ): Promise<T | undefined>;
  async get<T extends KubeObjectLike = Raw>(
    kind: KindRef<T>,
    key: ObjectKey,
    options: ReadOptions = {},
  ): Promise<T | PartialObjectMetadata | undefined> {
    const { m, path } = await this.path(kind, key.namespace, key.name);
    const metadataOnly = options.metadataOnly === true;
    const cached = await this.cache?.get<T>(
      m,
      { namespace: m.namespaced ? key.namespace || this.defaultNamespace : undefined, name: key.name },
      { metadataOnly },
    );
    if (cached) return cached.object;
    try {
      if (metadataOnly)
        return await this.call<PartialObjectMetadata>("GET", path, { accept: PARTIAL_ACCEPT });
      return withKind(await this.call<T>("GET", path), m);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** All matching objects (only their metadata with `metadataOnly`), sorted by namespace/name. */
  list<T extends KubeObjectLike = Raw>(
    kind: KindRef<T>,
    options: ListOptions & { metadataOnly: true },
  ): Promise<PartialObjectMetadata[]>;
  list<T extends KubeObjectLike = Raw>(kind: KindRef<T>, options?: ListOptions): Promise<T[]>;
  async list<T extends KubeObjectLike = Raw>(
    kind: KindRef<T>,
    options: ListOptions = {},
  ): Promise<Array<T | PartialObjectMetadata>> {
    const m = await this.mapper.mapping(kind);
    const cached = await this.cache?.list<T>(m, options);
    if (cached) return cached;
    if (Object.keys(options.matchingFields ?? {}).length > 0)
      throw new TsopError(`cannot list ${m.kind} by field index: this client has no cache`, {
        hint: "list with matchingFields through the manager's client (manager.client or ctx.client)",
      });
    const path = resourcePath(m, options.namespace);
    const items: Array<T | PartialObjectMetadata> = [];
    let cont: string | undefined;
    do {
      const page = await this.call<{ items?: T[]; metadata?: { continue?: string } }>("GET", path, {
        query: {
          labelSelector: selectorString(options.labelSelector),
          fieldSelector: options.fieldSelector,
          limit: 500,
          continue: cont,
        },
        signal: options.signal,
        accept: options.metadataOnly ? PARTIAL_LIST_ACCEPT : undefined,
      });
      for (const item of page.items ?? [])
        items.push(options.metadataOnly ? asPartial(item) : withKind(item, m));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return items;
  }

  async create<T extends KubeObjectLike>(given: T, options: WriteOptions = {}): Promise<T> {
    const obj = this.writes?.prepareCreate?.(given) ?? given;
    const meta = metaOf(obj);
    const { m, path } = await this.path(objectGvk(obj), meta.namespace);
    return this.writing(
      options,
      { mapping: m, key: keyOf(m, meta, this.defaultNamespace), verb: "create" },
      async () => withKind(await this.call<T>("POST", path, writeRequest(obj, options)), m),
    );
  }

  /**
   * Replaces the object (PUT); fails with a conflict if metadata.resourceVersion is stale. Refuses a
   * copy from a cache whose transform for the kind is the user's (it may lack fields the server
   * has): patch what changed instead (mergeFrom).
   */
  async update<T extends KubeObjectLike>(obj: T, options: WriteOptions = {}): Promise<T> {
    if (isTransformedCopy(obj)) throw transformedCopyError(obj);
    const meta = metaOf(obj);
    const { m, path } = await this.path(objectGvk(obj), meta.namespace, requireName(meta));
    const write = { mapping: m, key: keyOf(m, meta, this.defaultNamespace), verb: "update" as const };
    return this.writing(options, { ...write, basedOn: meta.resourceVersion }, async () =>
      withKind(await this.call<T>("PUT", path, writeRequest(obj, options)), m),
    );
  }

  /** Replaces the status through the status subresource (spec changes are ignored by the server). */
  async updateStatus<T extends KubeObjectLike>(obj: T, options: WriteOptions = {}): Promise<T> {
    const meta = metaOf(obj);
    const { m, path } = await this.path(objectGvk(obj), meta.namespace, requireName(meta), "status");
    const write = { mapping: m, key: keyOf(m, meta, this.defaultNamespace), verb: "update" as const };
    return this.writing(
      options,
      { ...write, subresource: "status", basedOn: meta.resourceVersion },
      async () => withKind(await this.call<T>("PUT", path, writeRequest(obj, options)), m),
    );
  }

  /**
   * Patches the status subresource (spec changes in the patch are ignored by the server):
   * `client.patchStatus(obj, mergeFrom(base))` sends only the status fields changed since base.
   */
  patchStatus<T extends KubeObjectLike>(
    target: T | { kind: KindRef<T>; key: ObjectKey },
    patch: Patch | unknown,
    options: Omit<PatchOptions, "subresource"> = {},
  ): Promise<T> {
    return this.patch(target, patch, { ...options, subresource: "status" });
  }

  /**
   * Reads and writes of a subresource of objects: `subResource("scale").get(deployment)`,
   * `subResource("eviction").create(pod, { apiVersion: "policy/v1", kind: "Eviction" })`,
   * `subResource("token").create(serviceAccount, tokenRequest)`.
   */
  subResource(name: string): SubResourceClient {
    return new SubResourceClient(name, {
      locate: async (target: SubResourceTarget, sub: string) => {
        const { kind, key } = targetOf(target);
        const { m, path } = await this.path(kind, key.namespace, key.name, sub);
        return {
          mapping: m,
          path,
          key: {
            name: key.name,
            namespace: m.namespaced ? key.namespace || this.defaultNamespace : undefined,
          },
        };
      },
      call: (method, path, options) => this.call(method, path, options),
    });
  }

  /**
   * JSON merge patch (default) or JSON patch of the object named by `target`. `patch` is the body,
   * or a Patch computed from the object, e.g. `client.patch(obj, mergeFrom(base))`.
   */
  async patch<T extends KubeObjectLike>(
    target: T | { kind: KindRef<T>; key: ObjectKey },
    patch: Patch | unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    const { kind, key } = targetOf(target);
    const { m, path } = await this.path(kind, key.namespace, key.name, options.subresource);
    const { type, body } = patchBody(target, patch, options.type);
    if (type === "strategic") assertStrategicMergeAllowed(m, key.name);
    const write = {
      mapping: m,
      key: keyOf(m, key, this.defaultNamespace),
      verb: "patch" as const,
      subresource: options.subresource,
      basedOn: isTarget(target) ? undefined : metaOf(target).resourceVersion,
    };
    return this.writing(options, write, async () =>
      withKind(
        await this.call<T>("PATCH", path, {
          body,
          contentType: PATCH_CONTENT[type],
          query: writeQuery(options),
          signal: options.signal,
        }),
        m,
      ),
    );
  }

  /** Server-side apply of a (partial) object. */
  async apply<T extends KubeObjectLike>(obj: T, options: ApplyOptions): Promise<T> {
    const meta = metaOf(obj);
    const { m, path } = await this.path(objectGvk(obj), meta.namespace, requireName(meta));
    const write = { mapping: m, key: keyOf(m, meta, this.defaultNamespace), verb: "apply" as const };
    return this.writing(options, write, async () =>
      withKind(
        await this.call<T>("PATCH", path, {
          body: obj,
          contentType: "application/apply-patch+yaml",
          query: {
            fieldManager: options.fieldManager,
            force: options.force ? true : undefined,
            ...writeQuery(options),
          },
          signal: options.signal,
        }),
        m,
      ),
    );
  }

  /** Deletes the object; false when it was already gone. */
  async delete<T extends KubeObjectLike>(
    target: T | { kind: KindRef<T>; key: ObjectKey },
    options: DeleteOptions = {},
  ): Promise<boolean> {
    const { kind, key } = targetOf(target);
    const { m, path } = await this.path(kind, key.namespace, key.name);
    const body = deleteBody(options);
    if (options.resourceVersion) body.preconditions = { resourceVersion: options.resourceVersion };
    const named = keyOf(m, key, this.defaultNamespace);
    try {
      await this.writing(
        options,
        { mapping: m, key: named, verb: "delete" },
        () =>
          this.call<KubeObjectLike>("DELETE", path, {
            body,
            query: writeQuery(options),
            signal: options.signal,
          }),
        // The answer is the object (still there while finalizers hold it), or a Status once gone.
        (answer) => (answer && (answer as Raw).kind !== "Status" ? answer : { metadata: named }),
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Deletes every object of a kind that matches the selectors, in one request (the collection
   * DELETE). Without a selector that is every object of the kind in the namespace. Namespaced kinds
   * need `namespace`: the API server deletes collections one namespace at a time.
   */
  async deleteAllOf<T extends KubeObjectLike>(
    kind: KindRef<T>,
    options: DeleteAllOfOptions = {},
  ): Promise<void> {
    const m = await this.mapper.mapping(kind);
    if (m.namespaced && !options.namespace)
      throw new TsopError(`deleteAllOf(${m.kind}) needs a namespace: ${m.kind} is namespaced`, {
        hint: `pass { namespace } (the API server has no collection delete across namespaces for ${m.plural})`,
      });
    const path = resourcePath(m, m.namespaced ? options.namespace : undefined);
    await this.call("DELETE", path, {
      body: deleteBody(options),
      query: {
        labelSelector: selectorString(options.labelSelector),
        fieldSelector: options.fieldSelector,
        ...writeQuery(options),
      },
      signal: options.signal,
    });
  }
}

function writeRequest(body: unknown, options: WriteOptions): RequestOptions {
  return { body, query: writeQuery(options), signal: options.signal };
}

function deleteBody(options: DeleteOptions | DeleteAllOfOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
  if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  return body;
}

/** The object's key as the cache files it (no namespace for cluster-scoped kinds). */
function keyOf(m: ResourceMapping, key: ObjectKey | ObjectMeta, defaultNamespace: string): ObjectKey {
  return { name: key.name ?? "", namespace: m.namespaced ? key.namespace || defaultNamespace : undefined };
}

function requireName(meta: ObjectMeta): string {
  if (!meta.name) throw new TsopError("object has no metadata.name", { hint: "set metadata.name" });
  return meta.name;
}

function isTarget<T extends KubeObjectLike>(
  target: T | { kind: KindRef<T>; key: ObjectKey },
): target is { kind: KindRef<T>; key: ObjectKey } {
  return "key" in target && "kind" in target && typeof target.key === "object" && target.key !== null;
}

function targetOf<T extends KubeObjectLike>(
  target: T | { kind: KindRef<T>; key: ObjectKey },
): { kind: KindRef<T>; key: ObjectKey } {
  if (isTarget(target)) return target;
  const obj = target as T;
  const meta = metaOf(obj);
  return { kind: objectGvk(obj), key: { namespace: meta.namespace, name: requireName(meta) } };
}

/** Items of a PartialObjectMetadataList come without apiVersion/kind. */
function asPartial(item: unknown): PartialObjectMetadata {
  const metadata = ((item as Raw).metadata ?? {}) as ObjectMeta;
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata };
}

/** Lists return items without apiVersion/kind; fill them in so objects are self-describing. */
function withKind<T>(obj: T, m: { apiVersion: string; kind: string }): T {
  const raw = obj as Raw;
  raw.apiVersion ??= m.apiVersion;
  raw.kind ??= m.kind;
  return obj;
}
