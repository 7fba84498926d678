// Stage 2 of CRD generation: one schema per TypeScript type. Named declarations (interfaces,
// classes, type aliases, enums, generic instantiations) become entries in `named` and are referenced
// with `$ref` (named-schemas.ts, which this walk extends), so each is built once and recursion cannot
// loop here; flatten.ts inlines them. Markers are applied through schema-markers.ts.
// The syntax (type nodes) is read where it carries facts the checker drops: alias chains with their
// tags, literal-union order. The checker is used for everything else (generics, inheritance, mapped types).
import type TS from "typescript";
import { ts } from "../compiler.js";
import type { Diagnostics } from "../diagnostics.js";
import { collectMarkers, descriptionOf } from "../jsdoc.js";
import { msg } from "../messages.js";
import { isTsopFile, resolveAlias } from "../program.js";
import { definitionOfClientNodeModel } from "../builtin-schemas.js";
import type { Schema, ValidationRule } from "../schema-types.js";
import { VALIDATIONS } from "../schema-types.js";
import {
  API_VERSION_DESCRIPTION,
  BRANDED_ALIASES,
  brandSchema,
  fixedSchema,
  KIND_DESCRIPTION,
} from "./known.js";
import { NamedSchemas } from "./named-schemas.js";
import { applyFieldMarkers, applyTypeMarkers, isOpaque, markersOf } from "./schema-markers.js";
import {
  fromClientNode,
  fromDependency,
  isDataProperty,
  isErrorType,
  isLibFile,
  isNullOrUndefinedNode,
  literalOfNode,
  literalSchema,
  refersToTypeParameter,
} from "./type-facts.js";

interface Site {
  /** Where problems are reported. */
  at: TS.Node;
  /** `Memcached.spec.size`, for messages. */
  label: string;
}

export class SchemaBuilder extends NamedSchemas {
  /** The root schema of a custom resource class: its instance type's properties. */
  rootSchema(cls: TS.ClassDeclaration, kind: string): Schema {
    const symbol = cls.name ? this.checker.getSymbolAtLocation(cls.name) : undefined;
    const type = symbol ? this.checker.getDeclaredTypeOfSymbol(symbol) : this.checker.getTypeAtLocation(cls);
    const root = this.objectSchema(type, kind, cls, true);
    const description = descriptionOf(cls);
    if (description) root.description = description;
    const markers = collectMarkers(cls, "type", this.checker, this.diags);
    applyTypeMarkers(root, markers, this.kindOf, this.diags);
    return root;
  }

  // ------------------------------------------------------------------ entry points per use site

  private forType(type: TS.Type, node: TS.TypeNode | undefined, site: Site): Schema {
    if (node) {
      const fromSyntax = this.fromNode(type, node, site);
      if (fromSyntax) return fromSyntax;
    }
    return this.fromType(type, site);
  }

