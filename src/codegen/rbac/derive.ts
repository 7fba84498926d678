// --derive-rbac (off by default): the rules a controller's wiring implies, read statically from
// `manager.controller(Kind)` and the chained `.owns(…)` / `.watches(…)` calls. Explicit @Rbac stays
// the primary source; derived rules are merged into the ClusterRole.
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
): RbacDeclaration[] {
  const out: RbacDeclaration[] = [];
  const rule = (k: KindRef, resources: string[], verbs: string[]) =>
    out.push({ groups: [k.group], resources, resourceNames: [], verbs, urls: [], namespace: "", roleName });
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
