// The rules a controller's code implies, read statically from `manager.controller(Kind)` and the
// chained `.owns(…)` / `.watches(…)` calls (deriveRbac) and from the calls on tsop's Client
// (deriveClientCalls). Explicit @Rbac stays the primary source: `tsop generate` warns about what
// it does not grant, and --derive-rbac merges the derived rules into the ClusterRole.
import type TS from "typescript";
import { ts } from "../compiler.js";
import { defaultPlural } from "../../common/plural.js";
import type { Diagnostics } from "../diagnostics.js";
import { evaluate, NotConstant } from "../evaluate.js";
import { msg } from "../messages.js";
import { resolveAlias } from "../program.js";
import type { RbacDeclaration } from "./collect.js";

export interface KindRef {
  group: string;
  plural: string;
}

const IRREGULAR_PLURALS: Record<string, string> = { Endpoints: "endpoints" };

/** `{ apiVersion: "apps/v1", kind: "Deployment" }` → apps / deployments. */
function fromObject(value: unknown): KindRef | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return { group, plural: IRREGULAR_PLURALS[kind] ?? defaultPlural(kind) };
}

export function deriveRbac(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  diags: Diagnostics,
  kindOfClass: (cls: TS.ClassDeclaration) => KindRef | undefined,
  roleName: string,
  /** Told each derived rule and the call it came from. */
  onRule?: (rule: RbacDeclaration, call: TS.CallExpression) => void,
): RbacDeclaration[] {
  const out: RbacDeclaration[] = [];
  let call: TS.CallExpression | undefined;
  const rule = (k: KindRef, resources: string[], verbs: string[]) => {
    const derived = {
      groups: [k.group],
      resources,
      resourceNames: [],
      verbs,
      urls: [],
      namespace: "",
      roleName,
    };
    out.push(derived);
    if (call) onRule?.(derived, call);
  };
  const resolve = (arg: TS.Expression | undefined): KindRef | undefined => {
    if (!arg) return undefined;
    const sym = resolveAlias(checker, checker.getSymbolAtLocation(arg));
    const decl = sym?.valueDeclaration;
    if (decl && ts.isClassDeclaration(decl)) return kindOfClass(decl);
    const v = evaluate(checker, arg);
    return v instanceof NotConstant ? undefined : fromObject(v);
  };
  const visit = (n: TS.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const method = n.expression.name.text;
      if (method === "controller" || method === "owns" || method === "watches") {
        const k = resolve(n.arguments[0]);
        call = n;
        if (method === "controller" && k) {
          rule(k, [k.plural], ["get", "list", "watch", "update", "patch"]);
          rule(k, [`${k.plural}/status`], ["get", "update", "patch"]);
          rule(k, [`${k.plural}/finalizers`], ["update"]);
        } else if (method === "owns" && k)
          rule(k, [k.plural], ["get", "list", "watch", "create", "update", "patch", "delete"]);
        else if (method === "watches" && k) rule(k, [k.plural], ["get", "list", "watch"]);
        else if (n.arguments[0] && isManagerChain(n))
          diags.at(n.arguments[0], msg.deriveUnknown(n.arguments[0].getText()));
      }
    }
    ts.forEachChild(n, visit);
  };
  for (const f of files) visit(f);
  return out;
}

/** Only calls chained from `.controller(…)` count (not any `owns` method in the program). */
function isManagerChain(call: TS.CallExpression): boolean {
  let e: TS.Expression = call;
  while (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) {
    if (e.expression.name.text === "controller") return true;
    e = e.expression.expression;
  }
  return false;
}

/** A client call in the program and the rule it needs (what `tsop generate` checks @Rbac against). */
export interface ClientCallNeed {
  /** file:line:col of the call, relative to the project. */
  site: string;
  /** The call as written, shortened (e.g. `ctx.client.list(CONFIG_MAP, …)`). */
  call: string;
  group: string;
  resource: string;
  verb: string;
}

