// What the client's modules share (client.ts, patch.ts, cache-copies.ts): the shape of an object
// and the kinds of patch the API server takes for every kind.

/** Anything shaped like a Kubernetes object (tsop classes, client-node models, plain objects). */
export interface KubeObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
}

/**
 * JSON merge patch (RFC 7386), JSON patch (RFC 6902), or strategic merge patch (built-in kinds
 * only: lists merged by their patchMergeKey).
 */
export type PatchType = "merge" | "json" | "strategic";
