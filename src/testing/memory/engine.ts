// The storage-facing half of the server: create/get/list/update/patch/delete with the apiserver's
// rules (names, namespaces, resourceVersion concurrency, status subresource, generation, finalizers,
// managedFields), independent of HTTP so the background controllers share it.
import { randomUUID } from "node:crypto";
import type { Admission } from "./admission.js";
import { applyConfig, builtinListKeys, type ListKeys, recordUpdate, schemaListKeys } from "./fields.js";
import { decodeProblem } from "./builtins.js";
import { nameRuleFor, randomSuffix, validateLabels, validateName } from "./names.js";
import { deepEqual, jsonPatch, mergePatch, strategicMergePatch } from "./patch.js";
import { labelSelectorToString } from "./selectors.js";
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  type FieldError,
  fieldForbidden,
  forbidden,
  invalid,
  modifiedMessage,
  notFound,
  required,
  unsupportedMediaType,
} from "./status.js";
import type { Registry } from "./resources.js";
import type { Store } from "./store.js";
import type { KObj, ResourceDef } from "./types.js";

export interface WriteContext {
  /** Field manager recorded in managedFields. */
  manager: string;
  dryRun?: boolean;
  /** "status" or "scale" for subresource writes. */
  subresource?: string;
  /** Controllers write without status/validation rules and without resourceVersion checks. */
  internal?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type PatchType = "json" | "merge" | "strategic" | "apply";

/** Called after any stored change (removed = the object is gone). */
export type WriteHook = (def: ResourceDef, obj: KObj, removed: boolean) => void;

export const namespacesDef = { group: "", resource: "namespaces" };

export function groupVersion(def: Pick<ResourceDef, "group" | "version">): string {
  return def.group === "" ? def.version : `${def.group}/${def.version}`;
}

export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

function isObject(v: unknown): v is KObj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const objectMetaFields = new Set([
  "name",
  "generateName",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

/** Default propagation when the client names none (batch/v1 Jobs still orphan their pods). */
function defaultPropagation(def: ResourceDef): string {
  return def.group === "batch" && def.resource === "jobs" ? "Orphan" : "Background";
}

export class Engine {
  readonly admissions: Admission[] = [];
  readonly hooks: WriteHook[] = [];

  constructor(
    readonly store: Store,
    readonly registry: Registry,
    private readonly kick: () => void,
  ) {}

  // ---- presentation -------------------------------------------------------------------------

  /** The stored object as served at def's group/version. */
  present(def: ResourceDef, stored: KObj): KObj {
    const copy = structuredClone(stored);
    if (def.group === "events.k8s.io") return toEventsV1(copy);
    const { apiVersion: _a, kind: _k, ...rest } = copy;
    return { apiVersion: groupVersion(def), kind: def.kind, ...rest };
  }

  /** A request body in def's version turned into the stored form. */
  private intake(def: ResourceDef, body: KObj): KObj {
    const undecodable = decodeProblem(def, body);
    if (undecodable !== undefined)
      throw badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${undecodable}`,
      );
    if (def.group === "events.k8s.io") return fromEventsV1(body);
    return { ...body, apiVersion: groupVersion(def), kind: def.kind };
  }

  /** The def objects of a bucket are presented with when no request names a version. */
  canonicalDef(storageKey: string): ResourceDef | undefined {
    const defs = this.registry.byStorageKey(storageKey);
    return defs.find((d) => d.group !== "events.k8s.io" && (!d.crdName || d.storageVersion)) ?? defs[0];
  }

  // ---- reads --------------------------------------------------------------------------------

  getStored(def: ResourceDef, namespace: string, name: string): KObj {
    const obj = this.store.get(def.storageKey, def.namespaced ? namespace : "", name);
    if (!obj) throw notFound(def, name);
    return obj;
  }

  get(def: ResourceDef, namespace: string, name: string): KObj {
    return this.present(def, this.getStored(def, namespace, name));
  }

  list(
    def: ResourceDef,
    namespace: string,
    opts: { matcher: (o: KObj) => boolean; limit?: number; continueToken?: string },
  ): KObj {
    let items = this.store.list(def.storageKey, def.namespaced ? namespace : "").filter(opts.matcher);
    let rv = this.store.currentRv();
    if (opts.continueToken) {
      const token = decodeContinue(opts.continueToken);
      if (token.rv < this.store.oldestWatchableRv()) {
        throw new ApiError(
          410,
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
          "Expired",
        );
      }
      rv = token.rv;
      items = items.filter((o) => itemKey(o) > token.start);
    }
    const metadata: KObj = { resourceVersion: String(rv) };
    if (opts.limit && opts.limit > 0 && items.length > opts.limit) {
      const remaining = items.length - opts.limit;
      items = items.slice(0, opts.limit);
      metadata.continue = encodeContinue(rv, itemKey(items[items.length - 1]!));
      metadata.remainingItemCount = remaining;
    }
    return {
      apiVersion: groupVersion(def),
      kind: def.listKind,
      metadata,
      items: items.map((o) => {
        const p = this.present(def, o);
        if (!def.builtin) return p;
        const { apiVersion: _a, kind: _k, ...rest } = p;
        return rest;
      }),
    };
  }

  // ---- writes -------------------------------------------------------------------------------

  create(def: ResourceDef, namespace: string, body: unknown, ctx: WriteContext): KObj {
    const obj = this.checkBody(def, body);
    const meta: KObj = isObject(obj.metadata) ? { ...obj.metadata } : {};
    obj.metadata = meta;
    if (def.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace) {
        throw badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      meta.namespace = namespace;
    } else delete meta.namespace;
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== "") {
      throw badRequest("resourceVersion should not be set on objects to be created");
    }
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix()}`;
    if (!meta.name) {
      throw invalid(def, "", [required("metadata.name", "name or generateName is required")]);
    }
    const nameErrors = validateName(String(meta.name), nameRuleFor(def.group, def.resource));
    if (nameErrors.length > 0) throw invalid(def, String(meta.name), nameErrors);
    if (def.namespaced) this.checkNamespaceWritable(def, namespace, String(meta.name));
    if (this.store.get(def.storageKey, def.namespaced ? namespace : "", meta.name)) {
      throw alreadyExists(def, String(meta.name));
    }
    return this.present(def, this.finishWrite(def, undefined, this.intake(def, obj), ctx));
  }

  update(def: ResourceDef, namespace: string, name: string, body: unknown, ctx: WriteContext): KObj {
    const obj = this.checkBody(def, body);
    const old = this.getStored(def, namespace, name);
    const meta = isObject(obj.metadata) ? obj.metadata : {};
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    if (
      def.namespaced &&
      meta.namespace !== undefined &&
      meta.namespace !== "" &&
      meta.namespace !== namespace
    ) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    if (
      meta.resourceVersion !== undefined &&
      meta.resourceVersion !== "" &&
      meta.resourceVersion !== old.metadata.resourceVersion
    ) {
      throw conflict(def, name, modifiedMessage);
    }
    if (meta.uid && meta.uid !== old.metadata.uid) {
      throw conflict(
        def,
        name,
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    const next = this.intake(def, { ...obj, metadata: { ...meta, name, namespace: old.metadata.namespace } });
    return this.present(def, this.finishWrite(def, old, next, ctx));
  }

  patch(
    def: ResourceDef,
    namespace: string,
    name: string,
    type: PatchType,
    patchBody: unknown,
    ctx: WriteContext & { force?: boolean },
  ): { object: KObj; created: boolean } {
    if (type === "strategic" && !def.builtin) {
      throw unsupportedMediaType([
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/apply-patch+yaml",
      ]);
    }
    const existing = this.store.get(def.storageKey, def.namespaced ? namespace : "", name);
    if (type === "apply") return this.apply(def, namespace, name, existing, patchBody, ctx);
    if (!existing) throw notFound(def, name);
    const current = this.present(def, existing);
    let patched: unknown;
    if (type === "json") patched = jsonPatch(current, patchBody);
    else if (!isObject(patchBody))
      throw badRequest("json: cannot unmarshal array into Go value of type map[string]interface {}");
    else if (type === "merge") patched = mergePatch(current, patchBody);
    else patched = strategicMergePatch(current, patchBody);
    if (!isObject(patched)) throw new ApiError(422, "the patched object is not a JSON object", "Invalid");
    const meta = isObject(patched.metadata) ? patched.metadata : {};
    if (meta.name !== name)
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(def, name, modifiedMessage);
    }
    const next = this.intake(def, {
      ...patched,
      metadata: { ...meta, namespace: existing.metadata.namespace },
    });
    return { object: this.present(def, this.finishWrite(def, existing, next, ctx)), created: false };
  }

  private apply(
    def: ResourceDef,
    namespace: string,
    name: string,
    existing: KObj | undefined,
    config: unknown,
    ctx: WriteContext & { force?: boolean },
  ): { object: KObj; created: boolean } {
    if (!isObject(config))
      throw badRequest("error decoding YAML: the applied configuration must be an object");
    const meta = isObject(config.metadata) ? config.metadata : {};
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    if (!config.apiVersion || !config.kind) {
      throw badRequest(`invalid object type: ${config.apiVersion ?? ""}, Kind=${config.kind ?? ""}`);
    }
    this.checkBody(def, config);
    const applied = structuredClone(config);
    applied.metadata = { ...meta, name };
    if (def.namespaced) applied.metadata.namespace = namespace;
    if (ctx.subresource !== "status" && def.status && existing) delete applied.status;
    const fieldCtx = this.fieldContext(def, ctx);
    if (!existing) {
      const merged = applyConfig(undefined, applied, fieldCtx, true);
      const object = this.create(def, namespace, merged, { ...ctx, manager: ctx.manager });
      return { object, created: true };
    }
    const live = this.present(def, existing);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(def, name, modifiedMessage);
    }
    const merged = applyConfig(live, applied, fieldCtx, ctx.force === true);
    const next = this.intake(def, merged);
    return {
      object: this.present(def, this.finishWrite(def, existing, next, { ...ctx }, true)),
      created: false,
    };
  }

  delete(
    def: ResourceDef,
    namespace: string,
    name: string,
    opts: DeleteOptions,
  ): { object: KObj; deleted: boolean } {
    const existing = this.getStored(def, namespace, name);
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== existing.metadata.uid) {
      throw conflict(
        def,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
      );
    }
    if (
      def.group === "" &&
      def.resource === "namespaces" &&
      ["default", "kube-system", "kube-public"].includes(name)
    ) {
      throw forbidden(def, name, "this namespace may not be deleted");
    }
    let policy = opts.propagationPolicy;
    if (policy === undefined && opts.orphanDependents !== undefined)
      policy = opts.orphanDependents ? "Orphan" : "Background";
    policy ??= defaultPropagation(def);
    if (!["Orphan", "Background", "Foreground"].includes(policy)) {
      throw invalid({ kind: "DeleteOptions", group: "meta.k8s.io" }, "", [
        {
          field: "propagationPolicy",
          type: "FieldValueNotSupported",
          message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
        },
      ]);
    }
    return this.deleteStored(def, existing, policy, opts.dryRun === true);
  }

  /** Deletion with finalizers: mark (deletionTimestamp) or remove. Used by HTTP and controllers. */
  deleteStored(
    def: ResourceDef,
    existing: KObj,
    policy: string,
    dryRun = false,
  ): { object: KObj; deleted: boolean } {
    const next = structuredClone(existing);
    const finalizers: string[] = [...(next.metadata.finalizers ?? [])];
    if (def.group === "" && def.resource === "namespaces") {
      next.spec = { ...(next.spec ?? {}), finalizers: next.spec?.finalizers ?? ["kubernetes"] };
      next.status = { ...(next.status ?? {}), phase: "Terminating" };
    }
    if (!next.metadata.deletionTimestamp || policy !== "Background") {
      if (policy === "Foreground" && !finalizers.includes("foregroundDeletion"))
        finalizers.push("foregroundDeletion");
      if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
    }
    const pendingNamespace =
      def.group === "" && def.resource === "namespaces" && (next.spec.finalizers ?? []).length > 0;
    if (finalizers.length === 0 && !pendingNamespace) {
      if (dryRun) return { object: this.present(def, existing), deleted: true };
      const last = this.store.remove(def.storageKey, existing);
      this.afterWrite(def, last, true);
      return { object: this.present(def, last), deleted: true };
    }
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (!next.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = nowTimestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (next.metadata.generation !== undefined) next.metadata.generation++;
    }
    if (dryRun) return { object: this.present(def, next), deleted: false };
    if (deepEqual(next, existing)) return { object: this.present(def, existing), deleted: false };
    const stored = this.store.put(def.storageKey, next, "MODIFIED");
    this.afterWrite(def, stored, false);
    return { object: this.present(def, stored), deleted: false };
  }

  /** A controller's write: no status/validation rules, no resourceVersion check. */
  internalWrite(def: ResourceDef, next: KObj, manager: string): KObj | undefined {
    const existing = this.store.get(def.storageKey, next.metadata.namespace ?? "", next.metadata.name);
    if (!existing) {
      if (!next.metadata.name && next.metadata.generateName)
        next.metadata.name = `${next.metadata.generateName}${randomSuffix()}`;
      return this.finishWrite(def, undefined, this.intake(def, next), { manager, internal: true });
    }
    return this.finishWrite(def, existing, this.intake(def, next), { manager, internal: true });
  }

  // ---- internals ----------------------------------------------------------------------------

  private checkBody(def: ResourceDef, body: unknown): KObj {
    if (!isObject(body)) throw badRequest("the body of the request must be a JSON or YAML object");
    const obj = structuredClone(body);
    if (!def.builtin && (obj.kind === undefined || obj.kind === "")) {
      throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    }
    if (obj.kind !== undefined && obj.kind !== def.kind) {
      throw badRequest(
        `${obj.kind} in version "${def.version}" cannot be handled as a ${def.kind}: no kind "${obj.kind}" is registered for version "${groupVersion(def)}"`,
      );
    }
    if (obj.apiVersion !== undefined) {
      const [g, v] = String(obj.apiVersion).includes("/")
        ? String(obj.apiVersion).split("/")
        : ["", obj.apiVersion];
      const served = this.registry.find(g ?? "", String(v), def.resource);
      if (g !== def.group || !served) {
        throw badRequest(
          `the API version in the data (${obj.apiVersion}) does not match the expected API version (${groupVersion(def)})`,
        );
      }
    }
    return obj;
  }

  private checkNamespaceWritable(def: ResourceDef, namespace: string, name: string): void {
    const ns = this.store.get("/namespaces", "", namespace);
    if (!ns) throw notFound(namespacesDef, namespace);
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(
        def,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        [
          {
            reason: "NamespaceTerminating",
            message: `namespace ${namespace} is being terminated`,
            field: "metadata.namespace",
          },
        ],
      );
    }
  }

  /**
   * Common tail of every write: status subresource rules, server-owned metadata, admission and
   * finalizer rules, generation, no-op detection, managedFields, then store (or remove).
   */
  private finishWrite(
    def: ResourceDef,
    old: KObj | undefined,
    incoming: KObj,
    ctx: WriteContext,
    applied = false,
  ): KObj {
    const copy = structuredClone(incoming);
    const incomingManaged = copy.metadata?.managedFields;
    const next = withStatusRules(def, old, copy, ctx);
    setServerMetadata(def, old, next.metadata);
    if (!ctx.internal) this.admit(def, old, next);
    const meta = next.metadata;
    if (Array.isArray(meta.finalizers) && meta.finalizers.length === 0) delete meta.finalizers;
    if (old && meta.generation !== undefined && specChanged(def, old, next)) meta.generation++;
    if (old && sameIgnoringBookkeeping(old, next) && (!applied || sameOwnership(old, next))) return old;
    if (!applied) this.recordManagedFields(def, old, next, incomingManaged, ctx);
    if (ctx.dryRun) {
      meta.resourceVersion = old?.metadata.resourceVersion ?? "";
      return next;
    }
    return this.persist(def, old, next);
  }

  /** Admission plugins' mutations, then every validation at once (labels, finalizers, plugins). */
  private admit(def: ResourceDef, old: KObj | undefined, next: KObj): void {
    const meta = next.metadata;
    for (const a of this.admissions) if (a.appliesTo(def)) a.mutate?.(def, next, old);
    const errors: FieldError[] = [...validateLabels(meta.labels), ...finalizersAddedWhileDeleting(old, meta)];
    for (const a of this.admissions)
      if (a.appliesTo(def)) errors.push(...(a.validate?.(def, next, old) ?? []));
    if (errors.length > 0) throw invalid(def, String(meta.name), errors);
  }

  /** An update keeps the fields' managers (or records the new ones); a create may bring its own. */
  private recordManagedFields(
    def: ResourceDef,
    old: KObj | undefined,
    next: KObj,
    incomingManaged: unknown,
    ctx: WriteContext,
  ): void {
    const meta = next.metadata;
    const managed = old?.metadata.managedFields;
    if (ctx.internal && old) meta.managedFields = managed;
    else if (!old && Array.isArray(incomingManaged) && incomingManaged.length > 0)
      meta.managedFields = incomingManaged;
    else {
      const prior = old ? { ...old, metadata: { ...old.metadata, managedFields: managed } } : undefined;
      meta.managedFields = recordUpdate(prior, next, this.fieldContext(def, ctx));
    }
    if (!meta.managedFields || meta.managedFields.length === 0) delete meta.managedFields;
  }

  /** Stores the object, or removes it when its deletion has no finalizer left to wait for. */
  private persist(def: ResourceDef, old: KObj | undefined, next: KObj): KObj {
    const meta = next.metadata;
    const deleting = meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).length === 0;
    const nsPending =
      def.group === "" && def.resource === "namespaces" && (next.spec?.finalizers ?? []).length > 0;
    if (old && deleting && !nsPending) {
      const last = this.store.remove(def.storageKey, next);
      this.afterWrite(def, last, true);
      return last;
    }
    const stored = this.store.put(def.storageKey, next, old ? "MODIFIED" : "ADDED");
    this.afterWrite(def, stored, false);
    return stored;
  }