const CLIENT_VERBS: Record<string, string> = {
  get: "get",
  list: "list",
  create: "create",
  update: "update",
  patch: "patch",
  delete: "delete",
  deleteAllOf: "deletecollection",
};

/**
 * The calls on a client (tsop's Client, the manager's client, ctx.client) whose kind is known statically: a
 * kind class or `{ apiVersion, kind }` constant (get, list, deleteAllOf), or an object whose type
 * names both as literals (create, update, patch, delete).
 */
export function deriveClientCalls(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  kindOfClass: (cls: TS.ClassDeclaration) => KindRef | undefined,
  where: (node: TS.Node) => string,
): ClientCallNeed[] {
  const out: ClientCallNeed[] = [];
  const kindOfType = (type: TS.Type): KindRef | undefined => {
    const decl = type.getSymbol()?.valueDeclaration;
    if (decl && ts.isClassDeclaration(decl)) return kindOfClass(decl);
    const literal = (name: string) => {
      const prop = type.getProperty(name);
      const t = prop ? checker.getNonNullableType(checker.getTypeOfSymbol(prop)) : undefined;
      return t?.isStringLiteral() ? t.value : undefined;
    };
    return fromObject({ apiVersion: literal("apiVersion"), kind: literal("kind") });
  };
  const kindOfRef = (arg: TS.Expression): KindRef | undefined => {
    const decl = resolveAlias(checker, checker.getSymbolAtLocation(arg))?.valueDeclaration;
    if (decl && ts.isClassDeclaration(decl)) return kindOfClass(decl);
    const v = evaluate(checker, arg);
    return v instanceof NotConstant ? kindOfType(checker.getTypeAtLocation(arg)) : fromObject(v);
  };
  const visit = (n: TS.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.arguments[0]) {
      const method = n.expression.name.text;
      const verb = CLIENT_VERBS[method];
      const receiver = n.expression.expression;
      if (
        verb &&
        (CLIENT_NAME.test(receiver.getText()) || isTsopClient(checker.getTypeAtLocation(receiver)))
      ) {
        const arg = n.arguments[0];
        const byRef = method === "get" || method === "list" || method === "deleteAllOf";
        const k = byRef ? kindOfRef(arg) : kindOfType(checker.getTypeAtLocation(arg));
        if (k) {
          const text = n.getText().replace(/\s+/g, " ");
          const call = text.length > 60 ? `${text.slice(0, 57)}…` : text;
          out.push({ site: where(n), call, group: k.group, resource: k.plural, verb });
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  for (const f of files) visit(f);
  return out;
}

/**
 * How code names a client: `client`, `ctx.client`, `this.client`, `manager.client.apiReader`. By
 * name, since generate's program leaves tsop's runtime (the Client class) out for speed.
 */
const CLIENT_NAME = /(^|\.)(client|kubeClient|apiReader)$/;

/** tsop's runtime Client class (from the project's `tsop` dependency or tsop's own sources). */
function isTsopClient(type: TS.Type): boolean {
  const symbol = type.getSymbol();
  if (symbol?.getName() !== "Client") return false;
  const file = symbol.declarations?.[0]?.getSourceFile().fileName ?? "";
  return /[\\/]runtime[\\/]client[\\/]client\.(d\.ts|ts)$/.test(file);
}

/** Whether a declared rule grants `verb` on group/resource (any role; `*` and "core" understood). */
export function grants(
  declared: readonly RbacDeclaration[],
  need: Pick<ClientCallNeed, "group" | "resource" | "verb">,
): boolean {
  const has = (values: readonly string[], wanted: string) => values.includes("*") || values.includes(wanted);
  return declared.some(
    (d) =>
      d.resourceNames.length === 0 &&
      has(d.verbs, need.verb) &&
      has(d.resources, need.resource) &&
      has(
        d.groups.map((g) => (g === "core" ? "" : g)),
        need.group,
      ),
  );
}
