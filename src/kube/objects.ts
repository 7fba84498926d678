// Kubernetes objects as the CLI handles them: the runtime's KubeObject read as unstructured JSON,
// plus a reference type (apiVersion, kind, namespace, name) used for messages, waits and deletes.
import type { ObjectMeta, KubeObject as TypedKubeObject } from "../runtime/schema.js";

export { splitApiVersion } from "../runtime/connect/mapper.js";

/** Metadata as the CLI reads it: the runtime's ObjectMeta, open to fields tsop does not name. */
export type ObjectMetadata = ObjectMeta & { [key: string]: unknown };

/** A Kubernetes object as the CLI handles it: the runtime's KubeObject, unstructured. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- unstructured spec and status
export interface KubeObject extends TypedKubeObject<any, any> {
  metadata: ObjectMetadata;
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

/** A pod's container status, as diagnostics and checks read it. */
export interface ContainerStatus {
  name: string;
  image?: string;
  ready?: boolean;
  state?: {
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; exitCode?: number };
  };
  lastState?: { terminated?: { reason?: string; exitCode?: number } };
}