  private fieldContext(def: ResourceDef, ctx: WriteContext) {
    const listKeys: ListKeys = def.builtin ? builtinListKeys(def.kind) : schemaListKeys(def.schema);
    return {
      manager: ctx.manager,
      apiVersion: groupVersion(def),
      time: nowTimestamp(),
      listKeys,
      ...(ctx.subresource ? { subresource: ctx.subresource } : {}),
    };
  }

  private afterWrite(def: ResourceDef, obj: KObj, removed: boolean): void {
    for (const h of this.hooks) h(def, obj, removed);
    this.kick();
  }
}

/** Spec (anything outside metadata, and outside status when status is a subresource) changed. */
function specChanged(def: ResourceDef, old: KObj, next: KObj): boolean {
  const strip = (o: KObj) => {
    const { metadata: _m, status, ...rest } = o;
    return def.status ? rest : { ...rest, status };
  };
  return !deepEqual(strip(old), strip(next));
}

function sameIgnoringBookkeeping(old: KObj, next: KObj): boolean {
  const strip = (o: KObj) => {
    const { resourceVersion: _r, managedFields: _m, ...meta } = o.metadata ?? {};
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(old), strip(next));
}

/** managedFields equal apart from timestamps (an apply that changes only ownership still writes). */
function sameOwnership(old: KObj, next: KObj): boolean {
  const strip = (o: KObj) =>
    ((o.metadata?.managedFields as KObj[] | undefined) ?? []).map(({ time: _t, ...rest }) => rest);
  return deepEqual(strip(old), strip(next));
}

