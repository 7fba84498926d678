// Object helpers for reconcilers: controller owner references, create-or-update of owned objects,
// finalizers, and status updates through the status subresource. Every write that can race with
// another writer retries on 409 Conflict from a fresh copy. Writes of objects read from the cache
// are merge patches of what the helper changed, with the resourceVersion read as precondition
// (controller-runtime's MergeFromWithOptimisticLock): a field the read did not show (dropped by a
// cache transform, written by another actor) is never written away.
import { TsopError } from "../../common/errors.js";
import { unmarkTransformedCopy } from "../client/cache-copies.js";
import type { Client, KubeObjectLike } from "../client/client.js";
import { mergeFrom } from "../client/patch.js";
import { semanticEqual } from "./equality.js";
import { isAlreadyExists, isConflict, isNotFound } from "../connect/errors.js";
import type { ObjectMeta, OwnerReference } from "../schema.js";

type Meta = { metadata?: ObjectMeta };

function meta(obj: KubeObjectLike): ObjectMeta {
  const o = obj as Meta;
  o.metadata ??= {};
  return o.metadata;
}

export interface RetryOptions {
  /** Attempts in all. Default 5. */
  steps?: number;
  /** First delay between attempts (ms), doubled each time. Default 10. */
  delayMs?: number;
}

/** Runs fn again (after a short backoff) while it fails with 409 Conflict. */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  options: RetryOptions = {},
): Promise<R> {
  const steps = options.steps ?? 5;
  let delay = options.delayMs ?? 10;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= steps) throw err;
      await new Promise((r) => setTimeout(r, delay * (1 + Math.random() * 0.5)));
      delay *= 2;
    }
  }
}

/** Thrown when an object already has a different controller. */
export class AlreadyOwnedError extends TsopError {}

/** Thrown when an owner reference breaks Kubernetes' scope rules (controller-runtime's validateOwner). */
export class InvalidOwnerError extends TsopError {}

/**
 * Thrown by createOrUpdate when the object exists on the server but the cache it reads from can
 * never see it (a cache.byKind selector excludes it): creating it again would fail forever.
 */
export class NotCachedError extends TsopError {}

function describe(obj: KubeObjectLike): string {
  const m = (obj as Meta).metadata ?? {};
  return `${obj.kind ?? "object"} ${m.namespace ? `${m.namespace}/` : ""}${m.name ?? "(unnamed)"}`;
}

/**
 * A namespaced owner may own only objects in its own namespace. A cluster-scoped object (no
 * metadata.namespace) with a namespaced owner is never garbage-collected by Kubernetes (the
 * collector reports OwnerRefInvalidNamespace instead), so it is refused here as controller-runtime
 * does.
 */
export function validateOwner(owner: KubeObjectLike, obj: KubeObjectLike): void {
  const ownerNamespace = meta(owner).namespace;
  if (!ownerNamespace) return;
  const namespace = meta(obj).namespace;
  if (!namespace)
    throw new InvalidOwnerError(
      `cluster-scoped resource must not have a namespace-scoped owner: ${describe(obj)} cannot be owned by ${describe(owner)}`,
      {
        hint: 'Kubernetes never garbage-collects it: label it with its owner and delete it from the owner\'s finalizer (docs/runtime.md, "Cluster-scoped objects")',
      },
    );
  if (namespace !== ownerNamespace)
    throw new InvalidOwnerError(
      `cross-namespace owner references are not allowed: ${describe(owner)} cannot own an object in namespace ${namespace}`,
      { hint: "create the object in the owner's namespace, or label it and clean it up with a finalizer" },
    );
}

/**
 * Makes `owner` the controller of `obj` (ownerReferences with controller: true and
 * blockOwnerDeletion: true), so the garbage collector deletes obj with its owner and `owns()`
 * watches map obj's events back to the owner. `obj` without metadata.namespace counts as
 * cluster-scoped: a namespaced owner is refused then (InvalidOwnerError).
 */
