// Checks of the project's sources that keep generation from silently doing nothing: tsop decorators
// where TypeScript ignores them (an interface), imports that cannot be resolved (node_modules not
// installed: "tsop" itself then resolves to nothing and no @CustomResource is found), and markers in
// kubebuilder's comment form, which tsop does not read (users moving from Go), with their tsop spelling.
import { builtinModules } from "node:module";
import type TS from "typescript";
import { ts } from "./compiler.js";
import type { Diagnostics } from "./diagnostics.js";
import { CLASS_DECORATORS } from "./markers.js";
import { msg } from "./messages.js";
import { isTsopSymbol } from "./program.js";

export function checkSources(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  diags: Diagnostics,
): void {
  for (const sf of files) {
    checkImports(sf, checker, diags);
    checkDecoratorPlacement(sf, checker, diags);
    checkKubebuilderMarkers(sf, diags);
  }
}

/**
 * Imports of "tsop" must resolve, and so must the packages imported by a file that declares a
 * resource (their types end up in its schema). Node's built-ins are left out on purpose (no
 * @types/node is loaded: a CRD type cannot be a Node type).
 */
function checkImports(sf: TS.SourceFile, checker: TS.TypeChecker, diags: Diagnostics): void {
  const declaresResources = sf.statements.some(
    (s) =>
      ts.isClassDeclaration(s) &&
      (ts.getDecorators(s) ?? []).some((d) => /^CustomResource\b/.test(d.expression.getText(sf))),
  );
  for (const statement of sf.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const name = specifier.text;
    // Only the package root carries the decorators and schema types (tsop/testing is not read).
    const isTsop = name === "tsop";
    if (!isTsop && (!declaresResources || name.startsWith(".") || isNodeBuiltin(name))) continue;
    if (checker.getSymbolAtLocation(specifier)) continue;
    diags.at(specifier, msg.unresolvedModule(name));
  }
}

function isNodeBuiltin(name: string): boolean {
  return name.startsWith("node:") || builtinModules.includes(name.split("/")[0] as string);
}

const CLASS_DECORATOR_NAMES = new Set(CLASS_DECORATORS.map((d) => d.name));

