// The CLI's cluster client: a thin layer over the runtime's RestClient (credentials, proxies, the
// shared retry policy) and RestMapper (discovery). What it adds is what commands need: answers shaped
// for them (undefined when absent, lists with their resourceVersion, apply saying created or
// updated, watches with a resume point) and errors that name the verb, resource, user and server.
import { errorFrom } from "../common/errors.js";
import { COMMAND_RETRY, type RetryPolicy } from "../common/retry.js";
import { ApiError, isNoMatch, type StatusBody } from "../runtime/connect/errors.js";
import { pathSegment, RestMapper, resourcePath, type ResourceMapping } from "../runtime/connect/mapper.js";
import { type RequestOptions, RestClient } from "../runtime/connect/rest.js";
import { type Connection, type ConnectionOptions, loadConnection } from "./config.js";
import {
  ClusterUnreachableError,
  ConflictError,
  ForbiddenError,
  KubeApiError,
  NotFoundError,
  NotKubernetesError,
  UnauthorizedError,
} from "./errors.js";
import { messages } from "./messages.js";
import type { KubeObject, ObjectRef } from "./objects.js";

export interface ClientOptions {
  /** Attempts and delays for 429/5xx and dropped connections (default: the command policy). */
  retry?: Partial<Pick<RetryPolicy, "attempts" | "baseDelayMs" | "maxDelayMs">>;
  requestTimeoutMs?: number;
  /** Called before each retry (for progress/debug output). */
  onRetry?: (what: string, attempt: number, detail: string) => void;
}

/** Kind → REST resource, as discovery reports it. */
export type ResourceInfo = ResourceMapping;

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** One request, with what messages need to name it: the RBAC verb, resource and namespace. */
export interface Call {
  method: string;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
}

export class KubeClient {
  readonly rest: RestClient;
  readonly mapper: RestMapper;

  constructor(
    readonly connection: Connection,
    private readonly options: ClientOptions = {},
  ) {
    this.rest = new RestClient(connection.cluster.server, connection, {
      userAgent: "tsop",
      env: connection.env,
      interactive: connection.interactive,
      retry: { ...COMMAND_RETRY, ...options.retry },
      onRetry: ({ method, path, attempt, reason }) => options.onRetry?.(`${method} ${path}`, attempt, reason),
    });
    this.mapper = new RestMapper(this.rest);
  }

  static async connect(options: ConnectionOptions & ClientOptions = {}): Promise<KubeClient> {
    return new KubeClient(await loadConnection(options), options);
  }

  get namespace(): string {
    return this.connection.namespace;
  }
  get server(): string {
    return this.connection.cluster.server;
  }

  close(): void {
    this.rest.close();
  }

  // ---- discovery -------------------------------------------------------------------------------

  /** The resource serving a kind; NoKindMatchError when the server does not serve it. */
  async resource(apiVersion: string, kind: string): Promise<ResourceInfo> {
    try {
      return await this.mapper.mapping({ apiVersion, kind });
    } catch (error) {
      if (isNoMatch(error)) await this.expectKubernetes();
      throw this.mapped(error, { method: "GET", path: "", verb: "get", resource: `discovery ${apiVersion}` });
    }
  }

  /**
   * Every Kubernetes API server lists its core API versions at /api. A server that does not (a
   * kubeconfig pointing at some other web server answers 404 to everything) serves no kind at all:
   * saying "install the CRD first" would send the user the wrong way.
   */
  private async expectKubernetes(): Promise<void> {
    const answer = await this.rest.request<{ kind?: string }>("GET", "/api").then(
      (body) =>
        body?.kind === "APIVersions"
          ? undefined
          : `GET /api answered a ${String(body?.kind ?? "non-Kubernetes")} document`,
      (error: unknown) => {
        const status = (error as { status?: number }).status;
        if (status === 401 || status === 403) return undefined; // a real server guarding discovery
        return error instanceof ApiError
          ? `GET /api answered ${status}`
          : `GET /api failed: ${(error as Error).message}`;
      },
    );
    if (answer === undefined) return;
    throw errorFrom(
      messages.notKubernetes(this.server, this.connection.contextName, answer),
      NotKubernetesError,
    );
  }

  /** REST path of a collection or object. */
  pathOf(info: ResourceInfo, namespace?: string, name?: string, subresource?: string): string {
    return resourcePath(info, namespace, name, subresource);
  }

  private resourceName(info: ResourceInfo): string {
    return info.group ? `${info.plural}.${info.group}` : info.plural;
  }

  private namespaceFor(info: ResourceInfo, namespace: string | undefined): string | undefined {
    return info.namespaced ? (namespace ?? this.namespace) : undefined;
  }

  /** For lists and watches: "" means every namespace. */
  private scopeFor(info: ResourceInfo, namespace: string | undefined): string | undefined {
    return namespace === "" ? undefined : this.namespaceFor(info, namespace);
  }

