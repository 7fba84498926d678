// What the client's modules share (client.ts, patch.ts, cache-copies.ts): the shape of an object
// and the kinds of patch the API server takes for every kind.

/** Anything shaped like a Kubernetes object (tsop classes, client-node models, plain objects). */
export interface KubeObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObjectMetaLike;
}

/**
 * The metadata fields every object's metadata has (tsop's ObjectMeta, client-node's V1ObjectMeta
 * and plain objects all fit), typed so handlers and predicates can read them without a cast;
 * fields whose types differ between those (timestamps: string or Date) are unknown here.
 */
export interface KubeObjectMetaLike {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  finalizers?: string[];
  ownerReferences?: ReadonlyArray<{
    apiVersion?: string;
    kind?: string;
    name?: string;
    uid?: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
  creationTimestamp?: unknown;
  deletionTimestamp?: unknown;
}

/**
 * JSON merge patch (RFC 7386), JSON patch (RFC 6902), or strategic merge patch (built-in kinds
 * only: lists merged by their patchMergeKey).
 */
export type PatchType = "merge" | "json" | "strategic";
