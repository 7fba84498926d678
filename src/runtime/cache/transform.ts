// What the cache keeps of each object. The default transform drops only metadata.managedFields:
// often the largest part of an object, no reconciler needs it, and the API server keeps an object's
// managedFields when an update (PUT) omits them, so a write built from a cached copy loses nothing.
// Everything else is kept, annotations included: kubectl's last-applied-configuration annotation is
// what `kubectl apply` needs to prune a field, and a PUT of a copy without it would erase it.
// Users add their own transforms (ManagerOptions.cache.transform, per kind in cache.byKind), which
// run after this one; `dropLastApplied` is one, for kinds the operator only reads.
import type { ObjectMeta } from "../schema.js";

/** An object as the cache stores it. */
export interface CachedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Turns an object from a list or watch into what the cache stores (may edit and return it). */
export type CacheTransform = <T extends CachedObject>(obj: T) => T;

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** Drops metadata.managedFields (a PUT without them keeps the server's). */
export const defaultTransform: CacheTransform = (obj) => {
  delete obj.metadata?.managedFields;
  return obj;
};

/**
 * Drops kubectl's last-applied-configuration annotation (a whole copy of the applied object). Opt-in,
 * for kinds the operator only reads: as with any transform of yours, client.update refuses the
 * copies (a PUT would erase the annotation and break the next `kubectl apply`); the helpers and
 * client.patch(obj, mergeFrom(base)) write only what changed and keep working.
 */
export const dropLastApplied: CacheTransform = (obj) => {
  const annotations = obj.metadata?.annotations;
  if (annotations && LAST_APPLIED_ANNOTATION in annotations) {
    delete annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete obj.metadata!.annotations;
  }
  return obj;
};

/** Runs transforms in order (undefined entries skipped). */
export function chainTransforms(...transforms: Array<CacheTransform | undefined>): CacheTransform {
  const list = transforms.filter((t): t is CacheTransform => t !== undefined);
  return (obj) => list.reduce((o, t) => t(o), obj);
}

/** What a metadata-only cache stores: apiVersion meta.k8s.io/v1, kind PartialObjectMetadata, metadata. */
export function toPartialObjectMetadata<T extends CachedObject>(obj: T): T {
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: obj.metadata } as T;
}
