// Schemas of Kubernetes' built-in types (PodSpec, Container, LabelSelector, …) as controller-gen
// embeds them in a CRD, from the OpenAPI v3 of the pinned Kubernetes version's kube-apiserver
// (schemas.json, written by scripts/k8s-schemas.mjs). References between them stay `$ref`s by
// definition name; crd/schema.ts turns them into named schemas that flatten.ts inlines.
import type { Schema } from "../schema-types.js";
import data from "./schemas.json" with { type: "json" };

interface BuiltinData {
  kubernetesVersion: string;
  /** @kubernetes/client-node model class → OpenAPI definition name. */
  clientNode: Record<string, string>;
  definitions: Record<string, Schema>;
}

const DATA = data as unknown as BuiltinData;

/** The Kubernetes version the built-in schemas come from. */
export const BUILTIN_SCHEMAS_VERSION = DATA.kubernetesVersion;

/** The definition name of a @kubernetes/client-node model (`V1PodSpec` → `io.k8s.api.core.v1.PodSpec`). */
export function definitionOfClientNodeModel(className: string): string | undefined {
  return Object.hasOwn(DATA.clientNode, className) ? DATA.clientNode[className] : undefined;
}

/** A definition's schema (a fresh copy: callers may change it). */
export function builtinDefinition(name: string): Schema | undefined {
  const schema = Object.hasOwn(DATA.definitions, name) ? DATA.definitions[name] : undefined;
  return schema === undefined ? undefined : structuredClone(schema);
}

/** `io.k8s.api.core.v1.PodSpec` → `PodSpec`, for messages. */
export function shortDefinitionName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}