function itemKey(o: KObj): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (typeof parsed.rv === "number" && typeof parsed.start === "string") return parsed;
  } catch {
    // fall through
  }
  throw badRequest("continue key is not valid: illegal base64 data");
}

/** Scale subresource view of an object (autoscaling/v1 Scale). */
export function scaleOf(def: ResourceDef, obj: KObj): KObj {
  const scale = def.scale!;
  const get = (path: string) =>
    path
      .split(".")
      .filter(Boolean)
      .reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), obj);
  let selector = scale.labelSelectorPath ? get(scale.labelSelectorPath) : undefined;
  if (def.builtin) selector = labelSelectorToString(obj.spec?.selector);
  const status: KObj = { replicas: Number(get(scale.statusReplicasPath) ?? 0) };
  if (typeof selector === "string" && selector !== "") status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: Number(get(scale.specReplicasPath) ?? 0) },
    status,
  };
}

/** Writes scale.spec.replicas back into the object at specReplicasPath. */
export function withReplicas(def: ResourceDef, obj: KObj, replicas: number): KObj {
  const out = structuredClone(obj);
  const parts = def.scale!.specReplicasPath.split(".").filter(Boolean);
  let cur = out;
  for (const p of parts.slice(0, -1)) {
    cur[p] = isObject(cur[p]) ? cur[p] : {};
    cur = cur[p];
  }
  cur[parts[parts.length - 1]!] = replicas;
  return out;
}

