// Checks a JSON value (a @default) against a structural schema the way the API server would,
// for the keywords tsop emits. Returns the first problem as text, or undefined.
import { compileRe2 } from "../../common/re2.js";
import type { Schema } from "../schema-types.js";

export function checkValue(schema: Schema, value: unknown, path = ""): string | undefined {
  const at = path || "value";
  if (value === null) return schema.nullable ? undefined : `${at} is null but the field is not nullable`;
  if (schema["x-kubernetes-int-or-string"]) {
    if (typeof value === "number") {
      if (!Number.isInteger(value)) return `${at} must be an integer or a string`;
    } else if (typeof value !== "string") return `${at} must be an integer or a string`;
    return checkScalarRules(schema, value, at);
  }
  switch (schema.type) {
    case "string":
      if (typeof value !== "string") return `${at} must be a string, got ${describe(value)}`;
      break;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value))
        return `${at} must be an integer, got ${describe(value)}`;
      break;
    case "number":
      if (typeof value !== "number") return `${at} must be a number, got ${describe(value)}`;
      break;
    case "boolean":
      if (typeof value !== "boolean") return `${at} must be a boolean, got ${describe(value)}`;
      break;
    case "array": {
      if (!Array.isArray(value)) return `${at} must be an array, got ${describe(value)}`;
      if (schema.minItems !== undefined && value.length < schema.minItems)
        return `${at} must have at least ${schema.minItems} items`;
      if (schema.maxItems !== undefined && value.length > schema.maxItems)
        return `${at} must have at most ${schema.maxItems} items`;
      if (schema.items) {
        for (let i = 0; i < value.length; i++) {
          const p = checkValue(schema.items, value[i], `${at}[${i}]`);
          if (p) return p;
        }
      }
      return undefined;
    }
    case "object": {
      if (typeof value !== "object" || Array.isArray(value))
        return `${at} must be an object, got ${describe(value)}`;
      const obj = value as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        if (!(key in obj) && schema.properties?.[key]?.default === undefined)
          return `${at} is missing required field '${key}'`;
      }
      const keys = Object.keys(obj);
      if (schema.minProperties !== undefined && keys.length < schema.minProperties)
        return `${at} must have at least ${schema.minProperties} keys`;
      if (schema.maxProperties !== undefined && keys.length > schema.maxProperties)
        return `${at} must have at most ${schema.maxProperties} keys`;
      for (const key of keys) {
        const sub =
          schema.properties?.[key] ??
          (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
        if (!sub) {
          if (schema.properties && !schema["x-kubernetes-preserve-unknown-fields"])
            return `${at} has unknown field '${key}' (it would be pruned)`;
          continue;
        }
        const p = checkValue(sub, obj[key], path ? `${path}.${key}` : key);
        if (p) return p;
      }
      return undefined;
    }
  }
  return checkScalarRules(schema, value, at);
}

function checkScalarRules(schema: Schema, value: unknown, at: string): string | undefined {
  if (schema.enum && !schema.enum.some((e) => e === value))
    return `${at} ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`;
  if (typeof value === "number") {
    if (
      schema.minimum !== undefined &&
      (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
    )
      return `${at} ${value} is below the minimum ${schema.minimum}`;
    if (
      schema.maximum !== undefined &&
      (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
    )
      return `${at} ${value} is above the maximum ${schema.maximum}`;
    if (
      schema.multipleOf !== undefined &&
      Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9
    )
      return `${at} ${value} is not a multiple of ${schema.multipleOf}`;
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      return `${at} is shorter than ${schema.minLength}`;
    if (schema.maxLength !== undefined && length > schema.maxLength)
      return `${at} is longer than ${schema.maxLength}`;
    if (schema.pattern !== undefined && !compileRe2(schema.pattern).test(value))
      return `${at} ${JSON.stringify(value)} does not match ${schema.pattern}`;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