/** tsop's class decorators on anything but a class (TypeScript parses them on interfaces too). */
function checkDecoratorPlacement(sf: TS.SourceFile, checker: TS.TypeChecker, diags: Diagnostics): void {
  const visit = (node: TS.Node): void => {
    if (ts.isDecorator(node) && !ts.isClassDeclaration(node.parent) && !ts.isClassExpression(node.parent)) {
      const e = node.expression;
      const callee = ts.isCallExpression(e) ? e.expression : e;
      const symbol = ts.isIdentifier(callee) ? checker.getSymbolAtLocation(callee) : undefined;
      const name = ts.isIdentifier(callee) ? callee.text : "";
      if (CLASS_DECORATOR_NAMES.has(name) && isTsopSymbol(checker, symbol, name))
        diags.at(node, msg.decoratorOnNonClass(name, placeOf(node.parent)));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

function placeOf(node: TS.Node): string {
  if (ts.isInterfaceDeclaration(node)) return `interface ${node.name.text}`;
  if (ts.isTypeAliasDeclaration(node)) return `type ${node.name.text}`;
  if (ts.isEnumDeclaration(node)) return `enum ${node.name.text}`;
  if (ts.isPropertyDeclaration(node) || ts.isPropertySignature(node)) return "a property";
  if (ts.isMethodDeclaration(node)) return "a method";
  return ts.SyntaxKind[node.kind];
}

// ---------------------------------------------------------------- kubebuilder markers

const KUBEBUILDER_LINE =
  /^[ \t]*(?:\/\/|\/?\*+)[ \t]*\+(kubebuilder:[^\s=]*|optional|required|nullable|listType|listMapKey|mapType|structType|default|enum)(?:=(.*))?$/gm;

const VALIDATION_TAGS: Record<string, string> = {
  MinLength: "minLength",
  MaxLength: "maxLength",
  Minimum: "minimum",
  Maximum: "maximum",
  ExclusiveMinimum: "exclusiveMinimum",
  ExclusiveMaximum: "exclusiveMaximum",
  MultipleOf: "multipleOf",
  MinItems: "minItems",
  MaxItems: "maxItems",
  UniqueItems: "uniqueItems",
  MinProperties: "minProperties",
  MaxProperties: "maxProperties",
  Pattern: "pattern",
  Enum: "enumValues",
  Format: "format",
  Type: "schemaType",
  Optional: "optional",
  Required: "required",
  Nullable: "nullable",
  Schemaless: "schemaless",
  XEmbeddedResource: "embeddedResource",
  XPreserveUnknownFields: "preserveUnknownFields",
  XValidation: "validation",
  ExactlyOneOf: "exactlyOneOf",
  AtMostOneOf: "atMostOneOf",
  AtLeastOneOf: "atLeastOneOf",
};

/** tsop's spelling of a kubebuilder marker (name after the `+`, value after `=`). */
export function tsopEquivalent(name: string, value: string | undefined): string {
  const v = value === undefined ? "" : ` ${value.replace(/^"(.*)"$/, "$1")}`;
  const parts = name.split(":");
  if (parts[0] !== "kubebuilder") {
    if (name === "optional") return "`?` on the property (or @optional)";
    if (name === "required") return "a property without `?` (or @required)";
    if (name === "enum") return "a literal union or a TS enum";
    return `@${name}${v}`;
  }
  const [, area, sub, item] = parts;
  if (area === "validation" && sub === "items" && item && VALIDATION_TAGS[item])
    return `@items ${VALIDATION_TAGS[item]}${v}`;
  if (area === "validation" && sub === "XIntOrString") return "the IntOrString type from tsop";
  if (area === "validation" && sub === "XValidation") {
    // +kubebuilder:validation:XValidation:rule="…",message="…"  →  @validation rule="…" message="…"
    const args = [item ? `${item}=${value ?? ""}` : (value ?? "")].join("").replace(/,(?=\w+=)/g, " ");
    return `@validation ${args}`.trimEnd();
  }
  if (area === "validation" && sub && VALIDATION_TAGS[sub]) return `@${VALIDATION_TAGS[sub]}${v}`;
  if (area === "pruning" && sub === "PreserveUnknownFields") return "@preserveUnknownFields";
  if (area === "default") return `@default${v}`;
  if (area === "example") return `@example${v}`;
  if (area === "title") return `@title${v}`;
  if (area === "object" && sub === "root") return "nothing: a class with @CustomResource is the root";
  if (area === "object" || area === "webhook")
    return "nothing (tsop has no Go deep-copy or webhook generator)";
  if (area === "subresource" && sub === "status") return "@Status() on the class";
  if (area === "subresource" && sub === "scale")
    return "@Scale({ specReplicasPath, statusReplicasPath }) on the class";
  if (area === "printcolumn") return "@PrinterColumn({ name, type, jsonPath }) on the class";
  if (area === "resource") return "options of @CustomResource({ plural, scope, shortNames, categories })";
  if (area === "storageversion") return "@StorageVersion() on the class";
  if (area === "unservedversion") return "@Unserved() on the class";
  if (area === "deprecatedversion") return '@Deprecated("warning") on the class';
  if (area === "skipversion") return "@SkipVersion() on the class";
  if (area === "selectablefield") return "the selectableFields option of @CustomResource";
  if (area === "rbac") return "@Rbac({ groups, resources, verbs }) on a class";
  return "no direct equivalent (tsop generate --list-markers lists what tsop reads)";
}

function checkKubebuilderMarkers(sf: TS.SourceFile, diags: Diagnostics): void {
  if (!sf.text.includes("+")) return;
  for (const m of sf.text.matchAll(KUBEBUILDER_LINE)) {
    const name = m[1] as string;
    const value = m[2]?.trim();
    const at = (m.index ?? 0) + m[0].indexOf("+");
    diags.atPosition(
      sf,
      at,
      msg.kubebuilderMarker(`+${name}${value === undefined ? "" : `=${value}`}`, tsopEquivalent(name, value)),
    );
  }
}
