// Plain shapes for Kubernetes objects as tsop handles them: unstructured JSON plus a reference type
// (apiVersion, kind, namespace, name) used for messages, waits and deletes.

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMetadata;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured content
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured content
  status?: any;
  [key: string]: unknown;
}

export interface ObjectMetadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
  }>;
  [key: string]: unknown;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export function refOf(obj: KubeObject): ObjectRef {
  const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name ?? "" };
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  return ref;
}

/** "Kind ns/name" or "Kind name": how every message names an object. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
}

export function refKey(ref: ObjectRef): string {
  return `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? ""}|${ref.name}`;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export function conditionsOf(obj: KubeObject | undefined): Condition[] {
  const list = obj?.status?.conditions;
  return Array.isArray(list) ? (list as Condition[]).filter((c) => typeof c?.type === "string") : [];
}

export function findCondition(obj: KubeObject | undefined, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

export function isCrd(obj: { apiVersion: string; kind: string }): boolean {
  return obj.kind === "CustomResourceDefinition" && obj.apiVersion.startsWith("apiextensions.k8s.io/");
}
