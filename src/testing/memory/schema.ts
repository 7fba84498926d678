// Custom resources against a CRD version's openAPIV3Schema, in the apiserver's order: null values of
// non-nullable fields dropped, defaults applied, unknown fields pruned, then validation with the
// apiextensions field paths and messages.
import { compileRe2, re2Error } from "../../common/re2.js";
import { canonical } from "./patch.js";
import {
  type FieldError,
  genericField,
  invalidValue,
  notSupported,
  required,
  showValue,
  tooLong,
  tooMany,
} from "./status.js";
import type { KObj } from "./types.js";

type Schema = KObj;

function isObject(v: unknown): v is KObj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

const rootKeys = new Set(["apiVersion", "kind", "metadata"]);

/** Applies defaults (top-down) and drops nulls of non-nullable fields. Mutates `value`. */
export function applyDefaults(value: unknown, schema: Schema | undefined): void {
  if (!schema || !isObject(value)) {
    if (schema && Array.isArray(value) && schema.items)
      for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  const props: Record<string, Schema> = isObject(schema.properties) ? schema.properties : {};
  for (const [k, propSchema] of Object.entries(props)) {
    if (value[k] === null && !propSchema.nullable) delete value[k];
    if (value[k] === undefined && propSchema.default !== undefined)
      value[k] = structuredClone(propSchema.default);
  }
  for (const [k, v] of Object.entries(value)) {
    const s = props[k] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (s) applyDefaults(v, s);
  }
}

/** Removes fields the schema does not specify (unless x-kubernetes-preserve-unknown-fields). */
export function prune(value: unknown, schema: Schema | undefined, isRoot = false): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) prune(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  const props: Record<string, Schema> = isObject(schema.properties) ? schema.properties : {};
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const preserve =
    schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties === true;
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  for (const k of Object.keys(value)) {
    if ((isRoot || embedded) && rootKeys.has(k)) continue;
    const s = props[k] ?? additional;
    if (s) prune(value[k], s);
    else if (!preserve) delete value[k];
  }
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "boolean":
      return typeof v === "boolean";
    default:
      return true;
  }
}

/** Where a value sits, for messages: its path, its label in "… in body …" and an error builder. */
interface At {
  path: string;
  where: string;
  label: string;
  invalid: (detail: string) => FieldError;
}

function typeInvalid(at: At, value: unknown, type: string): FieldError {
  const name = typeName(value);
  return genericField(
    at.where,
    "FieldValueTypeInvalid",
    `"${name}": ${at.label} in body must be of type ${type}: "${name}"`,
  );
}

function enumErrors(value: unknown, schema: Schema, at: At): FieldError[] {
  return Array.isArray(schema.enum) &&
    !schema.enum.some((e: unknown) => JSON.stringify(canonical(e)) === JSON.stringify(canonical(value)))
    ? [notSupported(at.where, value, schema.enum)]
    : [];
}

/** Type and enum; `done` when the value cannot be checked further (null or the wrong type). */
function typeErrors(value: unknown, schema: Schema, at: At): { errors: FieldError[]; done: boolean } {
  if (value === null) {
    if (schema.nullable === true || !schema.type) return { errors: [], done: true };
    return {
      errors: [
        genericField(
          at.where,
          "FieldValueTypeInvalid",
          `"null": ${at.label} in body must be of type ${schema.type}: "null"`,
        ),
      ],
      done: true,
    };
  }
  if (schema["x-kubernetes-int-or-string"] === true) {
    if (!hasType(value, "integer") && typeof value !== "string")
      return { errors: [typeInvalid(at, value, "integer,string")], done: true };
  } else if (typeof schema.type === "string" && !hasType(value, schema.type)) {
    // The apiserver still reports enum mismatches next to the type error.
    return { errors: [typeInvalid(at, value, schema.type), ...enumErrors(value, schema, at)], done: true };
  }
  return { errors: enumErrors(value, schema, at), done: false };
}

