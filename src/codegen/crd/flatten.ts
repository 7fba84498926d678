// Stage 3: inlines every `$ref` into one structural schema per version. A field's own keywords win
// over the referenced type's (description, title, bounds…), CEL rules are concatenated (field rules
// first). A reference back into a type being inlined is a cycle: reported with its path
// (`Node.children[] → Node`), since structural schemas cannot express recursion. Checks that need the
// whole resolved schema run here too: defaults against their schema, list-map keys, bounds.
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { msg } from "../messages.js";
import { type Schema, VALIDATIONS } from "../schema-types.js";
import type { NamedSchema } from "./named-schemas.js";
import { checkValue } from "./validate-value.js";

interface Frame {
  key: string;
  /** Position in the path text where this type was entered. */
  start: number;
}

export class Flattener {
  private readonly reportedCycles = new Set<string>();

  constructor(
    private readonly named: ReadonlyMap<string, NamedSchema>,
    private readonly origins: WeakMap<object, TS.Node>,
    private readonly diags: Diagnostics,
  ) {}

  flatten(root: Schema, rootName: string, at: TS.Node): Schema {
    return this.visit(root, [], rootName, at);
  }

  private visit(node: Schema, stack: Frame[], path: string, at: TS.Node): Schema {
    const here = this.origins.get(node) ?? at;
    let out: Schema;
    if (node.$ref !== undefined) {
      const { $ref, ...overrides } = node;
      const target = this.named.get($ref);
      if (!target) return {};
      const cycleAt = stack.findIndex((f) => f.key === $ref);
      if (cycleAt >= 0) {
        const frame = stack[cycleAt] as Frame;
        const cycle = `${path.slice(frame.start)} → ${target.name}`;
        if (!this.reportedCycles.has($ref)) {
          this.reportedCycles.add($ref);
          this.diags.at(here, msg.recursive(target.name, cycle));
        }
        return {};
      }
      const nextPath =
        path.length && !path.endsWith(" → ") ? `${path} → ${target.name}` : `${path}${target.name}`;
      const start = nextPath.length - target.name.length;
      const base = this.visit(target.schema, [...stack, { key: $ref, start }], nextPath, target.decl);
      out = this.merge(base, this.visitChildren(overrides, stack, nextPath, here));
    } else {
      out = this.visitChildren(node, stack, path, here);
    }
    this.check(out, here);
    return out;
  }

  private visitChildren(node: Schema, stack: Frame[], path: string, at: TS.Node): Schema {
    const out: Schema = { ...node };
    if (node.properties) {
      const props: Record<string, Schema> = {};
      for (const [name, child] of Object.entries(node.properties))
        props[name] = this.visit(child, stack, `${path}.${name}`, at);
      out.properties = props;
    }
    if (node.items) out.items = this.visit(node.items, stack, `${path}[]`, at);
    if (node.additionalProperties && typeof node.additionalProperties === "object") {
      out.additionalProperties = this.visit(node.additionalProperties, stack, `${path}{}`, at);
    }
    if (node.anyOf) out.anyOf = node.anyOf.map((s) => ({ ...s }));
    if (node[VALIDATIONS]) out[VALIDATIONS] = node[VALIDATIONS].map((r) => ({ ...r }));
    if (node.enum) out.enum = [...node.enum];
    if (node.required) out.required = [...node.required];
    if (node["x-kubernetes-list-map-keys"])
      out["x-kubernetes-list-map-keys"] = [...node["x-kubernetes-list-map-keys"]];
    return out;
  }

  /** The field's keywords over the type's schema; CEL rules concatenated, field rules first. */
  private merge(base: Schema, field: Schema): Schema {
    const out: Schema = { ...base };
    for (const [key, value] of Object.entries(field) as Array<[keyof Schema, unknown]>) {
      if (key === VALIDATIONS) {
        out[VALIDATIONS] = [...(field[VALIDATIONS] ?? []), ...(base[VALIDATIONS] ?? [])];
      } else if (key === "properties" && base.properties) {
        out.properties = { ...base.properties, ...field.properties };
      } else {
        (out as Record<string, unknown>)[key] = value;
      }
    }
    return out;
  }

  private check(schema: Schema, at: TS.Node): void {
    if (schema.default !== undefined) {
      const problem = checkValue(schema, schema.default);
      if (problem) this.diags.at(at, msg.badDefault("default", problem));
    }
    const keys = schema["x-kubernetes-list-map-keys"];
    if (schema["x-kubernetes-list-type"] === "map") {
      const item = schema.items;
      if (!keys?.length) this.diags.at(at, msg.listMapKey("@listType map needs at least one @listMapKey"));
      else if (item?.type !== "object" || !item.properties)
        this.diags.at(at, msg.listMapKey("@listType map needs object items"));
      else {
        for (const key of keys) {
          const field = item.properties[key];
          if (!field) this.diags.at(at, msg.listMapKey(`list map key '${key}' is not a field of the items`));
          else if (
            !["string", "integer", "number", "boolean"].includes(field.type ?? "") &&
            !field["x-kubernetes-int-or-string"]
          ) {
            this.diags.at(
              at,
              msg.listMapKey(
                `list map key '${key}' must be a scalar field, found ${field.type ?? "no type"}`,
              ),
            );
          } else if (!item.required?.includes(key) && field.default === undefined) {
            this.diags.at(at, msg.listMapKey(`list map key '${key}' must be required or have a @default`));
          }
        }
      }
    }
    const pairs: Array<[keyof Schema, keyof Schema]> = [
      ["minimum", "maximum"],
      ["minLength", "maxLength"],
      ["minItems", "maxItems"],
      ["minProperties", "maxProperties"],
    ];
    for (const [lo, hi] of pairs) {
      const a = schema[lo];
      const b = schema[hi];
      if (typeof a === "number" && typeof b === "number" && a > b)
        this.diags.at(at, msg.bounds(`${String(lo)} ${a} is greater than ${String(hi)} ${b}`));
    }
  }
}

/** Applies the --max-desc-len rule to every description: cut, then back off to a sentence end or a word. */
export function truncateDescriptions(schema: Schema, max: number): void {
  if (max < 0) return;
  if (schema.description !== undefined) {
    if (max === 0) delete schema.description;
    else schema.description = truncate(schema.description, max);
  }
  for (const child of Object.values(schema.properties ?? {})) truncateDescriptions(child, max);
  if (schema.items) truncateDescriptions(schema.items, max);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object")
    truncateDescriptions(schema.additionalProperties, max);
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const sentence = Math.max(cut.lastIndexOf("."), cut.lastIndexOf("!"), cut.lastIndexOf("?"));
  if (sentence > 0) return cut.slice(0, sentence + 1);
  const space = cut.search(/\s\S*$/);
  if (space > 0) return `${cut.slice(0, space)}...`;
  return `${cut}...`;
}
