// A small dynamic client over the Kubernetes REST API: discovery (kind → resource), CRUD,
// server-side apply, deletes, watches and pod logs, with retries and errors that name the failing
// verb and resource. Requests go through http.ts with the connection's credentials.
import { setTimeout as sleep } from "node:timers/promises";
import { type Connection, type ConnectionOptions, loadConnection } from "./config.js";
import {
  type ApiStatus,
  ClusterUnreachableError,
  ConflictError,
  ForbiddenError,
  KubeApiError,
  NoKindMatchError,
  NotFoundError,
  UnauthorizedError,
} from "./errors.js";
import { invalidateCredentials, openStream, request, type TransportOptions, transportFor } from "./http.js";
import { messages } from "./messages.js";
import { type KubeObject, type ObjectRef, splitApiVersion } from "./objects.js";

export interface RetryPolicy {
  /** Attempts in total for 429/5xx and dropped connections (default 6). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ClientOptions {
  retry?: Partial<RetryPolicy>;
  requestTimeoutMs?: number;
  /** Called before each retry (for progress/debug output). */
  onRetry?: (what: string, attempt: number, detail: string) => void;
}

export interface ResourceInfo {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

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

interface Call {
  method: string;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  /** For messages: the RBAC verb, resource and namespace. */
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const TRANSIENT_NET = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

export class KubeClient {
  private transport: TransportOptions | undefined;
  private readonly discovery = new Map<string, Promise<Array<Record<string, unknown>>>>();
  private readonly retry: RetryPolicy;

  constructor(
    readonly connection: Connection,
    private readonly options: ClientOptions = {},
  ) {
    this.retry = { attempts: 6, baseDelayMs: 250, maxDelayMs: 4000, ...options.retry };
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
    this.transport?.agent.destroy();
  }

  // ---- discovery -------------------------------------------------------------------------------

  async resource(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const found = await this.findResource(apiVersion, kind, false);
    if (found) return found;
    // A CRD may have been established since the last lookup: ask once more.
    const fresh = await this.findResource(apiVersion, kind, true);
    if (fresh) return fresh;
    throw new NoKindMatchError(apiVersion, kind);
  }

  private async findResource(
    apiVersion: string,
    kind: string,
    refresh: boolean,
  ): Promise<ResourceInfo | undefined> {
    if (refresh) this.discovery.delete(apiVersion);
    let pending = this.discovery.get(apiVersion);
    if (!pending) {
      const { group } = splitApiVersion(apiVersion);
      const path = group === "" ? `/api/${apiVersion}` : `/apis/${apiVersion}`;
      pending = this.call({ method: "GET", path, verb: "get", resource: `discovery ${apiVersion}` })
        .then((doc) => (doc as { resources?: Array<Record<string, unknown>> }).resources ?? [])
        .catch((error) => {
          if (error instanceof NotFoundError) return [];
          throw error;
        });
      this.discovery.set(apiVersion, pending);
      pending.catch(() => this.discovery.delete(apiVersion));
    }
    const resources = await pending;
    const entry = resources.find(
      (r) => r.kind === kind && typeof r.name === "string" && !(r.name as string).includes("/"),
    );
    if (!entry) return undefined;
    const { group, version } = splitApiVersion(apiVersion);
    return {
      apiVersion,
      group,
      version,
      kind,
      plural: entry.name as string,
      namespaced: entry.namespaced === true,
    };
  }

  /** REST path of a collection or object. */
  pathOf(info: ResourceInfo, namespace?: string, name?: string, subresource?: string): string {
    let path = info.group === "" ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
    if (info.namespaced && namespace) path += `/namespaces/${segment(namespace)}`;
    path += `/${info.plural}`;
    if (name) path += `/${segment(name)}`;
    if (subresource) path += `/${subresource}`;
    return path;
  }

  private resourceName(info: ResourceInfo): string {
    return info.group ? `${info.plural}.${info.group}` : info.plural;
  }

  private namespaceFor(info: ResourceInfo, namespace: string | undefined): string | undefined {
    return info.namespaced ? (namespace ?? this.namespace) : undefined;
  }

