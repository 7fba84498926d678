// The HTTP front: authentication, authorization hook, fault injection, routing of discovery and
// resource paths to the engine, content negotiation, and Status bodies for every error.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Engine, groupVersion, type PatchType, scaleOf, withReplicas } from "./engine.js";
import { faultAnswer, type Faults, type MatchedRequest } from "../faults.js";
import { hasAdmissionWebhooks, runAdmissionWebhooks, warningHeaders } from "./admission-webhooks.js";
import { conversionWebhookOf, convertForRead } from "./conversion-webhooks.js";
import { deepEqual, jsonPatch, mergePatch } from "./patch.js";
import {
  effectiveLimit,
  partialObjectMetadata,
  partialObjectMetadataList,
  validateReadOptions,
  wantsPartialMetadata,
} from "./read-options.js";
import { apiGroup, apiGroupList, apiResourceList } from "./resources.js";
import { impersonatedUser, rbacAuthorize } from "./rbac.js";
import { selectorMatcher } from "./selectors.js";
import {
  ApiError,
  badRequest,
  invalid,
  methodNotAllowed,
  pathNotFound,
  qualifiedResource,
  successStatus,
  unsupportedMediaType,
} from "./status.js";
import { toTable, wantsTable } from "./table.js";
import type { KObj, RequestAttributes, ResourceDef, UserInfo } from "./types.js";
import { parseYamlText } from "../../common/yaml/read-values.js";
import type { WatchHub } from "./watch.js";

export type Authorizer = (attrs: RequestAttributes) => boolean | string | undefined;

export interface HttpContext {
  engine: Engine;
  watches: WatchHub;
  faults: Faults;
  tokens: Map<string, UserInfo>;
  authorizers: Authorizer[];
  version: KObj;
  maxBodyBytes: number;
  /** Whether watches may ask for their initial events (the WatchList feature gate). */
  watchList: boolean;
  onRequest: (entry: { method: string; path: string; status: number; user: string }) => void;
  /** Answers virtual create-only resources (access reviews). */
  virtual: (def: ResourceDef, body: KObj, user: UserInfo) => KObj;
}

interface ResourcePath {
  group: string;
  version: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
  watchPrefix: boolean;
}

const publicPaths = new Set(["/healthz", "/livez", "/readyz", "/version"]);

function send(res: ServerResponse, status: number, body: KObj, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: ApiError): void {
  send(res, err.code, err.toStatus(), err.headers);
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max)
      throw new ApiError(413, "Request entity too large: limit is 3145728", "RequestEntityTooLarge");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

function parseDocument(text: string, yaml: boolean): unknown {
  if (text.trim() === "") throw badRequest("the body of the request was empty");
  try {
    return yaml ? parseYamlText(text) : JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    throw badRequest(
      yaml
        ? `error converting YAML to JSON: ${detail}`
        : `couldn't get version/kind; json parse error: ${detail}`,
    );
  }
}

function parseResourcePath(segments: string[], group: string, version: string): ResourcePath {
  let rest = segments;
  let watchPrefix = false;
  if (rest[0] === "watch") {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace = "";
  if (
    rest[0] === "namespaces" &&
    rest.length >= 3 &&
    !(rest.length === 3 && ["status", "finalize"].includes(rest[2]!))
  ) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) throw pathNotFound();
  return {
    group,
    version,
    resource: rest[0]!,
    name: rest[1] ?? "",
    subresource: rest[2] ?? "",
    namespace,
    watchPrefix,
  };
}

function forbiddenMessage(attrs: RequestAttributes, reason: string | undefined): ApiError {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : "at the cluster scope";
  const qr = qualifiedResource({ resource: attrs.resource, group: attrs.group });
  const subject = attrs.name ? `${qr} "${attrs.name}"` : qr;
  let message = `${subject} is forbidden: User "${attrs.user.name}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.group}" ${scope}`;
  if (reason) message += `: ${reason}`;
  const details: KObj = {
    name: attrs.name || undefined,
    group: attrs.group || undefined,
    kind: attrs.resource,
  };
  for (const k of Object.keys(details)) if (details[k] === undefined) delete details[k];
  return new ApiError(403, message, "Forbidden", details);
}

