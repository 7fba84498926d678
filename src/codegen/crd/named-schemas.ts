// The named schemas of CRD generation. Each named declaration (interface, class, type alias, enum,
// generic instantiation) and each built-in Kubernetes definition is built once, stored under a key
// and referenced with `$ref`, so recursion cannot loop; flatten.ts inlines them. A declaration's
// description and type markers are applied here, when its schema is built. The type → schema walk
// (schema.ts) extends this registry.
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { descriptionOf } from "../jsdoc.js";
import { builtinDefinition, shortDefinitionName } from "../builtin-schemas.js";
import type { SchemaKind } from "../marker-apply.js";
import type { Schema } from "../schema-types.js";
import { overlayCondition } from "./known.js";
import { applyTypeMarkers, isOpaque, markersOf } from "./schema-markers.js";

export interface NamedSchema {
  key: string;
  /** Display name for messages (`MemcachedSpec`, `Wrapper<string>`). */
  name: string;
  schema: Schema;
  decl: TS.Node;
}

export class NamedSchemas {
  readonly named = new Map<string, NamedSchema>();
  /** The declaration each field schema came from (for checks made after flattening). */
  readonly origins = new WeakMap<object, TS.Node>();
  private readonly declKeys = new Map<TS.Node, string>();
  /** Alias declarations being built: their own type must not be looked up as the alias again. */
  protected readonly building = new Set<TS.Node>();

  constructor(
    protected readonly checker: TS.TypeChecker,
    protected readonly diags: Diagnostics,
  ) {}

  readonly kindOf = (schema: Schema, depth = 0): SchemaKind => {
    if (schema.$ref !== undefined && schema.type === undefined) {
      const target = this.named.get(schema.$ref);
      return target && depth < 20 ? this.kindOf(target.schema, depth + 1) : "any";
    }
    if (schema["x-kubernetes-int-or-string"]) return "int-or-string";
    const t = schema.type;
    return t === "string" ||
      t === "integer" ||
      t === "number" ||
      t === "boolean" ||
      t === "array" ||
      t === "object"
      ? t
      : "any";
  };

  /**
   * A built-in Kubernetes type: its schema comes from the pinned Kubernetes OpenAPI (validations,
   * list and map types, formats, defaults) instead of the client's .d.ts. The definitions it
   * references become named schemas too; `decl` (the client-node declaration) positions messages.
   */
  protected builtinRef(definition: string, decl: TS.Node): Schema {
    const key = `k8s:${definition}`;
    if (!this.named.has(key)) {
      const entry: NamedSchema = { key, name: shortDefinitionName(definition), schema: {}, decl };
      this.named.set(key, entry);
      entry.schema = this.builtinRefs(builtinDefinition(definition) ?? {}, decl);
    }
    return { $ref: key };
  }

  /** Turns the `$ref`s of a built-in schema into references to (registered) named schemas. */
  private builtinRefs(schema: Schema, decl: TS.Node): Schema {
    if (schema.$ref !== undefined) {
      const { $ref, ...rest } = schema;
      return { ...this.builtinRef($ref, decl), ...rest };
    }
    if (schema.properties) {
      for (const [name, child] of Object.entries(schema.properties))
        schema.properties[name] = this.builtinRefs(child, decl);
    }
    if (schema.items) schema.items = this.builtinRefs(schema.items, decl);
    if (schema.additionalProperties && typeof schema.additionalProperties === "object")
      schema.additionalProperties = this.builtinRefs(schema.additionalProperties, decl);
    return schema;
  }

  protected refToDecl(decl: TS.Node, name: string, build: () => Schema): Schema {
    let key = this.declKeys.get(decl);
    if (key === undefined) {
      const sf = decl.getSourceFile();
      key = `${sf.fileName}:${decl.pos}`;
      this.declKeys.set(decl, key);
    }
    return this.refTo(key, name, decl, build);
  }

  protected refTo(key: string, name: string, decl: TS.Node, build: () => Schema): Schema {
    if (!this.named.has(key)) {
      const entry: NamedSchema = { key, name, schema: {}, decl };
      this.named.set(key, entry);
      const markers = markersOf(decl, "type", this.checker, this.diags);
      const opaque = isOpaque(markers);
      this.building.add(decl);
      const schema = opaque ? {} : build();
      this.building.delete(decl);
      const description = descriptionOf(decl);
      if (description) schema.description = description;
      if (markers) {
        applyTypeMarkers(schema, markers, this.kindOf, this.diags);
      } else if (name === "Condition") {
        overlayCondition(schema);
      }
      entry.schema = schema;
      this.origins.set(schema, decl);
    }
    return { $ref: key };
  }
}
