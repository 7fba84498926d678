// The ONE table of tsop's markers: JSDoc tags (on fields and types), their class-property decorator
// spellings, and the class decorators (resources, RBAC). Each entry has a name, where it is allowed,
// a parse function (marker-parse.ts), help text and how it applies (marker-apply.ts). crd/ and rbac/
// read only this table; so do `tsop generate --list-markers` and docs/generate.md.
import { re2Error } from "../common/re2.js";
import {
  addRule,
  type ApplyContext,
  BOTH,
  bound,
  count,
  type DecoratorMarker,
  NUMERIC,
  oneOfMarker,
  requireKind,
  setter,
  type TagMarker,
  TEXTUAL,
} from "./marker-apply.js";
import {
  ParseFailure,
  parseChoice,
  parseFlag,
  parseJsonOrString,
  parseList,
  parseString,
  parseValidation,
} from "./marker-parse.js";
import { msg } from "./messages.js";
import type { Schema, ValidationRule } from "./schema-types.js";

export const TAGS: readonly TagMarker<unknown>[] = [
  bound("minimum", "Minimum", "Smallest allowed value (numbers)."),
  bound("maximum", "Maximum", "Largest allowed value (numbers)."),
  {
    name: "exclusiveMinimum",
    places: BOTH,
    usage: "@exclusiveMinimum [true|false]",
    help: "Makes @minimum exclusive.",
    decorator: "ExclusiveMinimum",
    priority: 10,
    parse: parseFlag,
    apply(schema: Schema, v: boolean, ctx: ApplyContext) {
      if (requireKind(ctx, schema, "exclusiveMinimum", NUMERIC, "a numeric value") && v)
        schema.exclusiveMinimum = true;
    },
  },
  {
    name: "exclusiveMaximum",
    places: BOTH,
    usage: "@exclusiveMaximum [true|false]",
    help: "Makes @maximum exclusive.",
    decorator: "ExclusiveMaximum",
    priority: 10,
    parse: parseFlag,
    apply(schema: Schema, v: boolean, ctx: ApplyContext) {
      if (requireKind(ctx, schema, "exclusiveMaximum", NUMERIC, "a numeric value") && v)
        schema.exclusiveMaximum = true;
    },
  },
  bound("multipleOf", "MultipleOf", "The value must be a multiple of this number."),
  count("minLength", "MinLength", TEXTUAL, "a textual value", "Shortest allowed string."),
  count("maxLength", "MaxLength", TEXTUAL, "a textual value", "Longest allowed string."),
  {
    name: "pattern",
    places: BOTH,
    usage: "@pattern <regex>  (or a JSON string for regexes with spaces)",
    help: "Regular expression the string must match (Go RE2 syntax, as the API server checks it).",
    decorator: "Pattern",
    priority: 10,
    parse(text: string) {
      const s = parseString(text);
      if (s instanceof ParseFailure) return s;
      const error = re2Error(s);
      return error === undefined
        ? s
        : new ParseFailure(`not a regular expression the API server accepts (Go RE2 syntax): ${error}`);
    },
    apply: setter("pattern", TEXTUAL, "a textual value"),
  },
  count("minItems", "MinItems", ["array"], "an array", "Fewest allowed items."),
  count("maxItems", "MaxItems", ["array"], "an array", "Most allowed items."),
  {
    name: "uniqueItems",
    places: BOTH,
    usage: "@uniqueItems [true|false]",
    help: "Items must be unique (prefer @listType set).",
    decorator: "UniqueItems",
    priority: 10,
    parse: parseFlag,
    apply: setter("uniqueItems", ["array"], "an array"),
  },
  count("minProperties", "MinProperties", ["object"], "an object", "Fewest allowed keys."),
  count("maxProperties", "MaxProperties", ["object"], "an object", "Most allowed keys."),
  {
    name: "format",
    places: BOTH,
    usage: "@format <name>",
    help: 'OpenAPI format, e.g. date-time, email, uri, uuid, byte (or use Format<"email">, DateTime).',
    decorator: "StringFormat",
    priority: 10,
    parse: parseString,
    apply(schema: Schema, v: string) {
      schema.format = v;
    },
  },
  {
    name: "enumValues",
    places: BOTH,
    usage: "@enumValues a;b;c  (each a JSON value or a bare string)",
    help: "Allowed values for a non-literal type. Prefer a literal union or a TS enum.",
    decorator: "EnumValues",
    priority: 10,
    parse(text: string) {
      const parts = parseList(text);
      if (parts instanceof ParseFailure) return parts;
      return parts.map((p) => {
        try {
          return JSON.parse(p) as unknown;
        } catch {
          return p;
        }
      });
    },
    apply(schema: Schema, v: unknown[]) {
      schema.enum = v;
    },
  },
  {
    name: "schemaType",
    places: BOTH,
    usage: "@schemaType string|integer|number|boolean|object|array",
    help: "Overrides the schema type (with @schemaless, or for types that serialise differently).",
    decorator: "SchemaType",
    priority: 1,
    parse: parseChoice(["string", "integer", "number", "boolean", "object", "array"] as const),
    apply(schema: Schema, v: string) {
      schema.type = v;
      delete schema.$ref;
    },
  },
  {
    name: "schemaless",
    places: BOTH,
    usage: "@schemaless",
    help: "Emits an empty schema, never walking the type (combine with @schemaType object / @preserveUnknownFields).",
    decorator: "Schemaless",
    priority: 0,
    parse: parseFlag,
    apply(schema: Schema, v: boolean) {
      if (!v) return;
      for (const key of Object.keys(schema) as (keyof Schema)[])
        if (key !== "description") delete schema[key];
    },
  },
  {
    name: "nullable",
    places: BOTH,
    usage: "@nullable",
    help: "Allows null (same as `| null` in the type).",
    decorator: "Nullable",
    priority: 10,
    parse: parseFlag,
    apply(schema: Schema, v: boolean) {
      if (v) schema.nullable = true;
    },
  },
  {
    name: "default",
    places: BOTH,
    usage: "@default <json>  (or a bare string)",
    help: "Default value the API server fills in; checked against the field's schema.",
    decorator: "Default",
    priority: 10,
    parse: parseJsonOrString,
    apply(schema: Schema, v: unknown) {
      schema.default = v;
    },
  },
  {
    name: "example",
    places: BOTH,
    usage: "@example <json>",
    help: "Example value (JSON; bare strings are taken as strings).",
    decorator: "Example",
    priority: 10,
    parse: parseJsonOrString,
    apply(schema: Schema, v: unknown) {
      schema.example = v;
    },
  },
  {
    name: "title",
    places: BOTH,
    usage: "@title <text>",
    help: "Schema title.",
    decorator: "Title",
    priority: 10,
    parse: parseString,
    apply(schema: Schema, v: string) {
      schema.title = v;
    },
  },
  {
    name: "externalDocs",
    places: BOTH,
    usage: "@externalDocs <url> [description]",
    help: "Link to external documentation.",
    decorator: "ExternalDocs",
    priority: 10,
    parse(text: string) {
      const s = parseString(text);
      if (s instanceof ParseFailure) return s;
      const [url, ...rest] = s.split(/\s+/);
      if (!url) return new ParseFailure("a URL is required");
      try {
        new URL(url);
      } catch {
        return new ParseFailure(`invalid URL '${url}'`);
      }
      return rest.length ? { url, description: rest.join(" ") } : { url };
    },
    apply(schema: Schema, v: { url: string; description?: string }) {
      schema.externalDocs = v;
    },
  },
  {
    name: "validation",
    places: BOTH,
    usage:
      '@validation rule="<CEL>" [message="…"] [messageExpression="…"] [reason=FieldValueInvalid] [fieldPath=.x] [optionalOldSelf=true]',
    help: "CEL validation rule (x-kubernetes-validations); repeatable, source order kept.",
    decorator: "Validate",
    repeatable: true,
    priority: 10,
    parse: parseValidation,
    apply(schema: Schema, v: ValidationRule) {
      addRule(schema, v);
    },
  },
  oneOfMarker("atMostOneOf", 11, "At most one of the named optional fields may be set (generated CEL rule)."),
  oneOfMarker(
    "exactlyOneOf",
    12,
    "Exactly one of the named optional fields must be set (generated CEL rule).",
  ),
  oneOfMarker(
    "atLeastOneOf",
    13,
    "At least one of the named optional fields must be set (generated CEL rule).",
  ),
  {
    name: "immutable",
    places: ["field"],
    usage: "@immutable",
    help: "The field cannot change once set (self == oldSelf; optional fields also cannot be removed).",
    decorator: "Immutable",
    priority: 14,
    parse: parseFlag,
    apply(schema: Schema, v: boolean, ctx: ApplyContext) {
      if (!v || !ctx.field) return;
      addRule(schema, { message: "field is immutable", rule: "self == oldSelf" });
      if (ctx.field.optional) {
        const f = ctx.field.name;
        ctx.field.parentRules.push({
          message: `field ${f} is immutable once set`,
          rule: `!has(oldSelf.${f}) || has(self.${f})`,
        });
      }
    },
  },
  {
    name: "listType",
    places: BOTH,
    usage: "@listType atomic|set|map",
    help: "Server-side apply list semantics (x-kubernetes-list-type).",
    decorator: "ListType",
    priority: 9,
    parse: parseChoice(["atomic", "set", "map"] as const),
    apply: setter("x-kubernetes-list-type", ["array"], "an array"),
  },
  {
    name: "listMapKey",
    places: BOTH,
    usage: "@listMapKey <field>  (repeatable)",
    help: "Key field of a @listType map list; keys must be required (or defaulted) scalar fields of the items.",
    decorator: "ListMapKey",
    repeatable: true,
    priority: 10,
    parse: parseString,
    apply(schema: Schema, v: string, ctx: ApplyContext) {
      if (!requireKind(ctx, schema, "listMapKey", ["array"], "an array")) return;
      if (schema["x-kubernetes-list-type"] !== "map") {
        ctx.report(msg.listMapKey("must apply @listMapKey to an associative list (@listType map)"));
        return;
      }
      schema["x-kubernetes-list-map-keys"] = [...(schema["x-kubernetes-list-map-keys"] ?? []), v];
    },
  },
  {
    name: "mapType",
    places: BOTH,
    usage: "@mapType atomic|granular",
    help: "Server-side apply semantics of a Record (x-kubernetes-map-type).",
    decorator: "MapType",
    priority: 10,
    parse: parseChoice(["atomic", "granular"] as const),
    apply: setter("x-kubernetes-map-type", ["object"], "an object"),
  },
  {
    name: "structType",
    places: BOTH,
    usage: "@structType atomic|granular",
    help: "Server-side apply semantics of an object (x-kubernetes-map-type).",
    decorator: "StructType",
    priority: 10,
    parse: parseChoice(["atomic", "granular"] as const),
    apply: setter("x-kubernetes-map-type", ["object"], "an object"),
  },
  {
    name: "preserveUnknownFields",
    places: BOTH,
    usage: "@preserveUnknownFields",
    help: "Keeps fields the schema does not list (x-kubernetes-preserve-unknown-fields).",
    decorator: "PreserveUnknownFields",
    priority: 10,
    parse: parseFlag,
    apply(schema: Schema, v: boolean) {
      if (v) schema["x-kubernetes-preserve-unknown-fields"] = true;
    },
  },
  {
    name: "embeddedResource",
    places: BOTH,
    usage: "@embeddedResource",
    help: "The object is a whole Kubernetes object (apiVersion, kind, metadata) (x-kubernetes-embedded-resource).",
    decorator: "EmbeddedObject",
    priority: 10,
    parse: parseFlag,
    apply(schema: Schema, v: boolean, ctx: ApplyContext) {
      if (v && requireKind(ctx, schema, "embeddedResource", ["object"], "an object"))
        schema["x-kubernetes-embedded-resource"] = true;
    },
  },
  {
    name: "optional",
    places: ["field"],
    usage: "@optional",
    help: "Not required, whatever the type says (prefer `?`).",
    decorator: "OptionalField",
    priority: 10,
    parse: parseFlag,
    apply(_schema: Schema, v: boolean, ctx: ApplyContext) {
      if (v) ctx.field?.setRequired(false);
    },
  },
  {
    name: "required",
    places: ["field"],
    usage: "@required",
    help: "Required even though the property is optional in TypeScript.",
    decorator: "RequiredField",
    priority: 10,
    parse: parseFlag,
    apply(_schema: Schema, v: boolean, ctx: ApplyContext) {
      if (v) ctx.field?.setRequired(true);
    },
  },
];