export function checkAccess(ctx: HttpContext, attrs: RequestAttributes): string | true {
  for (const a of ctx.authorizers) {
    const verdict = a(attrs);
    if (verdict === false) return "";
    if (typeof verdict === "string") return verdict;
  }
  if (attrs.user.rbac && !attrs.user.groups.includes("system:masters")) {
    const rbac = rbacAuthorize(ctx.engine, attrs);
    if (!rbac.allowed) return rbac.reason;
  }
  return true;
}

/**
 * The user a request acts as: with Impersonate-User, the impersonated user (RBAC-authorized from
 * then on), once the requester may `impersonate` that user (or ServiceAccount) and each group.
 */
function impersonation(ctx: HttpContext, req: IncomingMessage, requester: UserInfo): UserInfo {
  const name = req.headersDistinct["impersonate-user"]?.[0];
  const groups = req.headersDistinct["impersonate-group"] ?? [];
  if (name === undefined) {
    if (groups.length > 0) throw badRequest("requested [Impersonate-Group] without impersonating a user");
    return requester;
  }
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  const asked: Array<Pick<RequestAttributes, "resource" | "namespace" | "name">> = [
    sa
      ? { resource: "serviceaccounts", namespace: sa[1]!, name: sa[2]! }
      : { resource: "users", namespace: "", name },
    ...groups.map((g) => ({ resource: "groups", namespace: "", name: g })),
  ];
  for (const target of asked) {
    const attrs: RequestAttributes = {
      ...target,
      user: requester,
      verb: "impersonate",
      group: "",
      version: "v1",
      subresource: "",
      path: "",
    };
    const access = checkAccess(ctx, attrs);
    if (access !== true) throw forbiddenMessage(attrs, access || undefined);
  }
  return impersonatedUser(name, groups);
}

function truthy(v: string | null): boolean {
  return v === "true" || v === "1";
}

function parseDeleteOptions(body: unknown, query: URLSearchParams): KObj {
  const opts: KObj = body && typeof body === "object" ? { ...(body as KObj) } : {};
  if (query.get("propagationPolicy")) opts.propagationPolicy = query.get("propagationPolicy");
  if (query.get("orphanDependents")) opts.orphanDependents = truthy(query.get("orphanDependents"));
  if (query.get("dryRun")) opts.dryRun = [query.get("dryRun")];
  return opts;
}

function managerFrom(req: IncomingMessage, query: URLSearchParams): string {
  const explicit = query.get("fieldManager");
  if (explicit) return explicit;
  const ua = req.headers["user-agent"] ?? "";
  const prefix = ua.split("/")[0]!.trim();
  return prefix === "" ? "unknown" : prefix.slice(0, 128);
}

