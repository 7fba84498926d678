// Plain Kubernetes objects as parsed from YAML, plus the few accessors every stage needs.
// ManifestObject is a parsed-but-unchecked document (any shape); the typed object the CLI sends to
// a cluster is kube/objects.ts' KubeObject.
export type ManifestObject = Record<string, unknown> & { apiVersion?: unknown; kind?: unknown };

/** Where an object came from, for messages that name a file. */
export interface Origin {
  file: string;
  /** 0-based index of the document inside the file. */
  doc: number;
}

export interface LoadedObject {
  object: ManifestObject;
  origin: Origin;
}

/** A resource during a kustomize build: its object plus every name and namespace it had before. */
export interface Resource extends LoadedObject {
  names: string[];
  namespaces: string[];
  /** A generated ConfigMap/Secret that takes its content hash as a name suffix. */
  hash?: boolean;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function metadataOf(object: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(object.metadata)) object.metadata = {};
  return object.metadata as Record<string, unknown>;
}

export function nameOf(object: Record<string, unknown>): string {
  return isRecord(object.metadata) ? str(object.metadata.name) : "";
}

export function namespaceOf(object: Record<string, unknown>): string {
  return isRecord(object.metadata) ? str(object.metadata.namespace) : "";
}

export function kindOf(object: Record<string, unknown>): string {
  return str(object.kind);
}

/** The group part of apiVersion ("" for the core group). */
export function groupOf(object: Record<string, unknown>): string {
  const apiVersion = str(object.apiVersion);
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function versionOf(object: Record<string, unknown>): string {
  const apiVersion = str(object.apiVersion);
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function gvkString(object: Record<string, unknown>): string {
  return `${str(object.apiVersion)}, Kind=${kindOf(object)}`;
}

/** Deep copy of a JSON-like value. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Walks a dotted path of object keys; undefined when any step is missing. */
export function getPath(object: unknown, path: readonly (string | number)[]): unknown {
  let current: unknown = object;
  for (const key of path) {
    if (typeof key === "number") {
      if (!Array.isArray(current)) return undefined;
      current = current[key];
    } else {
      if (!isRecord(current)) return undefined;
      current = current[key];
    }
  }
  return current;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asRecords(value: unknown): Record<string, unknown>[] {
  return asArray(value).filter(isRecord);
}

/** Kinds that are cluster-scoped, so kustomize's namespace does not apply to them. */
export const CLUSTER_SCOPED_KINDS = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "APIService",
  "PriorityClass",
  "StorageClass",
  "PersistentVolume",
  "ClusterIssuer",
  "ConsoleYAMLSample",
  "ConsoleQuickStart",
  "ConsoleCLIDownload",
  "ConsoleLink",
  "ConsolePlugin",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "IngressClass",
  "RuntimeClass",
  "CSIDriver",
  "Node",
]);
