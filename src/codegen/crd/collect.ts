// Stage 1 of CRD generation: finds the classes decorated with tsop's @CustomResource and reads
// their class decorators (evaluated statically) into one ResourceVersion each.
import type TS from "typescript";
import { ts } from "../compiler.js";
import { defaultPlural } from "../../common/plural.js";
import type { Diagnostics } from "../diagnostics.js";
import { type ConstValue, evaluate, NotConstant } from "../evaluate.js";
import { CLASS_DECORATORS, STANDALONE_DECORATORS, suggest } from "../markers.js";
import { msg } from "../messages.js";
import { isTsopSymbol } from "../program.js";

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ResourceVersion {
  cls: TS.ClassDeclaration;
  /** Where each CRD-level setting came from, for conflict messages. */
  at: TS.Node;
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  scope: string;
  shortNames: string[];
  categories: string[];
  listKind: string;
  annotations: Record<string, string>;
  labels: Record<string, string>;
  selectableFields: string[];
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  skip: boolean;
  status: boolean;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  printerColumns: PrinterColumn[];
  /** Nodes of individual options, for positioned errors. */
  nodes: Record<string, TS.Node>;
}

export interface DecoratorUse {
  name: string;
  call: TS.Decorator;
  args: readonly TS.Expression[];
}

const DECORATOR_NAMES = new Set(CLASS_DECORATORS.map((d) => d.name));

/** The tsop class decorators on a class, in source order (top to bottom). */
export function tsopDecorators(cls: TS.ClassDeclaration, checker: TS.TypeChecker): DecoratorUse[] {
  const out: DecoratorUse[] = [];
  for (const d of ts.getDecorators(cls) ?? []) {
    const e = d.expression;
    const callee = ts.isCallExpression(e) ? e.expression : e;
    const id = ts.isIdentifier(callee)
      ? callee
      : ts.isPropertyAccessExpression(callee)
        ? callee.name
        : undefined;
    if (!id) continue;
    const symbol = checker.getSymbolAtLocation(id);
    for (const name of DECORATOR_NAMES) {
      if (isTsopSymbol(checker, symbol, name))
        out.push({ name, call: d, args: ts.isCallExpression(e) ? e.arguments : [] });
    }
  }
  return out;
}