/** `@items <tag> <value>`: applies another tag to the items of an array. */
export const ITEMS_TAG = {
  name: "items",
  usage: "@items <tag> <value>  (e.g. @items maxLength 255)",
  help: "Applies a validation tag to the items of an array field.",
};

export const CLASS_DECORATORS: readonly DecoratorMarker[] = [
  {
    name: "CustomResource",
    usage:
      "@CustomResource({ group, version, kind?, plural?, singular?, scope?, shortNames?, categories?, listKind?, annotations?, labels?, selectableFields?, served?, storage?, deprecationWarning? })",
    help: "Declares a class as one version of a custom resource; its instance type is the root schema.",
  },
  { name: "Status", usage: "@Status()", help: "Enables the status subresource." },
  {
    name: "Scale",
    usage: "@Scale({ specReplicasPath, statusReplicasPath, labelSelectorPath? })",
    help: "Enables the scale subresource; paths are checked against the schema.",
  },
  {
    name: "PrinterColumn",
    usage: "@PrinterColumn({ name, type, jsonPath, description?, format?, priority? })",
    help: "Adds a kubectl get column (source order).",
    repeatable: true,
  },
  {
    name: "StorageVersion",
    usage: "@StorageVersion()",
    help: "This version is the storage version (exactly one when a kind has several).",
  },
  { name: "Unserved", usage: "@Unserved()", help: "This version is not served." },
  {
    name: "Deprecated",
    usage: '@Deprecated("warning")',
    help: "This version is deprecated, with an optional warning.",
  },
  { name: "SkipVersion", usage: "@SkipVersion()", help: "Leaves this version out of the CRD." },
  {
    name: "Rbac",
    usage: "@Rbac({ groups?, resources?, resourceNames?, verbs, urls?, namespace?, roleName? })",
    help: "A permission the operator needs; on any class, repeatable. `namespace` makes it a Role.",
    repeatable: true,
  },
  {
    name: "MutatingWebhook",
    usage:
      "@MutatingWebhook({ path, name, groups, versions, resources, operations?, failurePolicy?, sideEffects?, admissionReviewVersions?, matchPolicy?, timeoutSeconds?, reinvocationPolicy? })",
    help: "A defaulting webhook handler (default(obj)); one entry of config/webhook/manifests.yaml.",
    repeatable: true,
  },
  {
    name: "ValidatingWebhook",
    usage:
      "@ValidatingWebhook({ path, name, groups, versions, resources, operations?, failurePolicy?, sideEffects?, admissionReviewVersions?, matchPolicy?, timeoutSeconds? })",
    help: "A validating webhook handler (validateCreate/Update/Delete); one entry of config/webhook/manifests.yaml.",
    repeatable: true,
  },
  {
    name: "ConversionWebhook",
    usage: "@ConversionWebhook({ group, kind, hub, path? })",
    help: "Converts a multi-version kind through its hub version (spokes: version → { toHub, fromHub }).",
  },
];