export function setControllerReference(owner: KubeObjectLike, obj: KubeObjectLike): void {
  const o = meta(owner);
  const m = meta(obj);
  if (!owner.apiVersion || !owner.kind || !o.name || !o.uid)
    throw new TsopError("owner needs apiVersion, kind, metadata.name and metadata.uid", {
      hint: "pass the object as read from the API server",
    });
  validateOwner(owner, obj);
  const ref: OwnerReference = {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: o.name,
    uid: o.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  const refs = m.ownerReferences ?? [];
  const other = refs.find((r) => r.controller && r.uid !== o.uid);
  if (other)
    throw new AlreadyOwnedError(
      `${obj.kind ?? "object"} ${m.name} is already controlled by ${other.kind} ${other.name}`,
      { hint: "an object can have only one controller owner" },
    );
  const index = refs.findIndex((r) => r.uid === o.uid);
  if (index >= 0) refs[index] = ref;
  else refs.push(ref);
  m.ownerReferences = refs;
}

/**
 * Gives obj the namespace the server will store it in (the client's default for a namespaced kind
 * that names none; none for a cluster-scoped kind), so an owner's scope check sees its real scope.
 */
export async function settleNamespace(client: Client, obj: KubeObjectLike): Promise<void> {
  const m = meta(obj);
  const { namespaced } = await client.mapper.mapping({ apiVersion: obj.apiVersion!, kind: obj.kind! });
  if (!namespaced) delete m.namespace;
  else m.namespace ||= client.defaultNamespace;
}

/**
 * What createOrUpdate / createOrPatch did (controller-runtime's OperationResult values);
 * "updatedStatus" and "updatedStatusOnly" come from createOrPatch only.
 */
export type OperationResult = "created" | "updated" | "updatedStatus" | "updatedStatusOnly" | "unchanged";

export interface CreateOrUpdateOptions {
  /** Set this object as the controller owner of the created/updated object. */
  owner?: KubeObjectLike;
}

/**
 * Ensures an object exists in the desired state. `obj` names it (apiVersion, kind, metadata.name,
 * metadata.namespace); `mutate` sets the desired fields on either the live object or, if it does not
 * exist, on `obj`. Only when mutate changed something (semanticEqual: key order, quantity spelling
 * and absent-vs-empty are no change) is an update sent. Conflicts are retried.
 */
export async function createOrUpdate<T extends KubeObjectLike>(
  client: Client,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  options: CreateOrUpdateOptions = {},
): Promise<{ operation: OperationResult; object: T }> {
  const m = meta(obj);
  if (!obj.apiVersion || !obj.kind || !m.name)
    throw new TsopError("createOrUpdate needs apiVersion, kind and metadata.name on the object");
  const kind = { apiVersion: obj.apiVersion, kind: obj.kind };
  if (options.owner) await settleNamespace(client, obj);
  const key = { namespace: m.namespace, name: m.name };
  return retryOnConflict(async () => {
    const live = await client.get<T>(kind, key);
    if (!live) return { operation: "created", object: await createFresh(client, obj, mutate, options) };
    // As controller-runtime: the object as fetched against the object after mutate, semantically
    // (key order, quantity spelling and nil-vs-empty are no change; server defaults are in both).
    const before = structuredClone(live);
    await mutate(live);
    if (options.owner) setControllerReference(options.owner, live);
    if (semanticEqual(before, live)) return { operation: "unchanged", object: live };
    // Only what mutate changed, refused (409, retried) if the object changed since it was read.
    const updated = await client.patch(live, mergeFrom(before, { optimisticLock: true }));
    return { operation: "updated", object: updated };
  });
}

/**
 * The create path of createOrUpdate and createOrPatch: mutate a copy of `obj`, make the owner its
 * controller, create it. AlreadyExists (created by someone else meanwhile) is retried as a
 * conflict, i.e. as an update, unless the cache can never see the object.
 */
export async function createFresh<T extends KubeObjectLike>(
  client: Client,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  options: CreateOrUpdateOptions,
  helper = "createOrUpdate",
): Promise<T> {
  const fresh = structuredClone(obj);
  await mutate(fresh);
  if (options.owner) setControllerReference(options.owner, fresh);
  try {
    return await client.create(fresh);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await failIfCacheCannotSee(client, fresh, helper);
    throw Object.assign(err as object, { reason: "Conflict" });
  }
}

/**
 * After a create failed with AlreadyExists: when the server has the object but the client's cache
 * can never show it (a byKind selector excludes it), every retry would create → 409 → create
 * again. Throws NotCachedError naming the object and the selector instead.
 */
export async function failIfCacheCannotSee(
  client: Client,
  obj: KubeObjectLike,
  helper = "createOrUpdate",
): Promise<void> {
  if (!client.cache?.whyNotCached) return;
  const m = meta(obj);
  const kind = { apiVersion: obj.apiVersion!, kind: obj.kind! };
  const live = await client.apiReader.get(kind, { namespace: m.namespace, name: m.name! });
  if (!live) return; // deleted meanwhile: the retry creates it
  const mapping = await client.mapper.mapping(kind);
  const why = await client.cache.whyNotCached(mapping, live);
  if (!why) return;
  const fix = `cache it (widen the selector, or add the selector's label in mutate and on the existing object), list the kind in cache.disableFor to read it live, or read and write it with client.apiReader`;
  throw new NotCachedError(
    `${helper} cannot manage ${describe(obj)}: it exists on the API server, but the cache this client reads from cannot see it (excluded by ${why}), so creating it fails with AlreadyExists again and again; ${fix}`,
    { hint: fix },
  );
}

export function hasFinalizer(obj: KubeObjectLike, finalizer: string): boolean {
  return ((obj as Meta).metadata?.finalizers ?? []).includes(finalizer);
}

/** Whether the object is being deleted (deletionTimestamp set; finalizers still pending). */
export function isBeingDeleted(obj: KubeObjectLike): boolean {
  return Boolean((obj as Meta).metadata?.deletionTimestamp);
}

/**
 * Adds or removes one finalizer with a merge patch of metadata.finalizers and the resourceVersion
 * read as precondition (controller-runtime's MergeFromWithOptimisticLock idiom): nothing else of
 * the object is sent, so nothing else can be written away. On 409 it re-reads the object from the
 * server and tries again. The object is updated in place with the server's answer.
 */
async function editFinalizers(
  client: Client,
  obj: KubeObjectLike,
  finalizer: string,
  want: boolean,
): Promise<boolean> {
  const m = meta(obj);
  if (!obj.apiVersion || !obj.kind || !m.name)
    throw new TsopError(
      `${want ? "ensureFinalizer" : "removeFinalizer"} needs apiVersion, kind and metadata.name`,
      {
        hint: "pass the object as read with client.get",
      },
    );
  const kind = { apiVersion: obj.apiVersion, kind: obj.kind };
  const key = { namespace: m.namespace, name: m.name };
  let changed = false;
  await retryOnConflict(async (attempt) => {
    let target = obj;
    // After a conflict the cache may still be behind: read the server. So too for an object
    // without a resourceVersion (built by hand), which could not be the patch's precondition.
    if (attempt > 0 || !meta(obj).resourceVersion) {
      const fresh = await client.apiReader.get<KubeObjectLike>(kind, key);
      if (!fresh) return; // gone: nothing to add a finalizer to, nothing left to remove
      target = fresh;
    }
    if (hasFinalizer(target, finalizer) === want) {
      if (target !== obj) assignServerCopy(obj, target);
      return;
    }
    const edited = { ...target, metadata: { ...meta(target) } };
    const list = (meta(edited).finalizers ?? []).filter((f) => f !== finalizer);
    if (want) list.push(finalizer);
    meta(edited).finalizers = list;
    try {
      assignServerCopy(obj, await client.patch(edited, mergeFrom(target, { optimisticLock: true })));
    } catch (err) {
      if (!want && isNotFound(err)) return; // deleted meanwhile: the finalizer is gone with it
      throw err;
    }
    changed = true;
  });
  return changed;
}

/** Puts the server's whole answer into the caller's object (no longer a partial cache copy). */
function assignServerCopy(obj: KubeObjectLike, server: KubeObjectLike): void {
  Object.assign(obj, server);
  unmarkTransformedCopy(obj);
}

/** Adds the finalizer if missing (updating the object in place); true when it was added. */
export function ensureFinalizer(client: Client, obj: KubeObjectLike, finalizer: string): Promise<boolean> {
  return editFinalizers(client, obj, finalizer, true);
}

/** Removes the finalizer if present (updating the object in place); true when it was removed. */
export function removeFinalizer(client: Client, obj: KubeObjectLike, finalizer: string): Promise<boolean> {
  return editFinalizers(client, obj, finalizer, false);
}

/**
 * Writes obj.status through the status subresource. On 409 Conflict it re-reads the object and
 * applies `mutate` to the fresh copy (or, without mutate, copies the desired status onto it) and
 * tries again. The object is updated in place with the server's answer. Returns false when the
 * object no longer exists.
 */
export async function updateStatus<T extends KubeObjectLike & { status?: unknown }>(
  client: Client,
  obj: T,
  mutate?: (obj: T) => void,
): Promise<boolean> {
  const m = meta(obj);
  if (!obj.apiVersion || !obj.kind || !m.name)
    throw new TsopError("updateStatus needs apiVersion, kind and metadata.name");
  const kind = { apiVersion: obj.apiVersion, kind: obj.kind };
  const key = { namespace: m.namespace, name: m.name };
  mutate?.(obj);
  const desired = structuredClone(obj.status);
  return retryOnConflict(async (attempt) => {
    let target: T = obj;
    if (attempt > 0) {
      const fresh = await client.get<T>(kind, key);
      if (!fresh) return false;
      if (mutate) mutate(fresh);
      else fresh.status = structuredClone(desired);
      target = fresh;
    }
    try {
      assignServerCopy(obj, await client.updateStatus(target));
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  });
}