export async function handle(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const method = (req.method ?? "GET").toUpperCase();
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const query = url.searchParams;
  const isWatch = truthy(query.get("watch")) || path.includes("/watch/");
  let user: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
  const record = (status: number) =>
    ctx.onRequest({ method, path: url.pathname + url.search, status, user: user.name });
  try {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer\s+(.+)$/i.exec(auth);
      const found = m ? ctx.tokens.get(m[1]!.trim()) : undefined;
      if (!found) throw new ApiError(401, "Unauthorized", "Unauthorized");
      user = found;
    } else if (!publicPaths.has(path)) {
      throw new ApiError(401, "Unauthorized", "Unauthorized");
    }
    user = impersonation(ctx, req, user);

    // After authentication, so faults can match the user; a client that leaves a hang is not answered.
    const matched: MatchedRequest = { method, path, watch: isWatch, user: user.name };
    const left = new AbortController();
    res.on("close", () => left.abort());
    await ctx.faults.admit(matched, left.signal);
    if (left.signal.aborted) return;
    const fault = ctx.faults.take(matched);
    if (fault) {
      const answer = faultAnswer(fault, isWatch);
      res.writeHead(answer.status, {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(answer.body),
        ...answer.headers,
      });
      res.end(answer.body);
      record(answer.status);
      return;
    }

    if (publicPaths.has(path)) {
      if (path === "/version") send(res, 200, ctx.version);
      else {
        res.writeHead(200, {
          "Content-Type": "text/plain; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        });
        res.end("ok");
      }
      record(200);
      return;
    }
    const status = await route(ctx, req, res, { method, path, query, user, isWatch, matched });
    record(status);
  } catch (e) {
    const err =
      e instanceof ApiError
        ? e
        : new ApiError(500, `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
    if (!res.headersSent) sendError(res, err);
    else res.end();
    record(err.code);
  }
}

interface Routed {
  method: string;
  path: string;
  query: URLSearchParams;
  user: UserInfo;
  isWatch: boolean;
  /** The request as fault rules see it (watch streams pass through their gate). */
  matched: MatchedRequest;
}

async function route(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: Routed,
): Promise<number> {
  const { engine } = ctx;
  // Clients percent-encode names (client-node writes `system%3Acontroller`); the real server decodes.
  const segs = r.path.split("/").filter(Boolean).map(decodeSegment);
  const registry = engine.registry;
  const discovery = (body: KObj | undefined) => {
    if (!body) throw pathNotFound();
    if (r.method !== "GET") throw methodNotAllowed();
    send(res, 200, body);
    return 200;
  };
  if (segs[0] === "api") {
    if (segs.length === 1) {
      const host = req.headers.host ?? "127.0.0.1";
      return discovery({
        kind: "APIVersions",
        versions: ["v1"],
        serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
      });
    }
    if (segs.length === 2) return discovery(apiResourceList(registry, "", segs[1]!));
    return resource(ctx, req, res, r, parseResourcePath(segs.slice(2), "", segs[1]!));
  }
  if (segs[0] === "apis") {
    if (segs.length === 1) return discovery(apiGroupList(registry));
    if (segs.length === 2) return discovery(apiGroup(registry, segs[1]!));
    if (segs.length === 3) return discovery(apiResourceList(registry, segs[1]!, segs[2]!));
    return resource(ctx, req, res, r, parseResourcePath(segs.slice(3), segs[1]!, segs[2]!));
  }
  if (r.path === "/openapi/v2" || r.path.startsWith("/openapi/v3")) {
    if (r.path === "/openapi/v2") {
      // kubectl validates with this document; an empty one makes it skip client-side validation.
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("");
      return 200;
    }
    return discovery({ paths: {} });
  }
  throw pathNotFound();
}

function verbFor(method: string, p: ResourcePath, watch: boolean): string {
  switch (method) {
    case "GET":
      return watch ? "watch" : p.name ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return p.name ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}

/** One request on a resource path, routed and authorized: what every verb handler needs. */
interface ResourceCall {
  ctx: HttpContext;
  req: IncomingMessage;
  res: ServerResponse;
  r: Routed;
  p: ResourcePath;
  engine: Engine;
  def: ResourceDef;
  sub: ResourcePath["subresource"];
  verb: string;
  q: URLSearchParams;
  dryRun: boolean;
  manager: string;
}

/** The resource definition and verb of a request, or the 404/405 the API server answers. */
function routeResource(ctx: HttpContext, r: Routed, p: ResourcePath): { def: ResourceDef; verb: string } {
  const def = ctx.engine.registry.find(p.group, p.version, p.resource);
  if (!def) throw pathNotFound();
  if (p.namespace && !def.namespaced) throw pathNotFound();
  if (def.namespaced && !p.namespace && p.name) throw pathNotFound();
  const sub = p.subresource;
  if (
    sub &&
    !(
      (sub === "status" && def.status) ||
      (sub === "scale" && def.scale) ||
      (sub === "finalize" && def.resource === "namespaces" && def.group === "")
    )
  ) {
    throw pathNotFound();
  }
  const watch = r.isWatch && r.method === "GET";
  const verb = verbFor(r.method, p, watch);
  if (!["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"].includes(verb))
    throw methodNotAllowed();
  if (verb === "create" && p.name && !def.virtual) throw methodNotAllowed();
  // Namespaced kinds are created under /namespaces/NS/…; the cluster-wide path only lists and watches.
  if (verb === "create" && def.namespaced && !p.namespace) throw methodNotAllowed();
  if ((verb === "update" || verb === "patch") && !p.name) throw methodNotAllowed();
  if (sub && !["get", "update", "patch"].includes(verb)) throw methodNotAllowed();
  if (sub === "finalize" && verb !== "update") throw methodNotAllowed();
  if (!sub && !def.verbs.includes(verb)) throw methodNotAllowed();
  return { def, verb };
}

function dryRunOf(q: URLSearchParams): boolean {
  const dryRun = q.get("dryRun") === "All";
  if (q.get("dryRun") && !dryRun) {
    throw invalid({ kind: "CreateOptions", group: "meta.k8s.io" }, "", [
      {
        field: "dryRun",
        type: "FieldValueNotSupported",
        message: `Unsupported value: "${q.get("dryRun")}": supported values: "All"`,
      },
    ]);
  }
  return dryRun;
}

async function resource(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: Routed,
  p: ResourcePath,
): Promise<number> {
  const { def, verb } = routeResource(ctx, r, p);
  const sub = p.subresource;
  const attrs: RequestAttributes = {
    user: r.user,
    verb,
    group: def.group,
    version: def.version,
    resource: def.resource,
    subresource: sub,
    namespace: p.namespace,
    name: p.name,
    path: r.path,
  };
  const access = checkAccess(ctx, attrs);
  if (access !== true) throw forbiddenMessage(attrs, access || undefined);
  const q = r.query;
  const call: ResourceCall = {
    ...{ ctx, req, res, r, p, def, sub, verb, q },
    engine: ctx.engine,
    dryRun: dryRunOf(q),
    manager: managerFrom(req, q),
  };
  if (verb === "get" || verb === "list" || verb === "watch") return serveRead(call);
  const text = await readBody(req, ctx.maxBodyBytes);
  if (verb === "create") return serveCreate(call, text);
  if (verb === "update") return serveUpdate(call, text);
  if (verb === "patch") return servePatch(call, text);
  return serveDelete(call, text);
}

function admissionBaseOf(c: ResourceCall) {
  const { def, sub, p, dryRun, r } = c;
  return { def, subresource: sub, namespace: p.namespace, name: p.name, dryRun, user: r.user };
}

async function serveRead(c: ResourceCall): Promise<number> {
  const { ctx, req, res, p, engine, def, sub, verb, q } = c;
  const matcher = selectorMatcher(
    q.get("labelSelector"),
    q.get("fieldSelector"),
    def.selectableFields,
    !def.builtin,
  );
  validateReadOptions(q, verb === "watch", ctx.watchList);
  const partial = wantsPartialMetadata(req, verb === "list");
  if (verb === "watch") {
    const byName = p.name ? (o: KObj) => o.metadata?.name === p.name && matcher(o) : matcher;
    const timeout = q.get("timeoutSeconds");
    ctx.watches.serve(res, {
      def,
      namespace: p.namespace,
      matcher: byName,
      resourceVersion: q.get("resourceVersion"),
      sendInitialEvents: truthy(q.get("sendInitialEvents")),
      allowBookmarks: truthy(q.get("allowWatchBookmarks")),
      timeoutSeconds: timeout ? Number(timeout) : undefined,
      shape: partial ? partialObjectMetadata : undefined,
      client: c.r.matched,
    });
    return 200;
  }
  if (verb === "get") {
    const stored = engine.getStored(def, p.namespace, p.name);
    const obj = sub ? engine.present(def, stored) : (await convertForRead(engine, def, [stored]))[0]!;
    if (sub === "scale") {
      send(res, 200, scaleOf(def, engine.getStored(def, p.namespace, p.name)));
      return 200;
    }
    if (partial) send(res, 200, partialObjectMetadata(obj));
    else send(res, 200, wantsTable(req) ? toTable(def, [obj], obj.metadata.resourceVersion) : obj);
    return 200;
  }
  const limit = effectiveLimit(q);
  const list = engine.list(def, p.namespace, {
    matcher,
    limit,
    continueToken: q.get("continue") ?? undefined,
  });
  if (conversionWebhookOf(engine, def)) {
    const stored = (list.items as KObj[]).map((o) =>
      engine.getStored(def, o.metadata?.namespace ?? "", o.metadata?.name),
    );
    list.items = await convertForRead(engine, def, stored);
  }
  if (partial) send(res, 200, partialObjectMetadataList(list));
  else
    send(
      res,
      200,
      wantsTable(req)
        ? toTable(def, list.items, list.metadata.resourceVersion, list.metadata.continue)
        : list,
    );
  return 200;
}

async function serveCreate(c: ResourceCall, text: string): Promise<number> {
  const { ctx, req, res, r, p, engine, def, dryRun, manager } = c;
  const type = mediaType(req);
  const admissionBase = admissionBaseOf(c);
  const body = parseBody(text, type);
  if (def.virtual) {
    send(res, 201, ctx.virtual(def, body as KObj, r.user));
    return 201;
  }
  const hooked = { ...admissionBase, operation: "CREATE" as const };
  if (hasAdmissionWebhooks(engine, hooked)) {
    const candidate = engine.create(def, p.namespace, body, { manager, dryRun: true });
    const admitted = await runAdmissionWebhooks(engine, {
      ...hooked,
      name: candidate.metadata.name,
      object: candidate,
      oldObject: undefined,
    });
    const object = admitted.object as KObj;
    const created = dryRun ? object : engine.create(def, p.namespace, freshForCreate(object), { manager });
    send(res, 201, created, warningHeaders(admitted.warnings));
    return 201;
  }
  const created = engine.create(def, p.namespace, body, { manager, dryRun });
  send(res, 201, created);
  return 201;
}

async function serveUpdate(c: ResourceCall, text: string): Promise<number> {
  const { req, res, p, engine, def, sub, dryRun, manager } = c;
  const type = mediaType(req);
  const admissionBase = admissionBaseOf(c);
  const body = parseBody(text, type);
  if (sub === "scale") {
    const scale = body as KObj;
    const current = engine.getStored(def, p.namespace, p.name);
    const rv = scale.metadata?.resourceVersion;
    const replicas = Number(scale.spec?.replicas ?? 0);
    const next = withReplicas(def, engine.present(def, current), replicas);
    if (rv) next.metadata.resourceVersion = rv;
    const updated = engine.update(def, p.namespace, p.name, next, { manager, dryRun });
    send(res, 200, scaleOf(def, updated));
    return 200;
  }
  if (sub === "finalize") {
    const current = engine.present(def, engine.getStored(def, p.namespace, p.name));
    const finalizers = (body as KObj).spec?.finalizers;
    const next = { ...current, spec: { ...(current.spec ?? {}), finalizers: finalizers ?? [] } };
    const updated = engine.internalWrite(def, next, manager);
    send(res, 200, engine.present(def, updated ?? current));
    return 200;
  }
  const hooked = { ...admissionBase, operation: "UPDATE" as const };
  if (hasAdmissionWebhooks(engine, hooked)) {
    const oldObject = engine.get(def, p.namespace, p.name);
    const writeOptions = { manager, subresource: sub || undefined };
    const candidate = engine.update(def, p.namespace, p.name, body, { ...writeOptions, dryRun: true });
    const admitted = await runAdmissionWebhooks(engine, { ...hooked, object: candidate, oldObject });
    const object = admitted.object as KObj;
    const updated = dryRun ? object : engine.update(def, p.namespace, p.name, object, writeOptions);
    send(res, 200, updated, warningHeaders(admitted.warnings));
    return 200;
  }
  send(
    res,
    200,
    engine.update(def, p.namespace, p.name, body, { manager, dryRun, subresource: sub || undefined }),
  );
  return 200;
}

async function servePatch(c: ResourceCall, text: string): Promise<number> {
  const { req, res, p, engine, def, sub, q, dryRun, manager } = c;
  const type = mediaType(req);
  const admissionBase = admissionBaseOf(c);
  const patchTypes: Record<string, PatchType> = {
    "application/json-patch+json": "json",
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
  };
  const pt = patchTypes[type];
  if (!pt) {
    const accepted = [
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/apply-patch+yaml",
    ];
    if (def.builtin) accepted.splice(2, 0, "application/strategic-merge-patch+json");
    throw unsupportedMediaType(accepted);
  }
  const force = q.get("force");
  if (pt === "apply" && !q.get("fieldManager")) {
    throw invalid({ kind: "PatchOptions", group: "meta.k8s.io" }, "", [
      {
        field: "fieldManager",
        type: "FieldValueRequired",
        message: "Required value: is required for apply patch",
      },
    ]);
  }
  if (pt !== "apply" && force !== null) {
    throw invalid({ kind: "PatchOptions", group: "meta.k8s.io" }, "", [
      {
        field: "force",
        type: "FieldValueForbidden",
        message: "Forbidden: may not be specified for non-apply patch",
      },
    ]);
  }
  const body = parseDocument(text, pt === "apply");
  if (sub === "scale") {
    const current = engine.getStored(def, p.namespace, p.name);
    const scale = scaleOf(def, current);
    const patched = (pt === "json" ? jsonPatch(scale, body) : mergePatch(scale, body)) as KObj;
    const next = withReplicas(def, engine.present(def, current), Number(patched.spec?.replicas ?? 0));
    const updated = engine.update(def, p.namespace, p.name, next, { manager, dryRun });
    send(res, 200, scaleOf(def, updated));
    return 200;
  }
  const patchOptions = { manager, force: truthy(force), subresource: sub || undefined };
  if (
    hasAdmissionWebhooks(engine, { ...admissionBase, operation: "UPDATE" }) ||
    (pt === "apply" && hasAdmissionWebhooks(engine, { ...admissionBase, operation: "CREATE" }))
  ) {
    const stored = engine.store.get(def.storageKey, def.namespaced ? p.namespace : "", p.name);
    const oldObject = stored ? engine.present(def, stored) : undefined;
    const dry = engine.patch(def, p.namespace, p.name, pt, body, { ...patchOptions, dryRun: true });
    const operation = dry.created ? ("CREATE" as const) : ("UPDATE" as const);
    const admitted = await runAdmissionWebhooks(engine, {
      ...admissionBase,
      operation,
      object: dry.object,
      oldObject,
    });
    const object = admitted.object as KObj;
    let result = object;
    if (!dryRun) {
      // Unchanged by the webhooks: the patch itself (apply keeps its field ownership); else the mutated object.
      if (deepEqual(object, dry.object))
        result = engine.patch(def, p.namespace, p.name, pt, body, {
          ...patchOptions,
          dryRun: false,
        }).object;
      else if (dry.created) result = engine.create(def, p.namespace, freshForCreate(object), { manager });
      else
        result = engine.update(def, p.namespace, p.name, object, {
          manager,
          subresource: sub || undefined,
        });
    }
    send(res, dry.created ? 201 : 200, result, warningHeaders(admitted.warnings));
    return dry.created ? 201 : 200;
  }
  const out = engine.patch(def, p.namespace, p.name, pt, body, { ...patchOptions, dryRun });
  send(res, out.created ? 201 : 200, out.object);
  return out.created ? 201 : 200;
}

async function serveDelete(c: ResourceCall, text: string): Promise<number> {
  const { req, res, p, engine, def, verb, q, dryRun } = c;
  const type = mediaType(req);
  const admissionBase = admissionBaseOf(c);
  // delete / deletecollection
  const body = text.trim() === "" ? undefined : parseBody(text, type);
  const opts = parseDeleteOptions(body, q);
  const deleteOpts = {
    propagationPolicy: opts.propagationPolicy,
    orphanDependents: opts.orphanDependents,
    preconditions: opts.preconditions,
    dryRun: Array.isArray(opts.dryRun) ? opts.dryRun.includes("All") : dryRun,
  };
  if (verb === "deletecollection") return serveDeleteCollection(c, deleteOpts);
  {
    const hooked = { ...admissionBase, operation: "DELETE" as const, dryRun: deleteOpts.dryRun };
    let deleteWarnings: Record<string, string> = {};
    if (hasAdmissionWebhooks(engine, hooked)) {
      const oldObject = engine.get(def, p.namespace, p.name);
      const admitted = await runAdmissionWebhooks(engine, { ...hooked, object: undefined, oldObject });
      deleteWarnings = warningHeaders(admitted.warnings);
    }
    const out = engine.delete(def, p.namespace, p.name, deleteOpts);
    const status = !out.deleted && opts.orphanDependents === false ? 202 : 200;
    if (out.deleted && !returnsDeletedObject(def)) {
      // Most built-in registries answer an immediate delete with a Success Status, not the object.
      const details: KObj = { name: p.name };
      if (def.group !== "") details.group = def.group;
      details.kind = def.resource;
      details.uid = out.object.metadata?.uid;
      send(res, status, successStatus(details), deleteWarnings);
      return status;
    }
    send(res, status, out.object, deleteWarnings);
    return status;
  }
}

async function serveDeleteCollection(
  c: ResourceCall,
  deleteOpts: Parameters<Engine["delete"]>[3],
): Promise<number> {
  const { res, p, engine, def, q } = c;
  const matcher = selectorMatcher(
    q.get("labelSelector"),
    q.get("fieldSelector"),
    def.selectableFields,
    !def.builtin,
  );
  const targets = engine.list(def, p.namespace, { matcher }).items as KObj[];
  const items: KObj[] = [];
  for (const t of targets) {
    try {
      items.push(
        engine.delete(def, t.metadata.namespace ?? "", t.metadata.name, {
          ...deleteOpts,
          preconditions: undefined,
        }).object,
      );
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
  send(res, 200, {
    apiVersion: groupVersion(def),
    kind: def.listKind,
    metadata: { resourceVersion: String(engine.store.currentRv()) },
    items,
  });
  return 200;
}

/** Registries that return the deleted object itself (the others answer a Success Status). */
/** A dry-run result as a create body: the server fills uid, timestamps and bookkeeping again. */
function freshForCreate(object: KObj): KObj {
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    managedFields: _mf,
    generation: _g,
    ...metadata
  } = object.metadata ?? {};
  return { ...object, metadata };
}

function returnsDeletedObject(def: ResourceDef): boolean {
  if (!def.builtin) return true;
  return (
    (def.group === "" &&
      ["pods", "services", "nodes", "namespaces", "persistentvolumeclaims"].includes(def.resource)) ||
    (def.group === "storage.k8s.io" && def.resource === "storageclasses")
  );
}

function parseBody(text: string, type: string): unknown {
  if (type === "" || type === "application/json" || type.endsWith("+json")) return parseDocument(text, false);
  if (type === "application/yaml" || type === "application/x-yaml" || type.endsWith("+yaml"))
    return parseDocument(text, true);
  throw unsupportedMediaType(["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"]);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
