// RBAC stage 1: every tsop @Rbac on any class of the program, evaluated statically and checked
// (known verbs, resources or urls present, no urls in a namespaced Role).
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { classesOf, evaluateArg, tsopDecorators } from "../crd/collect.js";
import { suggest } from "../markers.js";
import { msg } from "../messages.js";

export interface RbacDeclaration {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  verbs: string[];
  urls: string[];
  namespace: string;
  roleName: string;
}

export const KNOWN_VERBS = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
  "use",
  "bind",
  "escalate",
  "impersonate",
  "approve",
  "sign",
  "*",
];

const FIELDS = ["groups", "resources", "resourceNames", "verbs", "urls", "namespace", "roleName"];

export function collectRbac(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  diags: Diagnostics,
  roleName: string,
): RbacDeclaration[] {
  const out: RbacDeclaration[] = [];
  for (const cls of classesOf(files)) {
    for (const use of tsopDecorators(cls, checker)) {
      if (use.name !== "Rbac") continue;
      const at = use.args[0] ?? use.call;
      const value = evaluateArg(checker, diags, use.args[0]);
      if (value === undefined) continue;
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        diags.at(at, msg.badOption("Rbac", "expects an options object { groups, resources, verbs, … }"));
        continue;
      }
      const o = value as Record<string, unknown>;
      let ok = true;
      const list = (key: string): string[] => {
        const v = o[key];
        if (v === undefined) return [];
        if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
          diags.at(at, msg.badOption("Rbac", `'${key}' must be a list of strings`));
          ok = false;
          return [];
        }
        return v as string[];
      };
      for (const key of Object.keys(o)) {
        if (!FIELDS.includes(key)) {
          diags.at(
            at,
            msg.badOption(
              "Rbac",
              `unknown option '${key}'${suggest(key, FIELDS) ? `; did you mean '${suggest(key, FIELDS)}'?` : ""}`,
            ),
          );
          ok = false;
        }
      }
      const str = (key: string): string | undefined => {
        const v = o[key];
        if (v !== undefined && typeof v !== "string") {
          diags.at(at, msg.badOption("Rbac", `'${key}' must be a string`));
          ok = false;
          return undefined;
        }
        return v;
      };
      const decl: RbacDeclaration = {
        groups: list("groups"),
        resources: list("resources"),
        resourceNames: list("resourceNames"),
        verbs: list("verbs"),
        urls: list("urls"),
        namespace: str("namespace") ?? "",
        roleName: str("roleName") ?? roleName,
      };
      for (const verb of decl.verbs) {
        if (!KNOWN_VERBS.includes(verb)) {
          diags.at(at, msg.verb(verb, suggest(verb, KNOWN_VERBS)));
          ok = false;
        }
      }
      if (decl.verbs.length === 0 || (decl.resources.length === 0 && decl.urls.length === 0)) {
        diags.at(at, msg.rbacEmpty());
        ok = false;
      }
      if (decl.urls.length > 0 && decl.namespace !== "") {
        diags.at(at, msg.urlsNamespace());
        ok = false;
      }
      if (ok) out.push(decl);
    }
  }
  return out;
}
