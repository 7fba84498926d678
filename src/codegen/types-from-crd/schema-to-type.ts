// One version's OpenAPI v3 schema → TypeScript: a type expression per schema, and an interface per
// object with properties (named after its path, naming.ts), in the order the walk meets them
// (parent before child, properties sorted). Validation that TypeScript cannot express (bounds,
// patterns, formats, defaults, list-map keys) becomes JSDoc with tsop's own tag names, so the text
// reads like a tsop API type. Structural schemas only type through `type`, `properties`, `items`,
// `additionalProperties`, `enum` and the x-kubernetes extensions; anyOf/oneOf/allOf only validate.
import { type NameTable, pascalCase, propertyKey } from "./naming.js";
import type { JsonSchema } from "./read.js";

export interface PropertyDecl {
  /** As written before the `?:` (quoted when it is not an identifier). */
  key: string;
  type: string;
  optional: boolean;
  doc: string[];
}

export interface InterfaceDecl {
  name: string;
  doc: string[];
  properties: PropertyDecl[];
  /** The type of keys beyond the properties (preserve-unknown-fields), if any. */
  indexSignature?: string;
}

/** The declarations one walk produced, and whether it used the Quantity alias. */
export interface WalkResult {
  interfaces: InterfaceDecl[];
  usesQuantity: boolean;
}

/** The alias generated files declare for quantities (resource.Quantity's schema). */
export const QUANTITY = "Quantity";
/** Imported from tsop for metadata and embedded objects. */
export const OBJECT_META = "ObjectMeta";

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// resource.Quantity's pattern as controller-gen and the Kubernetes API write it: suffixes such as Ki.
const QUANTITY_SUFFIXES = "[KMGTPE]i";

export class SchemaWalker {
  readonly result: WalkResult = { interfaces: [], usesQuantity: false };

  constructor(private readonly names: NameTable) {}

  /** The TypeScript type of `schema`; objects with properties become interfaces named `wanted`. */
  typeOf(schema: JsonSchema, wanted: string): string {
    const type = this.baseType(schema, wanted);
    return schema.nullable === true && type !== "unknown" && !/\bnull$/.test(type) ? `${type} | null` : type;
  }

  /** Declares the interface of an object schema under `name` (already claimed) and returns it. */
  declareObject(schema: JsonSchema, name: string, doc: string[], fixed: PropertyDecl[] = []): InterfaceDecl {
    const decl: InterfaceDecl = { name, doc, properties: [...fixed] };
    // Pushed before its children: a parent reads before the types it uses.
    this.result.interfaces.push(decl);
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const declared = new Set(fixed.map((p) => p.key));
    for (const key of Object.keys(properties).sort()) {
      const child = properties[key];
      if (!isRecord(child) || declared.has(propertyKey(key))) continue;
      decl.properties.push({
        key: propertyKey(key),
        type: this.typeOf(child, name + pascalCase(key)),
        optional: !required.has(key),
        doc: docOf(child),
      });
    }
    if (schema["x-kubernetes-embedded-resource"] === true) this.addEmbeddedFields(decl, required);
    if (schema["x-kubernetes-preserve-unknown-fields"] === true) decl.indexSignature = "unknown";
    else if (schema.additionalProperties === true || isRecord(schema.additionalProperties))
      // Structural schemas forbid properties beside additionalProperties; typed loosely if one has both.
      decl.indexSignature = "unknown";
    return decl;
  }

  private baseType(schema: JsonSchema, wanted: string): string {
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const literals = [...new Set(schema.enum.map((value) => JSON.stringify(value ?? null)))];
      return literals.join(" | ");
    }
    if (schema["x-kubernetes-int-or-string"] === true) {
      if (typeof schema.pattern === "string" && schema.pattern.includes(QUANTITY_SUFFIXES)) {
        this.result.usesQuantity = true;
        return QUANTITY;
      }
      return "number | string";
    }
    switch (schema.type) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "array": {
        if (!isRecord(schema.items)) return "unknown[]";
        const element = this.typeOf(schema.items, wanted);
        return /[|&]/.test(element) ? `Array<${element}>` : `${element}[]`;
      }
      case "object":
      case undefined:
        return this.objectType(schema, wanted);
      default:
        return "unknown";
    }
  }

  private objectType(schema: JsonSchema, wanted: string): string {
    const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
    const embedded = schema["x-kubernetes-embedded-resource"] === true;
    const hasProperties = isRecord(schema.properties) && Object.keys(schema.properties).length > 0;
    if (hasProperties || embedded) return this.declareObject(schema, this.names.claim(wanted), []).name;
    if (isRecord(schema.additionalProperties))
      return `Record<string, ${this.typeOf(schema.additionalProperties, `${wanted}Value`)}>`;
    if (schema.type === undefined) return "unknown"; // no type: any JSON value (preserve-unknown-fields)
    if (preserve || schema.additionalProperties === true) return "Record<string, unknown>";
    // An object schema without fields: the API server prunes whatever is sent, so nothing is known.
    return "Record<string, unknown>";
  }

  /** An embedded resource always has apiVersion, kind and metadata, declared or not. */
  private addEmbeddedFields(decl: InterfaceDecl, required: Set<string>): void {
    const fields: Array<[string, string]> = [
      ["apiVersion", "string"],
      ["kind", "string"],
      ["metadata", OBJECT_META],
    ];
    for (const [key, type] of fields) {
      const existing = decl.properties.find((p) => p.key === key);
      if (existing) {
        if (key === "metadata") existing.type = OBJECT_META;
        continue;
      }
      decl.properties.push({ key, type, optional: !required.has(key), doc: [] });
    }
    decl.properties.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** A JSON value as a JSDoc tag's text, on one line. */
function tagValue(value: unknown): string {
  return JSON.stringify(value);
}

/** The description, then what the schema says that a TypeScript type cannot. */
export function docOf(schema: JsonSchema): string[] {
  const lines: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim() !== "")
    lines.push(
      ...schema.description
        .trimEnd()
        .split("\n")
        .map((line) => line.trimEnd()),
    );
  const tags: string[] = [];
  if (schema.default !== undefined) tags.push(`@default ${tagValue(schema.default)}`);
  if (typeof schema.format === "string") tags.push(`@format ${schema.format}`);
  for (const bound of [
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
  ]) {
    if (typeof schema[bound] === "number") tags.push(`@${bound} ${schema[bound]}`);
  }
  if (schema.exclusiveMinimum === true) tags.push("@exclusiveMinimum");
  if (schema.exclusiveMaximum === true) tags.push("@exclusiveMaximum");
  if (typeof schema.pattern === "string") tags.push(`@pattern ${schema.pattern}`);
  if (schema.uniqueItems === true) tags.push("@uniqueItems");
  const listType = schema["x-kubernetes-list-type"];
  if (typeof listType === "string") tags.push(`@listType ${listType}`);
  const keys = schema["x-kubernetes-list-map-keys"];
  if (Array.isArray(keys)) for (const key of keys) tags.push(`@listMapKey ${String(key)}`);
  const mapType = schema["x-kubernetes-map-type"];
  if (typeof mapType === "string") tags.push(`@mapType ${mapType}`);
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) tags.push("@preserveUnknownFields");
  if (schema["x-kubernetes-embedded-resource"] === true) tags.push("@embeddedResource");
  if (lines.length > 0 && tags.length > 0) lines.push("");
  return [...lines, ...tags];
}
