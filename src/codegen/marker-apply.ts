// Marker application: the shape of a marker table entry (where it may appear, how it parses, how it
// applies) and the helpers entries apply with: a check that the schema is of a kind the marker fits,
// setters, CEL rules, and builders for families of entries (bounds, counts, one-of constraints).
import type { Message } from "./diagnostics.js";
import { ParseFailure, parseCount, parseList, parseNumber } from "./marker-parse.js";
import { msg } from "./messages.js";
import { type Schema, VALIDATIONS, type ValidationRule } from "./schema-types.js";

/** Where a JSDoc tag may appear: on a property (field) or on an interface/type alias/class/enum (type). */
export type Place = "field" | "type";

/** The schema type a marker sees after the type itself is resolved. */
export type SchemaKind =
  "string" | "integer" | "number" | "boolean" | "array" | "object" | "int-or-string" | "any";

export interface ApplyContext {
  /** The resolved kind of a (possibly referenced) schema. */
  kindOf(schema: Schema): SchemaKind;
  /** Reports a problem at the tag. */
  report(message: Message): void;
  /** Present when the tag is on a property. */
  field?: FieldContext;
}

export interface FieldContext {
  name: string;
  optional: boolean;
  /** Rules the parent object gets (immutable-once-set), appended after its own. */
  parentRules: ValidationRule[];
  setRequired(required: boolean): void;
}

export interface TagMarker<V = unknown> {
  name: string;
  places: readonly Place[];
  usage: string;
  help: string;
  /** The class-property decorator spelling (sugar), if any. */
  decorator?: string;
  repeatable?: boolean;
  /** Lower runs first: type-changing markers before the markers that check the type. */
  priority: number;
  parse(text: string): V | ParseFailure;
  apply(schema: Schema, value: V, ctx: ApplyContext): void;
}

export interface DecoratorMarker {
  name: string;
  usage: string;
  help: string;
  repeatable?: boolean;
}

export const NUMERIC: readonly SchemaKind[] = ["integer", "number"];
export const TEXTUAL: readonly SchemaKind[] = ["string", "int-or-string"];

export function requireKind(
  ctx: ApplyContext,
  schema: Schema,
  marker: string,
  allowed: readonly SchemaKind[],
  expected: string,
): boolean {
  const kind = ctx.kindOf(schema);
  if (kind === "any" || allowed.includes(kind)) return true;
  ctx.report(msg.markerTarget(marker, expected, kind));
  return false;
}

export function numericBound(key: "minimum" | "maximum" | "multipleOf") {
  return (schema: Schema, value: number, ctx: ApplyContext) => {
    if (!requireKind(ctx, schema, key, NUMERIC, "a numeric value")) return;
    if (ctx.kindOf(schema) === "integer" && !Number.isInteger(value)) {
      ctx.report(msg.nonIntegral(key, value));
      return;
    }
    schema[key] = value;
  };
}

export function setter<K extends keyof Schema>(
  key: K,
  allowed: readonly SchemaKind[] | undefined,
  expected: string,
) {
  return (schema: Schema, value: Schema[K], ctx: ApplyContext) => {
    if (allowed && !requireKind(ctx, schema, String(key), allowed, expected)) return;
    schema[key] = value;
  };
}

export function addRule(schema: Schema, rule: ValidationRule): void {
  const rules = schema[VALIDATIONS] ?? [];
  rules.push(rule);
  schema[VALIDATIONS] = rules;
}

type OneOfKind = "atMostOneOf" | "exactlyOneOf" | "atLeastOneOf";

export function oneOfMarker(name: OneOfKind, priority: number, help: string): TagMarker<string[]> {
  return {
    name,
    places: ["type"],
    usage: `@${name} a;b[;c]`,
    help,
    repeatable: true,
    priority,
    parse: parseList,
    apply(schema, fields, ctx) {
      if (!requireKind(ctx, schema, name, ["object"], "an object")) return;
      const nested = fields.filter((f) => f.includes("."));
      if (nested.length) {
        ctx.report(msg.oneOf(`@${name}: cannot reference nested fields: ${nested.join(",")}`));
        return;
      }
      for (const f of fields) {
        if (!schema.properties?.[f]) {
          ctx.report(msg.oneOf(`@${name}: no field '${f}' in this type`));
          return;
        }
        if (schema.required?.includes(f)) {
          ctx.report(
            msg.oneOf(`field ${f} is part of a OneOf constraint and cannot be required; declare it '${f}?'`),
          );
          return;
        }
      }
      const list = fields.join(" ");
      const count = fields.map((f) => `(has(self.${f})?1:0)`).join("+");
      if (name === "atMostOneOf")
        addRule(schema, {
          message: `at most one of the fields in [${list}] may be set`,
          rule: `${count} <= 1`,
        });
      else if (name === "exactlyOneOf")
        addRule(schema, {
          message: `exactly one of the fields in [${list}] must be set`,
          rule: `${count} == 1`,
        });
      else
        addRule(schema, {
          message: `at least one of the fields in [${list}] must be set`,
          rule: fields.map((f) => `has(self.${f})`).join("||"),
        });
    },
  };
}

export const BOTH: readonly Place[] = ["field", "type"];

export function bound(
  name: "minimum" | "maximum" | "multipleOf",
  decorator: string,
  help: string,
): TagMarker<number> {
  return {
    name,
    places: BOTH,
    usage: `@${name} <number>`,
    help,
    decorator,
    priority: 10,
    parse: parseNumber,
    apply: numericBound(name),
  };
}

export function count(
  name: "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties",
  decorator: string,
  kinds: readonly SchemaKind[],
  expected: string,
  help: string,
): TagMarker<number> {
  return {
    name,
    places: BOTH,
    usage: `@${name} <n>`,
    help,
    decorator,
    priority: 10,
    parse: parseCount,
    apply: setter(name, kinds, expected),
  };
}