/** Class decorators that stand on their own (no @CustomResource needed on the same class). */
export const STANDALONE_DECORATORS: ReadonlySet<string> = new Set([
  "Rbac",
  "MutatingWebhook",
  "ValidatingWebhook",
  "ConversionWebhook",
]);

export const TAG_BY_NAME: ReadonlyMap<string, TagMarker<unknown>> = new Map(TAGS.map((t) => [t.name, t]));
export const TAG_BY_DECORATOR: ReadonlyMap<string, TagMarker<unknown>> = new Map(
  TAGS.filter((t) => t.decorator).map((t) => [t.decorator as string, t]),
);

/** Standard JSDoc/TSDoc tags that are never tsop markers (no typo warnings for them). */
export const FOREIGN_TAGS = new Set([
  "param",
  "returns",
  "return",
  "deprecated",
  "see",
  "link",
  "since",
  "remarks",
  "internal",
  "public",
  "private",
  "protected",
  "readonly",
  "beta",
  "alpha",
  "experimental",
  "todo",
  "type",
  "typedef",
  "template",
  "throws",
  "author",
  "version",
  "override",
  "inheritDoc",
  "packageDocumentation",
  "privateRemarks",
  "defaultValue",
  "eventProperty",
  "virtual",
  "sealed",
  "enum",
  "description",
  "summary",
  "file",
  "module",
  "license",
  "category",
  "hidden",
  "ignore",
  "property",
  "prop",
  "name",
]);

