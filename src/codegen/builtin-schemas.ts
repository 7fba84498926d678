// Schemas of Kubernetes' built-in types (PodSpec, Container, LabelSelector, …) as controller-gen
// embeds them in a CRD, from the OpenAPI v3 of the pinned Kubernetes version's kube-apiserver
// (data/kubernetes-schemas.json, written by scripts/k8s-schemas.mjs). References between them stay
// `$ref`s by definition name; crd/schema.ts turns them into named schemas that flatten.ts inlines.
// The file (0.9 MB) is read when a schema first names a built-in type: reading and parsing it cost
// every analysis ~15-20 ms, and most projects' CRDs name none.
import { readFileSync } from "node:fs";
import type { Schema } from "./schema-types.js";

interface BuiltinData {
  kubernetesVersion: string;
  /** @kubernetes/client-node model class → OpenAPI definition name. */
  clientNode: Record<string, string>;
  definitions: Record<string, Schema>;
}

/** Two folders up from src/codegen/, dist/codegen/ and dist/cli/ (the CLI's bundle) alike. */
export const BUILTIN_SCHEMAS_FILE = new URL("../../data/kubernetes-schemas.json", import.meta.url);

let data: BuiltinData | undefined;

function builtins(): BuiltinData {
  data ??= JSON.parse(readFileSync(BUILTIN_SCHEMAS_FILE, "utf8")) as BuiltinData;
  return data;
}

/** The Kubernetes version the built-in schemas come from. */
export function builtinSchemasVersion(): string {
  return builtins().kubernetesVersion;
}

/** The definition name of a @kubernetes/client-node model (`V1PodSpec` → `io.k8s.api.core.v1.PodSpec`). */
export function definitionOfClientNodeModel(className: string): string | undefined {
  const { clientNode } = builtins();
  return Object.hasOwn(clientNode, className) ? clientNode[className] : undefined;
}

/** A definition's schema (a fresh copy: callers may change it). */
export function builtinDefinition(name: string): Schema | undefined {
  const { definitions } = builtins();
  const schema = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
  return schema === undefined ? undefined : structuredClone(schema);
}

/** `io.k8s.api.core.v1.PodSpec` → `PodSpec`, for messages. */
export function shortDefinitionName(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}
