// Schema helper types. At run time they are plain JSON values; `tsop generate` recognises them by
// name (declared in this file) and maps them to the OpenAPI forms in the comments. The brands are
// optional phantom properties, so a plain number/string literal is still assignable.

declare const format: unique symbol;
type Brand<T, F extends string> = T & { readonly [format]?: F };

/** 32-bit integer → `type: integer, format: int32`. */
export type Int32 = Brand<number, "int32">;
/** 64-bit integer → `type: integer, format: int64` (JSON numbers above 2^53 lose precision in JS). */
export type Int64 = Brand<number, "int64">;
/** Integer without a format → `type: integer`. */
export type Integer = Brand<number, "integer">;
/** Floating point → `type: number, format: double` (controller-gen warns on floats; use on purpose). */
export type Float64 = Brand<number, "double">;
/** A number or a string such as "50%" → `x-kubernetes-int-or-string: true`. */
export type IntOrString = Brand<number | string, "int-or-string">;
/** A resource quantity ("500m", "1Gi", 3) → int-or-string with the quantity pattern. */
export type Quantity = Brand<number | string, "quantity">;
/** RFC 3339 timestamp as the API sends it → `type: string, format: date-time`. */
export type DateTime = Brand<string, "date-time">;
/** Go-style duration string ("90s", "1h5m") → `type: string` (metav1.Duration's schema). */
export type Duration = Brand<string, "duration">;
/** A string with a named OpenAPI format, e.g. `Format<"email">`. */
export type Format<F extends string> = Brand<string, F>;

/** Any JSON value → `x-kubernetes-preserve-unknown-fields: true` with no type. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };
/** An object whose fields are kept as given → `type: object, x-kubernetes-preserve-unknown-fields: true`. */
export type Unstructured = { [key: string]: JSONValue };
/** A whole Kubernetes object embedded in a field → `x-kubernetes-embedded-resource: true`. */
export interface EmbeddedResource {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** The schema of metav1.Condition; use `@listType map` / `@listMapKey type` on the array. */
export interface Condition {
  /** type of condition in CamelCase or in foo.example.com/CamelCase. */
  type: string;
  /** status of the condition, one of True, False, Unknown. */
  status: "True" | "False" | "Unknown";
  /** observedGeneration represents the .metadata.generation that the condition was set based upon. */
  observedGeneration?: Int64;
  /** lastTransitionTime is the last time the condition transitioned from one status to another. */
  lastTransitionTime: DateTime;
  /** reason contains a programmatic identifier indicating the reason for the condition's last transition. */
  reason: string;
  /** message is a human readable message indicating details about the transition. */
  message: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Object metadata as the API server returns it (metav1.ObjectMeta). In a CRD schema → `type: object`. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

/** The base of every custom resource class: `class Memcached extends KubeObject<Spec, Status> {}`. */
export class KubeObject<Spec = unknown, Status = unknown> {
  declare apiVersion: string;
  declare kind: string;
  declare metadata: ObjectMeta;
  declare spec?: Spec;
  declare status?: Status;
}