  // ---- CRUD ------------------------------------------------------------------------------------

  /** The object, or undefined when it (or its kind) does not exist. */
  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    let info: ResourceInfo;
    try {
      info = await this.resource(ref.apiVersion, ref.kind);
    } catch (error) {
      if (error instanceof NoKindMatchError) return undefined;
      throw error;
    }
    const namespace = this.namespaceFor(info, ref.namespace);
    try {
      return (await this.call({
        method: "GET",
        path: this.pathOf(info, namespace, ref.name),
        verb: "get",
        resource: this.resourceName(info),
        namespace,
        name: ref.name,
      })) as KubeObject;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Lists a kind; namespace "" (or a cluster-scoped kind) lists across the cluster. */
  async list(apiVersion: string, kind: string, options: ListOptions = {}): Promise<ListResult> {
    const info = await this.resource(apiVersion, kind);
    const namespace = info.namespaced
      ? options.namespace === ""
        ? undefined
        : (options.namespace ?? this.namespace)
      : undefined;
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
    return (await this.call({
      method: "POST",
      path: this.pathOf(info, namespace),
      body: namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj,
      verb: "create",
      resource: this.resourceName(info),
      namespace,
      name: obj.metadata.name,
    })) as KubeObject;
  }

  async replace(obj: KubeObject): Promise<KubeObject> {
    const info = await this.resource(obj.apiVersion, obj.kind);
    const namespace = this.namespaceFor(info, obj.metadata.namespace);
    return (await this.call({
      method: "PUT",
      path: this.pathOf(info, namespace, obj.metadata.name),
      body: obj,
      verb: "update",
      resource: this.resourceName(info),
      namespace,
      name: obj.metadata.name,
    })) as KubeObject;
  }

  /**
   * Server-side apply with field manager `tsop` (force: tsop owns what it applies). Returns the
   * object and whether the server created it (201) or updated it.
   */
  async apply(obj: KubeObject, fieldManager = "tsop"): Promise<{ object: KubeObject; created: boolean }> {
    const info = await this.resource(obj.apiVersion, obj.kind);
    const namespace = this.namespaceFor(info, obj.metadata.namespace);
    const body = namespace ? { ...obj, metadata: { ...obj.metadata, namespace } } : obj;
    const { body: object, statusCode } = await this.callWithStatus({
      method: "PATCH",
      path: this.pathOf(info, namespace, obj.metadata.name),
      query: { fieldManager, force: "true" },
      body,
      contentType: "application/apply-patch+yaml",
      verb: "patch",
      resource: this.resourceName(info),
      namespace,
      name: obj.metadata.name,
    });
    return { object: object as KubeObject, created: statusCode === 201 };
  }

  /** JSON merge patch of the object or of a subresource such as "status". */
  async mergePatch(ref: ObjectRef, patch: unknown, subresource?: string): Promise<KubeObject> {
    const info = await this.resource(ref.apiVersion, ref.kind);
    const namespace = this.namespaceFor(info, ref.namespace);
    return (await this.call({
      method: "PATCH",
      path: this.pathOf(info, namespace, ref.name, subresource),
      body: patch,
      contentType: "application/merge-patch+json",
      verb: "patch",
      resource: this.resourceName(info) + (subresource ? `/${subresource}` : ""),
      namespace,
      name: ref.name,
    })) as KubeObject;
  }

  /** Deletes; false when it was already gone. */
  async delete(
    ref: ObjectRef,
    propagationPolicy: "Background" | "Foreground" | "Orphan" = "Background",
  ): Promise<boolean> {
    let info: ResourceInfo;
    try {
      info = await this.resource(ref.apiVersion, ref.kind);
    } catch (error) {
      if (error instanceof NoKindMatchError) return false;
      throw error;
    }
    const namespace = this.namespaceFor(info, ref.namespace);
    try {
      await this.call({
        method: "DELETE",
        path: this.pathOf(info, namespace, ref.name),
        body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy },
        verb: "delete",
        resource: this.resourceName(info),
        namespace,
        name: ref.name,
      });
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  /** The last lines of a container's log ("" when logs are unavailable). */
  async logs(namespace: string, pod: string, container: string, tailLines = 20): Promise<string> {
    try {
      const text = await this.call({
        method: "GET",
        path: `/api/v1/namespaces/${segment(namespace)}/pods/${segment(pod)}/log`,
        query: { container, tailLines: String(tailLines) },
        verb: "get",
        resource: "pods/log",
        namespace,
        name: pod,
      });
      return typeof text === "string" ? text : "";
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
    const namespace = info.namespaced
      ? options.namespace === ""
        ? undefined
        : (options.namespace ?? this.namespace)
      : undefined;
    const transport = await this.getTransport();
    const query = this.query({
      watch: "true",
      allowWatchBookmarks: "true",
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      timeoutSeconds: String(options.timeoutSeconds ?? 300),
    });
    let lastRv = options.resourceVersion ?? "";
    let res: import("node:http").IncomingMessage;
    const url = this.server.replace(/\/$/, "") + this.pathOf(info, namespace) + query;
    try {
      res = await openStream({
        method: "GET",
        url,
        headers: { ...transport.headers, accept: "application/json" },
        agent: transport.agent,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) return { resourceVersion: lastRv, gone: false };
      throw this.networkError(error, `watch ${this.resourceName(info)}`);
    }
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      if (res.statusCode === 410) return { resourceVersion: lastRv, gone: true };
      throw this.statusError(res.statusCode ?? 0, Buffer.concat(chunks), {
        method: "GET",
        path: "",
        verb: "watch",
        resource: this.resourceName(info),
        namespace,
      });
    }
    let buffer = "";
    let gone = false;
    try {
      for await (const chunk of res) {
        buffer += (chunk as Buffer).toString("utf8");
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf("\n");
          if (!line) continue;
          const event = JSON.parse(line) as WatchEvent;
          if (event.type === "ERROR") {
            const status = event.object as unknown as ApiStatus;
            if (status.code === 410) gone = true;
            res.destroy();
            return { resourceVersion: gone ? "" : lastRv, gone };
          }
          const rv = event.object?.metadata?.resourceVersion;
          if (rv) lastRv = rv;
          if (event.type !== "BOOKMARK") {
            event.object.apiVersion = apiVersion;
            event.object.kind = kind;
            onEvent(event);
          }
        }
      }
    } catch {
      // A dropped stream is normal: the caller rewatches from lastRv or relists.
    }
    return { resourceVersion: lastRv, gone };
  }

  // ---- transport -------------------------------------------------------------------------------

  private async getTransport(): Promise<TransportOptions> {
    if (!this.transport) this.transport = await transportFor(this.connection);
    return this.transport;
  }

  private query(params: Record<string, string | undefined> | undefined): string {
    const entries = Object.entries(params ?? {}).filter(([, v]) => v !== undefined && v !== "") as Array<
      [string, string]
    >;
    return entries.length === 0 ? "" : `?${new URLSearchParams(entries).toString()}`;
  }

  private async call(call: Call): Promise<unknown> {
    return (await this.callWithStatus(call)).body;
  }

  /** Sends a request with retries on 429/5xx and dropped connections; maps failures to errors. */
  async callWithStatus(call: Call): Promise<{ body: unknown; statusCode: number }> {
    const what = `${call.verb} ${call.resource}${call.name ? ` "${call.name}"` : ""}`;
    let reauthenticated = false;
    let lastDetail = "";
    let lastCode = 0;
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      const transport = await this.getTransport();
      const headers: Record<string, string> = { ...transport.headers, accept: "application/json" };
      let body: string | undefined;
      if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers["content-type"] = call.contentType ?? "application/json";
      }
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request({
          method: call.method,
          url: this.server.replace(/\/$/, "") + call.path + this.query(call.query),
          headers,
          body,
          agent: transport.agent,
          timeoutMs: this.options.requestTimeoutMs ?? 30_000,
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "";
        if (TRANSIENT_NET.has(code) && attempt < this.retry.attempts) {
          lastDetail = code;
          await this.backoff(what, attempt, code, undefined);
          continue;
        }
        throw this.networkError(error, what);
      }
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const text = res.body.toString("utf8");
        const type = String(res.headers["content-type"] ?? "");
        let parsed: unknown = text;
        if (type.includes("json") || text.startsWith("{")) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        return { body: parsed, statusCode: res.statusCode };
      }
      if (res.statusCode === 401 && !reauthenticated && invalidateCredentials(this.connection)) {
        reauthenticated = true;
        this.transport = undefined;
        continue;
      }
      if (RETRYABLE.has(res.statusCode) && attempt < this.retry.attempts) {
        lastCode = res.statusCode;
        lastDetail = parseStatus(res.body)?.message ?? "";
        const retryAfter = Number(res.headers["retry-after"]);
        await this.backoff(
          what,
          attempt,
          `${res.statusCode} ${lastDetail}`.trim(),
          Number.isFinite(retryAfter) ? retryAfter : undefined,
        );
        continue;
      }
      if (RETRYABLE.has(res.statusCode)) {
        const status = parseStatus(res.body);
        const m = messages.serverError(what, res.statusCode, status?.message ?? "", attempt);
        throw new KubeApiError(m.message, res.statusCode, status, { hint: m.hint });
      }
      throw this.statusError(res.statusCode, res.body, call);
    }
    const m = messages.serverError(what, lastCode, lastDetail, this.retry.attempts);
    throw new KubeApiError(m.message, lastCode, undefined, { hint: m.hint });
  }