  /** A call on one object (or its collection when name is absent). */
  private async objectCall(
    ref: { apiVersion: string; kind: string; namespace?: string; name?: string },
    spec: Omit<Call, "path" | "resource" | "namespace" | "name"> & {
      subresource?: string;
      collection?: boolean;
    },
  ): Promise<{ body: unknown; statusCode: number }> {
    const info = await this.resource(ref.apiVersion, ref.kind);
    const namespace = this.namespaceFor(info, ref.namespace);
    const { subresource, collection, ...rest } = spec;
    return this.callWithStatus({
      ...rest,
      path: this.pathOf(info, namespace, collection ? undefined : ref.name, subresource),
      resource: this.resourceName(info) + (subresource ? `/${subresource}` : ""),
      namespace,
      name: ref.name,
    });
  }

  // ---- CRUD ------------------------------------------------------------------------------------

  /** The object, or undefined when it (or its kind) does not exist. */
  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    try {
      return (await this.objectCall(ref, { method: "GET", verb: "get" })).body as KubeObject;
    } catch (error) {
      if (error instanceof NotFoundError || isNoMatch(error)) return undefined;
      throw error;
    }
  }

  /** Lists a kind; namespace "" (or a cluster-scoped kind) lists across the cluster. */
  async list(apiVersion: string, kind: string, options: ListOptions = {}): Promise<ListResult> {
    const info = await this.resource(apiVersion, kind);
    const namespace = this.scopeFor(info, options.namespace);
    const doc = (await this.call({
      method: "GET",
      path: this.pathOf(info, namespace),
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
      verb: "list",
      resource: this.resourceName(info),
      namespace,
    })) as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
    const items = (doc.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
    return { items, resourceVersion: doc.metadata?.resourceVersion ?? "" };
  }

  async create(obj: KubeObject): Promise<KubeObject> {
    const info = await this.resource(obj.apiVersion, obj.kind);
    const namespace = this.namespaceFor(info, obj.metadata.namespace);
    const body = namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
    const ref = { ...obj, name: obj.metadata.name, namespace };
    return (await this.objectCall(ref, { method: "POST", verb: "create", body, collection: true }))
      .body as KubeObject;
  }

  async replace(obj: KubeObject): Promise<KubeObject> {
    const ref = { ...obj, name: obj.metadata.name, namespace: obj.metadata.namespace };
    return (await this.objectCall(ref, { method: "PUT", verb: "update", body: obj })).body as KubeObject;
  }

  /**
   * Server-side apply with field manager `tsop` (force: tsop owns what it applies). Returns the
   * object and whether the server created it (201) or updated it.
   */
  async apply(obj: KubeObject, fieldManager = "tsop"): Promise<{ object: KubeObject; created: boolean }> {
    const info = await this.resource(obj.apiVersion, obj.kind);
    const namespace = this.namespaceFor(info, obj.metadata.namespace);
    const body = namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
    const ref = { ...obj, name: obj.metadata.name, namespace };
    const { body: object, statusCode } = await this.objectCall(ref, {
      method: "PATCH",
      query: { fieldManager, force: "true" },
      body,
      contentType: "application/apply-patch+yaml",
      verb: "patch",
    });
    return { object: object as KubeObject, created: statusCode === 201 };
  }

  /** JSON merge patch of the object or of a subresource such as "status". */
  async mergePatch(ref: ObjectRef, patch: unknown, subresource?: string): Promise<KubeObject> {
    return (
      await this.objectCall(ref, {
        method: "PATCH",
        body: patch,
        contentType: "application/merge-patch+json",
        verb: "patch",
        subresource,
      })
    ).body as KubeObject;
  }

  /** Deletes; false when it was already gone. */
  async delete(
    ref: ObjectRef,
    propagationPolicy: "Background" | "Foreground" | "Orphan" = "Background",
  ): Promise<boolean> {
    try {
      await this.objectCall(ref, {
        method: "DELETE",
        body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy },
        verb: "delete",
      });
      return true;
    } catch (error) {
      if (error instanceof NotFoundError || isNoMatch(error)) return false;
      throw error;
    }
  }

  /** The last lines of a container's log ("" when logs are unavailable). */
  async logs(namespace: string, pod: string, container: string, tailLines = 20): Promise<string> {
    const path = `/api/v1/namespaces/${pathSegment(namespace)}/pods/${pathSegment(pod)}/log`;
    try {
      const options = { query: { container, tailLines }, timeoutMs: this.options.requestTimeoutMs };
      return (await this.rest.exchange("GET", path, options)).text;
    } catch {
      return "";
    }
  }

  /**
   * Watches a kind from a resourceVersion until the server ends the stream, the signal aborts or
   * an ERROR event arrives (410 Gone included: the caller relists). Bookmarks are requested.
   */
  async watch(
    apiVersion: string,
    kind: string,
    options: ListOptions & { resourceVersion?: string; timeoutSeconds?: number; signal?: AbortSignal },
    onEvent: (event: WatchEvent) => void,
  ): Promise<{ resourceVersion: string; gone: boolean }> {
    const info = await this.resource(apiVersion, kind);
    const namespace = this.scopeFor(info, options.namespace);
    const call: Call = {
      method: "GET",
      path: "",
      verb: "watch",
      resource: this.resourceName(info),
      namespace,
    };
    let lastRv = options.resourceVersion ?? "";
    let opened = false;
    const stream = this.rest.watch<KubeObject>(
      this.pathOf(info, namespace),
      {
        allowWatchBookmarks: true,
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        timeoutSeconds: options.timeoutSeconds ?? 300,
      },
      options.signal ?? new AbortController().signal,
      () => {
        opened = true;
      },
    );
    try {
      for await (const event of stream) {
        if (event.type === "ERROR") {
          const gone = (event.object as unknown as StatusBody).code === 410;
          return { resourceVersion: gone ? "" : lastRv, gone };
        }
        const rv = event.object?.metadata?.resourceVersion;
        if (rv) lastRv = rv;
        if (event.type === "BOOKMARK") continue;
        event.object.apiVersion = apiVersion;
        event.object.kind = kind;
        onEvent(event as WatchEvent);
      }
    } catch (error) {
      if (options.signal?.aborted) return { resourceVersion: lastRv, gone: false };
      if (error instanceof ApiError) {
        if (error.status === 410) return { resourceVersion: lastRv, gone: true };
        throw this.mapped(error, call);
      }
      // Opening failed before any answer: the cluster is unreachable. A dropped stream is normal:
      // the caller rewatches from lastRv or relists.
      if (!opened && isNetworkError(error)) throw this.mapped(error, call);
    }
    return { resourceVersion: lastRv, gone: false };
  }

  // ---- requests and their errors ---------------------------------------------------------------

  private async call(call: Call): Promise<unknown> {
    return (await this.callWithStatus(call)).body;
  }

  /** Sends a request (retried under the shared policy); maps failures to the CLI's errors. */
  async callWithStatus(call: Call): Promise<{ body: unknown; statusCode: number }> {
    const options: RequestOptions = {
      query: call.query,
      body: call.body,
      contentType: call.contentType,
      timeoutMs: this.options.requestTimeoutMs,
    };
    try {
      const { status, text } = await this.rest.exchange(call.method, call.path, options);
      return { body: parseBody(text), statusCode: status };
    } catch (error) {
      throw this.mapped(error, call);
    }
  }

  /** The CLI's error for a failure of the runtime's REST client (e.g. under an Informer). */
  explain(error: unknown, what: Pick<Call, "verb" | "resource" | "namespace" | "name">): Error {
    return this.mapped(error, { method: "", path: "", ...what });
  }

  /** The CLI's error for a failure of a call: who may not do what, which server is unreachable. */
  private mapped(error: unknown, call: Call): Error {
    if (error instanceof KubeApiError || isNoMatch(error)) return error as Error;
    if (error instanceof ApiError) return this.statusError(error, call);
    if (isNetworkError(error)) return this.networkError(error, call);
    return error as Error;
  }

  private networkError(error: unknown, call: Call): Error {
    const what = `${call.verb} ${call.resource}${call.name ? ` "${call.name}"` : ""}`;
    const err = error as NodeJS.ErrnoException;
    const detail = err.code
      ? `${err.code}${err.message && !err.message.includes(err.code) ? ` (${err.message})` : ""}`
      : err.message;
    const m = messages.unreachable(this.server, this.connection.contextName, `${what}: ${detail}`);
    return new ClusterUnreachableError(m.message, { hint: m.hint, cause: error });
  }

  private statusError(error: ApiError, call: Call): KubeApiError {
    const detail = error.body?.message ?? "";
    const object = `${call.resource}${call.name ? ` "${call.name}"` : ""}`;
    const where = `${object}${call.namespace ? ` in namespace "${call.namespace}"` : ""}`;
    const user = this.connection.user.name;
    switch (error.status) {
      case 401: {
        const m = messages.unauthorized(this.server, user);
        return new UnauthorizedError(error, m.message, m.hint);
      }
      case 403: {
        const m = messages.forbidden(user, call.verb, call.resource, call.namespace, detail);
        return new ForbiddenError(error, m.message, m.hint);
      }
      case 404:
        return new NotFoundError(error, `${where} not found`);
      case 409:
        return new ConflictError(
          error,
          `${call.verb} ${where}: ${detail}`,
          "another client changed it; retry",
        );
      case 429:
      case 500:
      case 502:
      case 503:
      case 504: {
        const m = messages.serverError(`${call.verb} ${object}`, error.status, detail, error.attempts);
        return new KubeApiError(error, m.message, m.hint);
      }
      default: {
        const m = messages.invalid(`${call.verb} ${where}`, `${error.status} ${detail || error.message}`);
        return new KubeApiError(error, m.message, m.hint);
      }
    }
  }
}

function isNetworkError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof ApiError) && "code" in error;
}

function parseBody(text: string): unknown {
  if (!text.startsWith("{") && !text.startsWith("[")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