function stringErrors(value: string, schema: Schema, at: At): FieldError[] {
  const errors: FieldError[] = [];
  const length = [...value].length;
  if (typeof schema.maxLength === "number" && length > schema.maxLength)
    errors.push(tooLong(at.where, schema.maxLength));
  if (typeof schema.minLength === "number" && length < schema.minLength)
    errors.push(at.invalid(`should be at least ${schema.minLength} chars long`));
  if (typeof schema.pattern === "string") {
    let re: RegExp | undefined;
    try {
      re = compileRe2(schema.pattern);
    } catch {
      re = undefined; // CRDs with invalid patterns are refused when created
    }
    if (re && !re.test(value)) errors.push(at.invalid(`should match '${schema.pattern}'`));
  }
  return errors;
}

function numberErrors(value: number, schema: Schema, at: At): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof schema.minimum === "number") {
    if (schema.exclusiveMinimum === true ? value <= schema.minimum : value < schema.minimum) {
      errors.push(
        at.invalid(
          `should be greater than ${schema.exclusiveMinimum === true ? "" : "or equal to "}${schema.minimum}`,
        ),
      );
    }
  }
  if (typeof schema.maximum === "number") {
    if (schema.exclusiveMaximum === true ? value >= schema.maximum : value > schema.maximum) {
      errors.push(
        at.invalid(
          `should be less than ${schema.exclusiveMaximum === true ? "" : "or equal to "}${schema.maximum}`,
        ),
      );
    }
  }
  if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) {
    const q = value / schema.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      errors.push(at.invalid(`should be a multiple of ${schema.multipleOf}`));
  }
  return errors;
}

/** Duplicates in a set (or uniqueItems) list and duplicate keys in a map list. */
function duplicateItems(value: unknown[], schema: Schema, at: At): FieldError[] {
  const errors: FieldError[] = [];
  const listType = schema["x-kubernetes-list-type"];
  if (schema.uniqueItems === true || listType === "set") {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const k = JSON.stringify(canonical(item));
      if (seen.has(k)) errors.push(genericField(`${at.where}[${i}]`, "FieldValueDuplicate", showValue(item)));
      seen.add(k);
    });
  }
  if (listType === "map" && Array.isArray(schema["x-kubernetes-list-map-keys"])) {
    const keys: string[] = schema["x-kubernetes-list-map-keys"];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const k = JSON.stringify(keys.map((key) => (isObject(item) ? item[key] : undefined)));
      if (seen.has(k))
        errors.push(
          genericField(
            `${at.where}[${i}]`,
            "FieldValueDuplicate",
            showValue(isObject(item) ? Object.fromEntries(keys.map((key) => [key, item[key]])) : item),
          ),
        );
      seen.add(k);
    });
  }
  return errors;
}

function arrayErrors(value: unknown[], schema: Schema, at: At): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
    errors.push(tooMany(at.where, value.length, schema.maxItems));
  if (typeof schema.minItems === "number" && value.length < schema.minItems)
    errors.push(at.invalid(`should have at least ${schema.minItems} items`));
  errors.push(...duplicateItems(value, schema, at));
  if (schema.items)
    value.forEach((item, i) => {
      errors.push(...validateValue(item, schema.items, `${at.path}[${i}]`));
    });
  return errors;
}

function objectErrors(value: KObj, schema: Schema, at: At, isRoot: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const { path } = at;
  const props: Record<string, Schema> = isObject(schema.properties) ? schema.properties : {};
  for (const r of Array.isArray(schema.required) ? schema.required : []) {
    if (value[r] === undefined) errors.push(required(child(path, r)));
  }
  const count = Object.keys(value).length;
  if (typeof schema.maxProperties === "number" && count > schema.maxProperties)
    errors.push(tooMany(at.where, count, schema.maxProperties));
  if (typeof schema.minProperties === "number" && count < schema.minProperties)
    errors.push(at.invalid(`should have at least ${schema.minProperties} properties`));
  if (schema["x-kubernetes-embedded-resource"] === true) {
    if (!value.apiVersion) errors.push(required(child(path, "apiVersion"), "must not be empty"));
    if (!value.kind) errors.push(required(child(path, "kind"), "must not be empty"));
  }
  for (const [k, v] of Object.entries(value)) {
    if (isRoot && rootKeys.has(k)) continue;
    const s = props[k] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (s) errors.push(...validateValue(v, s, child(path, k)));
  }
  return errors;
}