/** Every class declaration in the given files, nested ones included. */
export function classesOf(files: readonly TS.SourceFile[]): TS.ClassDeclaration[] {
  const out: TS.ClassDeclaration[] = [];
  const visit = (n: TS.Node): void => {
    if (ts.isClassDeclaration(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  for (const f of files) visit(f);
  return out;
}

type Obj = Record<string, ConstValue>;

/** Evaluates one decorator argument; reports and returns undefined when not constant. */
export function evaluateArg(
  checker: TS.TypeChecker,
  diags: Diagnostics,
  arg: TS.Expression | undefined,
): ConstValue | undefined {
  if (!arg) return undefined;
  const v = evaluate(checker, arg);
  if (v instanceof NotConstant) {
    diags.at(v.node, msg.notConstant(v.node.getText()));
    return undefined;
  }
  return v;
}

export function collectResources(
  classes: readonly TS.ClassDeclaration[],
  checker: TS.TypeChecker,
  diags: Diagnostics,
): ResourceVersion[] {
  const out: ResourceVersion[] = [];
  for (const cls of classes) {
    const uses = tsopDecorators(cls, checker);
    const cr = uses.find((u) => u.name === "CustomResource");
    if (!cr) {
      for (const u of uses) {
        if (!STANDALONE_DECORATORS.has(u.name))
          diags.at(u.call, msg.badOption(u.name, "needs @CustomResource on the same class"));
      }
      continue;
    }
    const options = evaluateArg(checker, diags, cr.args[0]);
    if (options === undefined) continue;
    const r = readResource(cls, cr, options, diags);
    if (!r) continue;
    // Decorators are listed top to bottom in source; printer columns keep that order.
    for (const u of uses) {
      if (u.name === "CustomResource" || STANDALONE_DECORATORS.has(u.name)) continue;
      const arg = evaluateArg(checker, diags, u.args[0]);
      if (u.args[0] && arg === undefined) continue;
      applyClassDecorator(r, u, arg, diags);
    }
    out.push(r);
  }
  return out;
}

function readResource(
  cls: TS.ClassDeclaration,
  use: DecoratorUse,
  options: ConstValue,
  diags: Diagnostics,
): ResourceVersion | undefined {
  const at = use.args[0] ?? use.call;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    diags.at(at, msg.badOption("CustomResource", "expects an options object { group, version, … }"));
    return undefined;
  }
  const o = options as Obj;
  const nodes = optionNodes(use.args[0]);
  const problems: string[] = [];
  const str = (key: string, required = false): string | undefined => {
    const v = o[key];
    if (v === undefined) {
      if (required) problems.push(`'${key}' is required`);
      return undefined;
    }
    if (typeof v !== "string") {
      problems.push(`'${key}' must be a string`);
      return undefined;
    }
    return v;
  };
  const list = (key: string): string[] => {
    const v = o[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
      problems.push(`'${key}' must be a list of strings`);
      return [];
    }
    return v as string[];
  };
  const record = (key: string): Record<string, string> => {
    const v = o[key];
    if (v === undefined) return {};
    if (
      typeof v !== "object" ||
      v === null ||
      Array.isArray(v) ||
      !Object.values(v).every((x) => typeof x === "string")
    ) {
      problems.push(`'${key}' must be a record of strings`);
      return {};
    }
    return v as Record<string, string>;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const v = o[key];
    if (v === undefined) return fallback;
    if (typeof v !== "boolean") {
      problems.push(`'${key}' must be true or false`);
      return fallback;
    }
    return v;
  };
  const known = [
    "group",
    "version",
    "kind",
    "plural",
    "singular",
    "scope",
    "shortNames",
    "categories",
    "listKind",
    "annotations",
    "labels",
    "selectableFields",
    "served",
    "storage",
    "deprecationWarning",
  ];
  for (const key of Object.keys(o)) {
    if (known.includes(key)) continue;
    const near = suggest(key, known);
    problems.push(`unknown option '${key}'${near ? `; did you mean '${near}'?` : ""}`);
  }
  const group = str("group", true);
  const version = str("version", true);
  const kind = str("kind") ?? cls.name?.text ?? "";
  const plural = str("plural") ?? defaultPlural(kind);
  const deprecationWarning = str("deprecationWarning");
  const r: ResourceVersion = {
    cls,
    at: use.call,
    group: group ?? "",
    version: version ?? "",
    kind,
    plural,
    singular: str("singular") ?? kind.toLowerCase(),
    scope: str("scope") ?? "Namespaced",
    shortNames: list("shortNames"),
    categories: list("categories"),
    listKind: str("listKind") ?? `${kind}List`,
    annotations: record("annotations"),
    labels: record("labels"),
    selectableFields: list("selectableFields"),
    served: bool("served", true),
    storage: bool("storage", false),
    deprecated: deprecationWarning !== undefined,
    skip: false,
    status: false,
    printerColumns: [],
    nodes,
    ...(deprecationWarning === undefined ? {} : { deprecationWarning }),
  };
  for (const p of problems) diags.at(at, msg.badOption("CustomResource", p));
  return group === undefined || version === undefined ? undefined : r;
}

/** The property nodes of an object literal argument, by name (for positioned errors). */
function optionNodes(arg: TS.Expression | undefined): Record<string, TS.Node> {
  const out: Record<string, TS.Node> = {};
  let e = arg;
  while (e && (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)))
    e = e.expression;
  if (e && ts.isObjectLiteralExpression(e)) {
    for (const p of e.properties) {
      if (
        (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
        (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))
      ) {
        out[p.name.text] = ts.isPropertyAssignment(p) ? p.initializer : p;
      }
    }
  }
  return out;
}

function applyClassDecorator(
  r: ResourceVersion,
  use: DecoratorUse,
  arg: ConstValue | undefined,
  diags: Diagnostics,
): void {
  const bad = (text: string) => diags.at(use.args[0] ?? use.call, msg.badOption(use.name, text));
  switch (use.name) {
    case "Status":
      r.status = true;
      return;
    case "StorageVersion":
      r.storage = true;
      r.nodes.storage = use.call;
      return;
    case "Unserved":
      r.served = false;
      return;
    case "SkipVersion":
      r.skip = true;
      r.nodes.skip = use.call;
      return;
    case "Deprecated":
      r.deprecated = true;
      if (typeof arg === "string") r.deprecationWarning = arg;
      else if (arg !== undefined) bad("the warning must be a string");
      return;
    case "Scale": {
      const o = arg as Obj | undefined;
      if (
        !o ||
        typeof o !== "object" ||
        typeof o.specReplicasPath !== "string" ||
        typeof o.statusReplicasPath !== "string"
      ) {
        bad("expects { specReplicasPath, statusReplicasPath, labelSelectorPath? } with string paths");
        return;
      }
      r.scale = { specReplicasPath: o.specReplicasPath, statusReplicasPath: o.statusReplicasPath };
      if (typeof o.labelSelectorPath === "string") r.scale.labelSelectorPath = o.labelSelectorPath;
      r.nodes.scale = use.args[0] ?? use.call;
      return;
    }
    case "PrinterColumn": {
      const o = arg as Obj | undefined;
      if (
        !o ||
        typeof o !== "object" ||
        typeof o.name !== "string" ||
        typeof o.type !== "string" ||
        typeof o.jsonPath !== "string"
      ) {
        bad("expects { name, type, jsonPath, description?, format?, priority? }");
        return;
      }
      const col: PrinterColumn = { name: o.name, type: o.type, jsonPath: o.jsonPath };
      if (typeof o.description === "string") col.description = o.description;
      if (typeof o.format === "string") col.format = o.format;
      if (typeof o.priority === "number") col.priority = o.priority;
      r.printerColumns.push(col);
      r.nodes[`printerColumn:${r.printerColumns.length - 1}`] = use.args[0] ?? use.call;
      return;
    }
  }
}