// events.k8s.io/v1 Event <-> core v1 Event (one storage, two shapes).
const eventFieldMap: Array<[string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

function toEventsV1(core: KObj): KObj {
  const { apiVersion: _a, kind: _k, ...rest } = core;
  const out: KObj = { apiVersion: "events.k8s.io/v1", kind: "Event", ...rest };
  for (const [v1, c] of eventFieldMap) {
    if (c in out) {
      out[v1] = out[c];
      delete out[c];
    }
  }
  return out;
}

function fromEventsV1(v1: KObj): KObj {
  const out: KObj = { ...v1, apiVersion: "v1", kind: "Event" };
  for (const [name, c] of eventFieldMap) {
    if (name in out) {
      out[c] = out[name];
      delete out[name];
    }
  }
  return out;
}

/**
 * Status is written only through the status subresource (which changes nothing else), and a write
 * to the main resource keeps the stored status. Internal writes (the server's own) skip the rules.
 */
function withStatusRules(def: ResourceDef, old: KObj | undefined, next: KObj, ctx: WriteContext): KObj {
  if (ctx.internal) return next;
  if (ctx.subresource === "status" && old) {
    const kept = structuredClone(old);
    if (next.status === undefined) delete kept.status;
    else kept.status = next.status;
    return kept;
  }
  if (def.status) {
    if (old?.status !== undefined) next.status = structuredClone(old.status);
    else if (old || !def.builtin || def.generation) delete next.status;
  }
  return next;
}

/** The metadata the server owns: kept from the stored object on update, minted on create. */
function setServerMetadata(def: ResourceDef, old: KObj | undefined, meta: KObj["metadata"]): void {
  if (old) {
    for (const k of SERVER_OWNED_METADATA) {
      if (old.metadata[k] === undefined) delete meta[k];
      else meta[k] = old.metadata[k];
    }
  } else {
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.generation;
    if (def.generation || !def.builtin) meta.generation = 1;
  }
  delete meta.resourceVersion;
  delete meta.selfLink;
  // ObjectMeta is a typed struct on the server: unknown metadata fields are dropped.
  for (const k of Object.keys(meta)) if (!objectMetaFields.has(k)) delete meta[k];
}

const SERVER_OWNED_METADATA = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "namespace",
  "name",
];

/** The API server refuses new finalizers on an object that is being deleted, in these words. */
function finalizersAddedWhileDeleting(old: KObj | undefined, meta: KObj["metadata"]): FieldError[] {
  if (!old?.metadata.deletionTimestamp) return [];
  const before = new Set<string>(old.metadata.finalizers ?? []);
  const added = (meta.finalizers ?? []).filter((f: string) => !before.has(f));
  if (added.length === 0) return [];
  const list = added.map((f: string) => JSON.stringify(f)).join(", ");
  return [
    fieldForbidden(
      "metadata.finalizers",
      `no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`,
    ),
  ];
}