  private fromNode(type: TS.Type, node: TS.TypeNode, site: Site): Schema | undefined {
    let n = node;
    while (ts.isParenthesizedTypeNode(n)) n = n.type;
    if (ts.isTypeOperatorNode(n) && n.operator === ts.SyntaxKind.ReadonlyKeyword) n = n.type;
    const c = this.checker;
    switch (n.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: "string" };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: "boolean" };
      case ts.SyntaxKind.NumberKeyword:
        return this.float(site);
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.ObjectKeyword:
        if (fromDependency(site.at)) return { "x-kubernetes-preserve-unknown-fields": true };
        return this.fail(site, msg.anyType(n.getText()));
      case ts.SyntaxKind.BigIntKeyword:
        return this.fail(site, msg.unsupported("bigint", "JSON has no bigint; use Int64 or a string"));
      case ts.SyntaxKind.SymbolKeyword:
        return this.fail(site, msg.unsupported("symbol", "symbols do not serialise to JSON; use a string"));
      case ts.SyntaxKind.NeverKeyword:
      case ts.SyntaxKind.VoidKeyword:
      case ts.SyntaxKind.UndefinedKeyword:
        return this.fail(site, msg.unsupported(n.getText(), "give the field a JSON type, or remove it"));
    }
    if (ts.isArrayTypeNode(n)) {
      const items = this.forType(c.getTypeFromTypeNode(n.elementType), n.elementType, {
        ...site,
        label: `${site.label}[]`,
      });
      return { type: "array", items };
    }
    if (ts.isTupleTypeNode(n)) return this.fail(site, msg.tuple(n.getText()));
    if (ts.isFunctionTypeNode(n) || ts.isConstructorTypeNode(n)) {
      return this.fail(
        site,
        msg.unsupported(
          n.getText(),
          "functions do not serialise to JSON; remove the field or make it a method",
        ),
      );
    }
    if (ts.isLiteralTypeNode(n)) {
      const lit = literalOfNode(n);
      return lit === undefined ? undefined : literalSchema([lit]);
    }
    if (ts.isUnionTypeNode(n)) return this.unionFromNode(n, site);
    if (ts.isTypeReferenceNode(n)) return this.refFromNode(type, n, site);
    return undefined;
  }

  private unionFromNode(node: TS.UnionTypeNode, site: Site): Schema | undefined {
    const rest = node.types.filter((t) => !isNullOrUndefinedNode(t));
    const nullable = node.types.some(
      (t) => ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword,
    );
    let schema: Schema | undefined;
    if (rest.length === 1 && rest[0]) {
      schema = this.forType(this.checker.getTypeFromTypeNode(rest[0]), rest[0], site);
    } else {
      const literals = this.literalsOfNodes(rest);
      if (literals) {
        if (literals.length === 2 && literals.includes(true) && literals.includes(false))
          schema = { type: "boolean" };
        else schema = this.enumOf(literals, node.getText(), site);
      }
    }
    if (schema && nullable) schema.nullable = true;
    return schema;
  }

  /** Literal members in syntax order, following aliases of literal unions; undefined if any member is not a literal. */
  private literalsOfNodes(
    nodes: readonly TS.TypeNode[],
    depth = 0,
  ): Array<string | number | boolean> | undefined {
    const out: Array<string | number | boolean> = [];
    for (const t of nodes) {
      if (ts.isLiteralTypeNode(t)) {
        const v = literalOfNode(t);
        if (v === undefined) return undefined;
        out.push(v);
      } else if (ts.isTypeReferenceNode(t) && depth < 10) {
        const sym = resolveAlias(this.checker, this.checker.getSymbolAtLocation(t.typeName));
        const decl = sym?.declarations?.[0];
        if (decl && ts.isTypeAliasDeclaration(decl) && ts.isUnionTypeNode(decl.type)) {
          const inner = this.literalsOfNodes(decl.type.types, depth + 1);
          if (!inner) return undefined;
          out.push(...inner);
        } else if (decl && ts.isTypeAliasDeclaration(decl) && ts.isLiteralTypeNode(decl.type)) {
          const v = literalOfNode(decl.type);
          if (v === undefined) return undefined;
          out.push(v);
        } else if (sym && sym.flags & ts.SymbolFlags.EnumMember && decl && ts.isEnumMember(decl)) {
          const v = this.checker.getConstantValue(decl);
          if (v === undefined) return undefined;
          out.push(v);
        } else return undefined;
      } else return undefined;
    }
    return out;
  }

  private refFromNode(_type: TS.Type, node: TS.TypeReferenceNode, site: Site): Schema | undefined {
    const sym = resolveAlias(this.checker, this.checker.getSymbolAtLocation(node.typeName));
    if (!sym) return undefined;
    const decl = sym.declarations?.[0];
    if (!decl) return undefined;
    const name = sym.name;
    const args = node.typeArguments ?? [];
    if (isTsopFile(decl.getSourceFile().fileName)) {
      const brand = BRANDED_ALIASES[name];
      if (brand) return brandSchema(brand);
      if (name === "Format") {
        const arg = args[0];
        const lit = arg && ts.isLiteralTypeNode(arg) ? literalOfNode(arg) : undefined;
        return typeof lit === "string" ? brandSchema(lit) : undefined;
      }
      const fixed = fixedSchema(name);
      if (fixed) return fixed;
    }
    const builtin = fromClientNode(decl) ? definitionOfClientNodeModel(name) : undefined;
    if (builtin) return this.builtinRef(builtin, decl);
    if (fromDependency(decl) && name === "V1ObjectMeta") return { type: "object" };
    if (fromDependency(decl) && name === "IntOrString") return brandSchema("int-or-string");
    if (sym.flags & ts.SymbolFlags.TypeParameter) return this.fail(site, msg.typeParameter(name));
    if (isLibFile(decl))
      return this.libType(
        name,
        args.map((a) => ({ node: a, type: this.checker.getTypeFromTypeNode(a) })),
        node.getText(),
        site,
      );
    if (ts.isTypeAliasDeclaration(decl) && !decl.typeParameters && args.length === 0) {
      return this.refToDecl(decl, name, () => {
        const schema = this.forType(this.checker.getTypeFromTypeNode(decl.type), decl.type, {
          at: decl,
          label: name,
        });
        return schema;
      });
    }
    if (
      (ts.isInterfaceDeclaration(decl) || ts.isClassDeclaration(decl)) &&
      !decl.typeParameters &&
      args.length === 0
    ) {
      return this.refToDecl(decl, name, () =>
        this.objectSchema(this.checker.getDeclaredTypeOfSymbol(sym), name, decl, false),
      );
    }
    if (ts.isEnumDeclaration(decl)) return this.refToDecl(decl, name, () => this.enumSchema(decl, site));
    if (sym.flags & ts.SymbolFlags.EnumMember && ts.isEnumMember(decl)) {
      const v = this.checker.getConstantValue(decl);
      return v === undefined ? undefined : literalSchema([v]);
    }
    return undefined;
  }

  /** Types from TypeScript's lib: Array, ReadonlyArray, Record, Date; everything else is unsupported. */
  private libType(
    name: string,
    args: Array<{ node?: TS.TypeNode; type: TS.Type }>,
    text: string,
    site: Site,
  ): Schema | undefined {
    const [first, second] = args;
    if ((name === "Array" || name === "ReadonlyArray") && first) {
      return {
        type: "array",
        items: this.forType(first.type, first.node, { ...site, label: `${site.label}[]` }),
      };
    }
    if (name === "Record" && first && second) {
      const keyType = first.type;
      const stringKeys =
        keyType.flags & ts.TypeFlags.String ||
        (keyType.isUnion()
          ? keyType.types.every((t) => t.flags & ts.TypeFlags.StringLiteral)
          : keyType.flags & ts.TypeFlags.StringLiteral);
      if (!stringKeys)
        return this.fail(
          site,
          msg.indexSignature(`map keys must be strings, not '${this.checker.typeToString(keyType)}'`),
        );
      if (!(keyType.flags & ts.TypeFlags.String)) return undefined; // literal keys: a plain object (checker route)
      return {
        type: "object",
        additionalProperties: this.forType(second.type, second.node, { ...site, label: `${site.label}{}` }),
      };
    }
    if (name === "Date") {
      if (!fromDependency(site.at)) this.diags.at(site.at, msg.date());
      return { type: "string", format: "date-time" };
    }
    if (name === "Map" || name === "Set" || name === "WeakMap" || name === "WeakSet") {
      return this.fail(
        site,
        msg.unsupported(
          text,
          name.endsWith("Map")
            ? "a Map does not serialise to JSON; use Record<string, T>"
            : "a Set does not serialise to JSON; use T[] with @listType set",
        ),
      );
    }
    return this.fail(site, msg.unsupported(text, "only JSON data types can be part of a CRD schema"));
  }

  private fromType(type: TS.Type, site: Site): Schema {
    const c = this.checker;
    const f = type.flags;
    if (f & ts.TypeFlags.Any && isErrorType(type)) return this.fail(site, msg.unresolved(typeText(site)));
    // A dependency's declarations cannot be fixed by the user: free-form there means "keep as is".
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) && fromDependency(site.at))
      return { "x-kubernetes-preserve-unknown-fields": true };
    if (f & ts.TypeFlags.Any) return this.fail(site, msg.anyType("any"));
    if (f & ts.TypeFlags.Unknown) return this.fail(site, msg.anyType("unknown"));
    const alias = type.aliasSymbol;
    if (alias) {
      const decl = alias.declarations?.[0];
      if (decl && fromDependency(decl) && alias.name === "IntOrString") return brandSchema("int-or-string");
      if (decl && isTsopFile(decl.getSourceFile().fileName)) {
        const brand = BRANDED_ALIASES[alias.name];
        if (brand) return brandSchema(brand);
        const fixed = fixedSchema(alias.name);
        if (fixed) return fixed;
      } else if (
        decl &&
        ts.isTypeAliasDeclaration(decl) &&
        !decl.typeParameters &&
        !type.aliasTypeArguments &&
        !isLibFile(decl) &&
        !this.building.has(decl)
      ) {
        return this.refToDecl(decl, alias.name, () =>
          this.forType(c.getTypeFromTypeNode(decl.type), decl.type, { at: decl, label: alias.name }),
        );
      }
    }
    const brand = this.brandOf(type);
    if (brand) return brandSchema(brand);
    if (f & ts.TypeFlags.StringLiteral) return literalSchema([(type as TS.StringLiteralType).value]);
    if (f & ts.TypeFlags.NumberLiteral) return literalSchema([(type as TS.NumberLiteralType).value]);
    if (f & ts.TypeFlags.BooleanLiteral)
      return literalSchema([(type as { intrinsicName?: string }).intrinsicName === "true"]);
    if (f & ts.TypeFlags.String) return { type: "string" };
    if (f & ts.TypeFlags.Number) return this.float(site);
    if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
    if (f & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral))
      return this.fail(site, msg.unsupported("bigint", "JSON has no bigint; use Int64 or a string"));
    if (f & ts.TypeFlags.ESSymbolLike)
      return this.fail(site, msg.unsupported("symbol", "symbols do not serialise to JSON; use a string"));
    if (f & (ts.TypeFlags.Never | ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Null)) {
      return this.fail(
        site,
        msg.unsupported(c.typeToString(type), "give the field a JSON type, or remove it"),
      );
    }
    if (f & ts.TypeFlags.TypeParameter) return this.fail(site, msg.typeParameter(c.typeToString(type)));
    const symbol = type.getSymbol();
    if (
      symbol &&
      symbol.flags & ts.SymbolFlags.Enum &&
      (f & ts.TypeFlags.EnumLike || f & ts.TypeFlags.Union)
    ) {
      const decl = symbol.declarations?.find(ts.isEnumDeclaration);
      if (decl) return this.refToDecl(decl, symbol.name, () => this.enumSchema(decl, site));
    }
    if (type.isUnion()) return this.unionFromType(type, site);
    if (f & ts.TypeFlags.Object || type.isIntersection()) return this.objectType(type, site);
    return this.fail(
      site,
      msg.unsupported(c.typeToString(type), "only JSON data types can be part of a CRD schema"),
    );
  }

  private unionFromType(type: TS.UnionType, site: Site): Schema {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)));
    const nullable = type.types.some((t) => t.flags & ts.TypeFlags.Null);
    let schema: Schema;
    const brands = members.map((m) => this.brandOf(m));
    if (members.length > 1 && brands.every((b) => b !== undefined && b === brands[0])) {
      schema = brandSchema(brands[0] as string);
    } else if (members.length > 0 && members.every((m) => m.flags & ts.TypeFlags.BooleanLiteral)) {
      schema = members.length === 2 ? { type: "boolean" } : this.fromType(members[0] as TS.Type, site);
    } else if (members.length === 1) {
      schema = this.fromType(members[0] as TS.Type, site);
    } else if (
      members.every(
        (m) =>
          m.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral),
      )
    ) {
      const values = members.map((m) =>
        m.flags & ts.TypeFlags.BooleanLiteral
          ? (m as { intrinsicName?: string }).intrinsicName === "true"
          : (m as TS.LiteralType).value,
      ) as Array<string | number | boolean>;
      schema = this.enumOf(values, this.checker.typeToString(type), site);
    } else {
      const text = members.map((m) => this.checker.typeToString(m)).join(" | ");
      const numberAndString =
        members.length === 2 &&
        members.some((m) => m.flags & ts.TypeFlags.NumberLike) &&
        members.some((m) => m.flags & ts.TypeFlags.StringLike);
      schema = this.fail(
        site,
        numberAndString
          ? { ...msg.objectUnion(text), hint: "use IntOrString from tsop for a number-or-string field" }
          : msg.objectUnion(text),
      );
    }
    if (nullable) schema.nullable = true;
    return schema;
  }

  private objectType(type: TS.Type, site: Site): Schema {
    const c = this.checker;
    if (c.isTupleType(type)) return this.fail(site, msg.tuple(c.typeToString(type)));
    if (c.isArrayType(type)) {
      const element = c.getTypeArguments(type as TS.TypeReference)[0];
      return {
        type: "array",
        items: element ? this.fromType(element, { ...site, label: `${site.label}[]` }) : {},
      };
    }
    const symbol = type.getSymbol();
    const decl = symbol?.declarations?.[0];
    if (symbol && decl && isLibFile(decl) && symbol.name !== "__type" && symbol.name !== "__object") {
      const args = ((type as TS.TypeReference).typeArguments ?? []).map((t) => ({ type: t }));
      const lib = this.libType(symbol.name, args, c.typeToString(type), site);
      if (lib) return lib;
    }
    if (type.getCallSignatures().length > 0) {
      return this.fail(
        site,
        msg.unsupported(
          c.typeToString(type),
          "functions do not serialise to JSON; remove the field or make it a method",
        ),
      );
    }
    const objectFlags = (type as TS.ObjectType).objectFlags ?? 0;
    if (symbol && decl && (ts.isInterfaceDeclaration(decl) || ts.isClassDeclaration(decl))) {
      const builtin = fromClientNode(decl) ? definitionOfClientNodeModel(symbol.name) : undefined;
      if (builtin) return this.builtinRef(builtin, decl);
      if (
        isTsopFile(decl.getSourceFile().fileName) ||
        (fromDependency(decl) && symbol.name === "V1ObjectMeta")
      ) {
        const fixed = fixedSchema(symbol.name === "V1ObjectMeta" ? "ObjectMeta" : symbol.name);
        if (fixed) return fixed;
      }
      const reference = objectFlags & ts.ObjectFlags.Reference ? (type as TS.TypeReference) : undefined;
      const generic =
        reference && reference.target !== reference && (c.getTypeArguments(reference).length ?? 0) > 0;
      if (!generic) {
        return this.refToDecl(decl, symbol.name, () =>
          this.objectSchema(c.getDeclaredTypeOfSymbol(symbol), symbol.name, decl, false),
        );
      }
      const id = (type as { id?: number }).id ?? 0;
      const name = c.typeToString(type);
      return this.refTo(`inst:${id}`, name, decl, () => this.objectSchema(type, name, decl, false));
    }
    return this.objectSchema(type, c.typeToString(type), site.at, false);
  }

  /** `type.flags` carries no brand: read the `[format]?: F` property tsop's Brand<T, F> adds. */
  private brandOf(type: TS.Type): string | undefined {
    if (!type.isIntersection()) return undefined;
    for (const part of type.types) {
      if (!(part.flags & ts.TypeFlags.Object)) continue;
      for (const prop of part.getProperties()) {
        if (!String(prop.escapedName).startsWith("__@format")) continue;
        const decl = prop.declarations?.[0];
        if (!decl || !isTsopFile(decl.getSourceFile().fileName)) continue;
        const t = this.checker.getTypeOfSymbol(prop);
        const lits = (t.isUnion() ? t.types : [t]).filter((x) => x.flags & ts.TypeFlags.StringLiteral);
        const lit = lits[0] as TS.StringLiteralType | undefined;
        if (lit) return lit.value;
      }
    }
    return undefined;
  }

  // ------------------------------------------------------------------ enums

  private enumSchema(decl: TS.EnumDeclaration, site: Site): Schema {
    const values: Array<string | number> = [];
    for (const member of decl.members) {
      const v = this.checker.getConstantValue(member);
      if (v !== undefined) values.push(v);
    }
    return this.enumOf(values, decl.name.text, { ...site, at: decl });
  }

  private enumOf(values: Array<string | number | boolean>, text: string, site: Site): Schema {
    const kinds = new Set(values.map((v) => typeof v));
    if (kinds.size > 1) {
      const names = { string: "strings", number: "numbers", boolean: "booleans" } as Record<string, string>;
      const mixed = ["string", "number", "boolean"]
        .filter((k) => kinds.has(k as never))
        .map((k) => names[k] as string);
      return this.fail(site, msg.mixedEnum(text, mixed));
    }
    return literalSchema(values);
  }

  // ------------------------------------------------------------------ objects and fields

  private objectSchema(type: TS.Type, ownerName: string, at: TS.Node, root: boolean): Schema {
    const c = this.checker;
    const stringIndex = c.getIndexInfoOfType(type, ts.IndexKind.String);
    const numberIndex = c.getIndexInfoOfType(type, ts.IndexKind.Number);
    const props = c.getPropertiesOfType(type).filter(isDataProperty);
    if (stringIndex && props.length > 0 && !root) {
      return this.fail(
        { at: stringIndex.declaration ?? at, label: ownerName },
        msg.indexSignature(`${ownerName} has both named properties and an index signature`),
      );
    }
    if (numberIndex && !stringIndex) {
      return this.fail(
        { at: numberIndex.declaration ?? at, label: ownerName },
        msg.indexSignature(`map keys must be strings, not number (${ownerName})`),
      );
    }
    if (stringIndex) {
      const node = stringIndex.declaration?.type;
      return {
        type: "object",
        additionalProperties: this.forType(
          stringIndex.type,
          node && !refersToTypeParameter(c, node) ? node : undefined,
          {
            at: stringIndex.declaration ?? at,
            label: `${ownerName}{}`,
          },
        ),
      };
    }
    const schema: Schema = { type: "object", properties: {} };
    const required: string[] = [];
    const parentRules: ValidationRule[] = [];
    const properties = schema.properties as Record<string, Schema>;
    for (const prop of props) {
      const decl = prop.valueDeclaration ?? prop.declarations?.[0] ?? at;
      const name = prop.name;
      if (
        String(prop.escapedName).startsWith("__@") ||
        (decl &&
          (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) &&
          ts.isComputedPropertyName(decl.name) &&
          !ts.isStringLiteralLike(decl.name.expression))
      ) {
        this.diags.at(
          decl,
          msg.computedName(decl && "name" in decl && decl.name ? (decl.name as TS.Node).getText() : name),
        );
        continue;
      }
      if (name === "__proto__") {
        this.diags.at(decl, msg.protoName(ownerName));
        continue;
      }
      if (root && (name === "apiVersion" || name === "kind")) {
        properties[name] = {
          type: "string",
          description: name === "kind" ? KIND_DESCRIPTION : API_VERSION_DESCRIPTION,
        };
        continue;
      }
      if (root && name === "metadata") {
        properties[name] = { type: "object" };
        continue;
      }
      // KubeObject<Spec> without a Status: the base class's `status?: unknown` is not part of the schema.
      if (
        root &&
        isTsopFile(decl.getSourceFile().fileName) &&
        c.getTypeOfSymbol(prop).flags & ts.TypeFlags.Unknown
      )
        continue;
      const field = this.fieldSchema(prop, decl, ownerName, type.isIntersection(), parentRules);
      if (!field) continue;
      properties[name] = field.schema;
      if (field.required) required.push(name);
    }
    if (Object.keys(properties).length === 0) delete schema.properties;
    if (required.length) schema.required = required.sort();
    if (parentRules.length) schema[VALIDATIONS] = parentRules;
    return schema;
  }

  private fieldSchema(
    prop: TS.Symbol,
    decl: TS.Node,
    ownerName: string,
    inIntersection: boolean,
    parentRules: ValidationRule[],
  ): { schema: Schema; required: boolean } | undefined {
    const c = this.checker;
    const label = `${ownerName}.${prop.name}`;
    const site: Site = { at: decl, label };
    const full = c.getTypeOfSymbol(prop);
    let optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
    let type = full;
    if (full.isUnion() && full.types.some((t) => t.flags & ts.TypeFlags.Undefined)) {
      const rest = full.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
      if (!optional) {
        this.diags.at(decl, msg.bareUndefined(prop.name));
        optional = true;
      }
      type = rest.length === 1 && rest[0] ? rest[0] : full;
      if (rest.length === 0)
        return {
          schema: this.fail(site, msg.unsupported("undefined", "give the field a JSON type, or remove it")),
          required: false,
        };
    }
    if (type.flags & ts.TypeFlags.Never && inIntersection) {
      const texts = (prop.declarations ?? []).map((d) =>
        "type" in d && d.type ? (d.type as TS.Node).getText() : "?",
      );
      this.diags.at(decl, msg.intersectionConflict(prop.name, texts[0] ?? "?", texts[1] ?? "?"));
      return undefined;
    }
    let node: TS.TypeNode | undefined;
    if (
      (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) &&
      decl.type &&
      !refersToTypeParameter(c, decl.type)
    )
      node = decl.type;
    const markers = markersOf(decl, "field", c, this.diags);
    const schema = isOpaque(markers) ? {} : this.forType(type, node, site);
    const description = descriptionOf(decl);
    if (description) schema.description = description;
    let required = !optional;
    if (markers) {
      const field = { name: prop.name, optional, parentRules, setRequired: (v: boolean) => (required = v) };
      applyFieldMarkers(schema, markers, field, this.kindOf, this.diags);
    }
    this.origins.set(schema, decl);
    return { schema, required };
  }

  // ------------------------------------------------------------------ helpers

  private float(site: Site): Schema {
    // @kubernetes/client-node's models say `number` for what the API declares int32/int64.
    if (fromDependency(site.at))
      return /[\\/]@kubernetes[\\/]client-node[\\/]/.test(site.at.getSourceFile().fileName)
        ? { type: "integer" }
        : { type: "number" };
    this.diags.at(site.at, msg.float(`'${site.label}'`));
    return { type: "number" };
  }

  private fail(site: Site, message: Parameters<Diagnostics["at"]>[1]): Schema {
    this.diags.at(site.at, message);
    return {};
  }
}

function typeText(site: Site): string {
  const n = site.at;
  if ((ts.isPropertySignature(n) || ts.isPropertyDeclaration(n)) && n.type) return n.type.getText();
  return site.label;
}