// "Did you mean": shared with the CLI's other commands (common/suggest.ts).
export { suggest } from "../common/suggest.js";

/** Renders the marker reference (tsop generate --list-markers). */
export function markerReference(): string {
  const lines = [
    "JSDoc tags (on properties = field, on interfaces / type aliases / classes / enums = type):",
    "",
  ];
  for (const t of [...TAGS].sort((a, b) => a.name.localeCompare(b.name))) {
    const where = t.places.join(", ");
    const sugar = t.decorator ? `  decorator: @${t.decorator}(…)` : "";
    lines.push(`  ${t.usage}`);
    lines.push(`      ${t.help} [${where}]${t.repeatable ? " (repeatable)" : ""}${sugar}`);
  }
  lines.push(`  ${ITEMS_TAG.usage}`, `      ${ITEMS_TAG.help} [field, type]`);
  lines.push("", 'Class decorators (import from "tsop"):', "");
  for (const d of CLASS_DECORATORS) {
    lines.push(`  ${d.usage}`, `      ${d.help}${d.repeatable ? " (repeatable)" : ""}`);
  }
  lines.push(
    "",
    'Types (import from "tsop"): Int32, Int64, Integer, Float64, IntOrString, Quantity, DateTime, Duration,',
    'Format<"…">, JSONValue, Unstructured, EmbeddedResource, Condition, ObjectMeta, KubeObject<Spec, Status>.',
    "`?` makes a field optional, `| null` nullable; literal unions and TS enums become enums.",
  );
  return lines.join("\n");
}
