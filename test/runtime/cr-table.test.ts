// docs/runtime.md's "Coming from controller-runtime" table cannot rot: every tsop name in its
// middle column (`Name`, or `Name.member`) is exported by src/runtime/index.ts or
// src/testing/index.ts, and a member is declared by that class or interface. The exports are read
// by parsing the index files and the modules they re-export from (TypeScript's parser only, no
// type checker: fast), following `export … from` and `export *`.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const INDEXES = ["src/runtime/index.ts", "src/testing/index.ts"].map((f) => resolve(ROOT, f));
const DOC = resolve(ROOT, "docs/runtime.md");

const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    parsed.set(file, source);
  }
  return source;
}

function target(from: string, specifier: ts.Expression): string {
  return resolve(dirname(from), (specifier as ts.StringLiteral).text.replace(/\.js$/, ".ts"));
}

type Declaration = ts.ClassDeclaration | ts.InterfaceDeclaration | ts.Node;

/** The declaration `name` exported from `file` resolves to, or undefined when it is not exported. */
function exported(file: string, name: string, seen = new Set<string>()): Declaration | undefined {
  const key = `${file}#${name}`;
  if (seen.has(key)) return undefined;
  seen.add(key);
  const source = parse(file);
  for (const statement of source.statements) {
    const isExported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (isExported) {
      if (
        (ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isFunctionDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name?.text === name
      )
        return statement;
      if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.name.text === name) return d;
    }
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause && ts.isNamedExports(clause)) {
      for (const spec of clause.elements) {
        if (spec.name.text !== name) continue;
        const original = spec.propertyName?.text ?? name;
        if (statement.moduleSpecifier)
          return exported(target(file, statement.moduleSpecifier), original, seen);
        return local(source, original);
      }
    } else if (!clause && statement.moduleSpecifier) {
      const found = exported(target(file, statement.moduleSpecifier), name, seen);
      if (found) return found;
    }
  }
  return undefined;
}

/** A declaration in `source` itself, or the one an import brings in. */
function local(source: ts.SourceFile, name: string): Declaration | undefined {
  for (const statement of source.statements) {
    if (
      (ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement)) &&
      statement.name?.text === name
    )
      return statement;
    if (ts.isImportDeclaration(statement) && statement.importClause?.namedBindings) {
      const bindings = statement.importClause.namedBindings;
      if (!ts.isNamedImports(bindings)) continue;
      for (const spec of bindings.elements)
        if (spec.name.text === name)
          return exported(
            target(source.fileName, statement.moduleSpecifier),
            spec.propertyName?.text ?? name,
          );
    }
  }
  return undefined;
}

/** Whether the class or interface declares `member` (a method, field, accessor or option). */
function declares(declaration: Declaration, member: string): boolean {
  if (!ts.isClassDeclaration(declaration) && !ts.isInterfaceDeclaration(declaration)) return false;
  return declaration.members.some((m) => {
    if (ts.isConstructorDeclaration(m)) {
      // Constructor parameters declared as fields (`readonly client: Client`).
      return m.parameters.some(
        (p) => ts.getModifiers(p)?.length && ts.isIdentifier(p.name) && p.name.text === member,
      );
    }
    return (
      m.name !== undefined &&
      (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) &&
      m.name.text === member
    );
  });
}

/** The rows of the table under "## Coming from controller-runtime": its first two cells. */
function tableRows(markdown: string): Array<{ go: string; tsop: string }> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Coming from controller-runtime\n"));
  if (!section) throw new Error('docs/runtime.md has no "## Coming from controller-runtime" section');
  return section
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .map((row) => {
      const cells = row.split(" | ");
      return { go: cells[0]!.replace(/^\| /, "").trim(), tsop: (cells[1] ?? "").trim() };
    });
}

/** The code spans of the middle column, each with its row's controller-runtime name. */
function tableNames(markdown: string): Array<{ row: string; name: string }> {
  return tableRows(markdown).flatMap(({ go, tsop }) =>
    [...tsop.matchAll(/`([^`]+)`/g)].map((m) => ({ row: go, name: m[1]! })),
  );
}

/** A problem with one name of the table, or undefined. */
function check(name: string): string | undefined {
  const match = /^([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?$/.exec(name);
  if (!match) return `\`${name}\` is not a name (Name or Name.member)`;
  const [, root, member] = match as unknown as [string, string, string | undefined];
  const declaration = INDEXES.map((index) => exported(index, root)).find((d) => d !== undefined);
  if (!declaration) return `${root} is exported by neither src/runtime/index.ts nor src/testing/index.ts`;
  if (member !== undefined && !declares(declaration, member)) return `${root} declares no member ${member}`;
  return undefined;
}

describe('docs/runtime.md "Coming from controller-runtime"', () => {
  const markdown = readFileSync(DOC, "utf8");
  const names = tableNames(markdown);

  it("names only what tsop and tsop/testing export", () => {
    expect(names.length).toBeGreaterThan(100);
    const problems = names.flatMap(({ row, name }) => {
      const problem = check(name);
      return problem ? [`${row}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("covers the controller-runtime names of issue 39's list", () => {
    const rows = tableRows(markdown);
    for (const { go, tsop } of rows)
      expect(tsop, `the tsop cell of ${go}`).toMatch(/^(`[^`]+`(, `[^`]+`)*|—)$/);
    const text = rows.map((r) => r.go).join("\n");
    for (const goName of [
      "For",
      "Owns",
      "Watches",
      "WithEventFilter",
      "WithOptions",
      "Named",
      "EnqueueRequestForObject",
      "EnqueueRequestForOwner",
      "EnqueueRequestsFromMapFunc",
      "TypedFuncs",
      "GenerationChangedPredicate",
      "LabelChangedPredicate",
      "AnnotationChangedPredicate",
      "ResourceVersionChangedPredicate",
      "LabelSelectorPredicate",
      "And",
      "Or",
      "Not",
      "predicate.Funcs",
      "DeleteAllOf",
      "Status()",
      "SubResource",
      "MatchingFields",
      "MatchingLabels",
      "InNamespace",
      "DryRunAll",
      "FieldOwner",
      "Apply",
      "CreateOrUpdate",
      "CreateOrPatch",
      "SetControllerReference",
      "SetOwnerReference",
      "RemoveOwnerReference",
      "HasOwnerReference",
      "AddFinalizer",
      "RemoveFinalizer",
      "ContainsFinalizer",
      "SetStatusCondition",
      "FindStatusCondition",
      "IsStatusConditionTrue",
      "NewManager",
      "mgr.Add",
      "Elected",
      "GetClient",
      "GetCache",
      "GetFieldIndexer",
      "GetEventRecorderFor",
      "AddHealthzCheck",
      "AddReadyzCheck",
      "mgr.Start",
      "Result",
      "RequeueAfter",
      "TerminalError",
      "healthz",
      "metrics.Registry",
      "CustomDefaulter",
      "CustomValidator",
      "conversion.Hub",
      "Convertible",
      "envtest",
    ])
      expect(text, `a row for controller-runtime's ${goName}`).toContain(goName);
  });

  it("refuses a name that is not exported, and a member the type does not declare", () => {
    expect(check("Manager.client")).toBeUndefined();
    expect(check("startTestCluster")).toBeUndefined();
    expect(check("ListOptions.matchingFields")).toBeUndefined();
    expect(check("createOrApply")).toMatch(/createOrApply is exported by neither/);
    expect(check("Manager.getClient")).toBe("Manager declares no member getClient");
    expect(check("client.get(kind)")).toMatch(/is not a name/);
  });
});
