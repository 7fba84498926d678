// Schemas of tsop's helper types (src/runtime/schema.ts), recognised by name and declaring module,
// and the fixed parts of every CRD root (apiVersion, kind, metadata).
import type { Schema } from "../schema-types.js";

/** Kubernetes' resource.Quantity syntax (what the API server accepts for quantities). */
export const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** Schema of a branded primitive by its brand (the `F` of `Brand<T, F>` in the runtime). */
export function brandSchema(format: string): Schema {
  switch (format) {
    case "int32":
    case "int64":
      return { type: "integer", format };
    case "integer":
      return { type: "integer" };
    case "double":
      return { type: "number", format: "double" };
    case "int-or-string":
      return { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true };
    case "quantity":
      return {
        anyOf: [{ type: "integer" }, { type: "string" }],
        pattern: QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": true,
      };
    case "duration":
      return { type: "string" };
    default:
      return { type: "string", format };
  }
}

/** Branded alias names and their brands, for the syntactic route (`size?: Int32`). */
export const BRANDED_ALIASES: Readonly<Record<string, string>> = {
  Int32: "int32",
  Int64: "int64",
  Integer: "integer",
  Float64: "double",
  IntOrString: "int-or-string",
  Quantity: "quantity",
  DateTime: "date-time",
  Duration: "duration",
};

/** tsop types with a fixed schema (never walked). */
export function fixedSchema(name: string): Schema | undefined {
  switch (name) {
    case "JSONValue":
      return { "x-kubernetes-preserve-unknown-fields": true };
    case "Unstructured":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    case "EmbeddedResource":
      return {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      };
    case "ObjectMeta":
      return { type: "object" };
    default:
      return undefined;
  }
}

/**
 * metav1.Condition's validations (the API server's own limits for conditions), laid over the
 * walked `Condition` interface so status conditions validate like Go operators' do.
 */
export function overlayCondition(schema: Schema): void {
  schema.description = "Condition describes one aspect of the current state of the object.";
  const p = schema.properties ?? {};
  Object.assign(p.type ?? {}, {
    maxLength: 316,
    pattern:
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
  });
  Object.assign(p.reason ?? {}, {
    maxLength: 1024,
    minLength: 1,
    pattern: "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
  });
  Object.assign(p.message ?? {}, { maxLength: 32768 });
  Object.assign(p.observedGeneration ?? {}, { minimum: 0 });
}

export const API_VERSION_DESCRIPTION =
  "The versioned schema of this representation of the object (group/version). Servers convert\n" +
  "recognized schemas to the latest internal value and may reject unrecognized values.\n" +
  "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";

export const KIND_DESCRIPTION =
  "The REST resource this object represents, in CamelCase. Servers may infer it from the\n" +
  "endpoint the client submits requests to. Cannot be updated.\n" +
  "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