  private async backoff(
    what: string,
    attempt: number,
    detail: string,
    retryAfterSeconds: number | undefined,
  ): Promise<void> {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    const jittered = exp * (0.8 + Math.random() * 0.4);
    const delay = retryAfterSeconds !== undefined ? Math.min(retryAfterSeconds * 1000, 10_000) : jittered;
    this.options.onRetry?.(what, attempt, detail);
    await sleep(delay);
  }

  private networkError(error: unknown, what: string): Error {
    const err = error as NodeJS.ErrnoException;
    const detail = err.code
      ? `${err.code}${err.message && !err.message.includes(err.code) ? ` (${err.message})` : ""}`
      : err.message;
    const m = messages.unreachable(this.server, this.connection.contextName, `${what}: ${detail}`);
    return new ClusterUnreachableError(m.message, { hint: m.hint, cause: error });
  }

  private statusError(code: number, body: Buffer, call: Call): KubeApiError {
    const status = parseStatus(body);
    const detail = status?.message ?? body.toString("utf8").slice(0, 300);
    const what = `${call.resource}${call.name ? ` "${call.name}"` : ""}${call.namespace ? ` in namespace "${call.namespace}"` : ""}`;
    switch (code) {
      case 401: {
        const m = messages.unauthorized(this.server, this.connection.user.name);
        return new UnauthorizedError(m.message, code, status, { hint: m.hint });
      }
      case 403: {
        const m = messages.forbidden(
          this.connection.user.name,
          call.verb,
          call.resource,
          call.namespace,
          detail,
        );
        return new ForbiddenError(m.message, code, status, { hint: m.hint });
      }
      case 404:
        return new NotFoundError(`${what} not found`, code, status);
      case 409:
        return new ConflictError(`${call.verb} ${what}: ${detail}`, code, status, {
          hint: "another client changed it; retry",
        });
      default: {
        const m = messages.invalid(`${call.verb} ${what}`, `${code} ${detail}`);
        return new KubeApiError(m.message, code, status, { hint: m.hint });
      }
    }
  }
}

/** Escapes a path segment as Go's url package does (":" and "@" stay, e.g. "system:controller:x"). */
function segment(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ":").replace(/%40/g, "@");
}

function parseStatus(body: Buffer): ApiStatus | undefined {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as ApiStatus;
    return typeof parsed === "object" && parsed ? parsed : undefined;
  } catch {
    return undefined;
  }
}
