// What the cache keeps of each object. The default transform drops bookkeeping no reconciler needs
// and that is often the largest part of an object: metadata.managedFields and kubectl's
// last-applied-configuration annotation (a full copy of the object). Users add their own transforms
// (ManagerOptions.cache.transform, per kind in cache.byKind), which run after this one.
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

/** Drops metadata.managedFields and the last-applied-configuration annotation. */
export const defaultTransform: CacheTransform = (obj) => {
  const meta = obj.metadata;
  if (!meta) return obj;
  delete meta.managedFields;
  if (meta.annotations && LAST_APPLIED_ANNOTATION in meta.annotations) {
    delete meta.annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
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