function combinatorErrors(value: unknown, schema: Schema, at: At): FieldError[] {
  const errors: FieldError[] = [];
  const { path } = at;
  if (Array.isArray(schema.allOf))
    for (const s of schema.allOf) errors.push(...validateValue(value, { ...s, type: s.type }, path));
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some((s: Schema) => validateValue(value, s, path).length === 0)
  )
    errors.push(at.invalid("must validate at least one schema (anyOf)"));
  if (
    Array.isArray(schema.oneOf) &&
    schema.oneOf.filter((s: Schema) => validateValue(value, s, path).length === 0).length !== 1
  )
    errors.push(at.invalid("must validate one and only one schema (oneOf)"));
  if (isObject(schema.not) && validateValue(value, schema.not, path).length === 0)
    errors.push(at.invalid("must not validate the schema (not)"));
  return errors;
}

/** Validates `value` at `path` against `schema`; returns field errors (empty when valid). */
export function validateValue(
  value: unknown,
  schema: Schema | undefined,
  path: string,
  isRoot = false,
): FieldError[] {
  if (!schema) return [];
  const label = path === "" ? "body" : path;
  const where = path === "" ? "<root>" : path;
  const at: At = {
    path,
    where,
    label,
    invalid: (detail) => invalidValue(where, value, `${label} in body ${detail}`),
  };
  const typed = typeErrors(value, schema, at);
  if (typed.done) return typed.errors;
  const errors = typed.errors;
  if (typeof value === "string") errors.push(...stringErrors(value, schema, at));
  if (typeof value === "number") errors.push(...numberErrors(value, schema, at));
  if (Array.isArray(value)) errors.push(...arrayErrors(value, schema, at));
  if (isObject(value)) errors.push(...objectErrors(value, schema, at, isRoot));
  errors.push(...combinatorErrors(value, schema, at));
  return errors;
}

/** Defaults, prunes and validates a custom resource in place; returns the field errors. */
export function admitCustomObject(obj: KObj, schema: Schema | undefined): FieldError[] {
  if (!schema) return [];
  applyDefaults(obj, schema);
  prune(obj, schema, true);
  return validateValue(obj, schema, "", true);
}

/** Structural-schema checks on a CRD version's schema (a useful subset of the apiserver's). */
export function structuralErrors(schema: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObject(schema)) return [required(path, "schemas are required")];
  if (schema.type === undefined) errors.push(required(`${path}.type`, "must not be empty at the root"));
  else if (schema.type !== "object")
    errors.push(invalidValue(`${path}.type`, schema.type, "must be object at the root"));
  const walk = (node: KObj, at: string, what: string) => {
    if (node.$ref !== undefined)
      errors.push(genericField(`${at}.$ref`, "FieldValueForbidden", "$ref is not supported"));
    const intOrString = node["x-kubernetes-int-or-string"] === true;
    const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;
    if (what !== "root" && node.type === undefined && !intOrString && !preserve) {
      errors.push(required(`${at}.type`, `must not be empty for specified ${what}`));
    }
    if (
      node.type !== undefined &&
      !["object", "array", "string", "integer", "number", "boolean"].includes(node.type)
    ) {
      errors.push(
        notSupported(`${at}.type`, node.type, ["array", "boolean", "integer", "number", "object", "string"]),
      );
    }
    if (
      isObject(node.properties) &&
      node.additionalProperties !== undefined &&
      node.additionalProperties !== false
    ) {
      errors.push(
        genericField(
          `${at}.additionalProperties`,
          "FieldValueForbidden",
          "additionalProperties and properties are mutual exclusive",
        ),
      );
    }
    if (node.type === "array" && node.items === undefined) {
      errors.push(required(`${at}.items`, "must be specified"));
    }
    if (isObject(node.properties)) {
      for (const [k, v] of Object.entries(node.properties))
        if (isObject(v)) walk(v, `${at}.properties[${k}]`, "object fields");
    }
    if (isObject(node.items)) walk(node.items, `${at}.items`, "array items");
    if (isObject(node.additionalProperties))
      walk(node.additionalProperties, `${at}.additionalProperties`, "object fields");
    if (typeof node.pattern === "string") {
      const error = re2Error(node.pattern);
      if (error !== undefined)
        errors.push(
          invalidValue(
            `${at}.pattern`,
            node.pattern,
            `must be a valid regular expression, but isn't: ${error}`,
          ),
        );
    }
  };
  walk(schema, path, "root");
  return errors;
}
