// Rules the operator runtime itself needs because of how the code configures it (not what the
// reconcilers call), read statically like derive.ts: `optional: true` on `.controller(…)`, `.owns(…)`
// or `.watches(…)` makes the runtime watch CustomResourceDefinitions (docs/runtime.md, "CRDs that
// come and go"), and `cache: { namespaceSelector }` makes it watch Namespaces ("Namespaces that
// change"), and `sharding` in the manager's options makes it hold shard Leases and label the objects
// of its controllers' primary and owned kinds ("Sharding"; the same when config/manager turns on
// `--sharding`, sharding-flag.ts, with the Leases in the manager's namespace only). The manager
// cannot work without them, so `tsop generate` always writes them to role.yaml.
import type TS from "typescript";
import { ts } from "../compiler.js";
import { evaluate, NotConstant } from "../evaluate.js";
import type { RbacDeclaration } from "./collect.js";

/** Where each wiring method takes its options object (controller(kind, o), owns(kind, o), watches(kind, h, o)). */
const OPTIONS_ARG: Record<string, number> = { controller: 1, owns: 1, watches: 2 };

export interface RuntimeNeed {
  rule: RbacDeclaration;
  /** What implies it, for the log line: a node (file:line:col) or a place in config/. */
  node: TS.Node | string;
  why: string;
  /** Sharding: the kinds the controllers reconcile and own also need patch (their shard labels). */
  patchesWiredKinds?: boolean;
}

export function runtimeRbacNeeds(
  files: readonly TS.SourceFile[],
  checker: TS.TypeChecker,
  roleName: string,
): RuntimeNeed[] {
  const out: RuntimeNeed[] = [];
  const rule = (group: string, resource: string, verbs = ["get", "list", "watch"]): RbacDeclaration => ({
    groups: [group],
    resources: [resource],
    resourceNames: [],
    verbs,
    urls: [],
    namespace: "",
    roleName,
  });
  const visit = (n: TS.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const index = OPTIONS_ARG[n.expression.name.text];
      const options = index === undefined ? undefined : n.arguments[index];
      if (options && isOptional(checker, options))
        out.push({
          rule: rule("apiextensions.k8s.io", "customresourcedefinitions"),
          node: n,
          why: "an optional kind (the runtime watches CRDs to know when it is served)",
        });
    }
    if (
      (ts.isPropertyAssignment(n) || ts.isShorthandPropertyAssignment(n)) &&
      propertyName(n) === "namespaceSelector" &&
      ts.isObjectLiteralExpression(n.parent) &&
      isCacheOptions(n.parent)
    )
      out.push({
        rule: rule("", "namespaces"),
        node: n,
        why: "cache.namespaceSelector (the runtime watches the Namespaces it selects)",
      });
    if (
      (ts.isPropertyAssignment(n) || ts.isShorthandPropertyAssignment(n)) &&
      propertyName(n) === "sharding" &&
      ts.isObjectLiteralExpression(n.parent) &&
      isManagerOptions(n.parent)
    )
      out.push(shardingNeed(n, roleName, ""));
    ts.forEachChild(n, visit);
  };
  for (const f of files) visit(f);
  return out;
}

/** The verbs on Leases sharding uses (runtime/manager/shard-runtime.ts, sharding/sharder.ts). */
export const SHARD_LEASE_VERBS = ["get", "list", "watch", "create", "update", "delete"];

/**
 * Sharding's own needs: the shard Leases (in `namespace`, or cluster-wide when "": code may name any
 * leader election namespace) and, through patchesWiredKinds, patch on the wired kinds.
 */
export function shardingNeed(node: TS.Node | string, roleName: string, namespace: string): RuntimeNeed {
  return {
    rule: {
      groups: ["coordination.k8s.io"],
      resources: ["leases"],
      resourceNames: [],
      verbs: SHARD_LEASE_VERBS,
      urls: [],
      namespace,
      roleName,
    },
    node,
    why: "sharding (each replica holds a shard Lease; the leader watches them and deletes dead ones)",
    patchesWiredKinds: true,
  };
}

function propertyName(n: TS.PropertyAssignment | TS.ShorthandPropertyAssignment): string | undefined {
  return ts.isIdentifier(n.name) || ts.isStringLiteral(n.name) ? n.name.text : undefined;
}

/** `{ …, optional: true }` (or a constant that evaluates to it). */
function isOptional(checker: TS.TypeChecker, options: TS.Expression): boolean {
  const value = evaluate(checker, options);
  if (value instanceof NotConstant || typeof value !== "object" || value === null) {
    // Not all constant (e.g. predicates are functions): look for the literal property itself.
    if (!ts.isObjectLiteralExpression(options)) return false;
    return options.properties.some(
      (p) =>
        ts.isPropertyAssignment(p) &&
        propertyName(p) === "optional" &&
        p.initializer.kind === ts.SyntaxKind.TrueKeyword,
    );
  }
  return (value as { optional?: unknown }).optional === true;
}

/** The object literal is the value of a `cache` property (ManagerOptions.cache), or typed as CacheOptions. */
function isCacheOptions(literal: TS.ObjectLiteralExpression): boolean {
  const parent = literal.parent;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name) && parent.name.text === "cache")
    return true;
  if (ts.isVariableDeclaration(parent) && parent.type && /\bCacheOptions\b/.test(parent.type.getText()))
    return true;
  return false;
}

/** The object literal is ManagerOptions: passed to Manager.create / managerOptionsFromArgs, typed so, or with leaderElection beside. */
function isManagerOptions(literal: TS.ObjectLiteralExpression): boolean {
  const parent = literal.parent;
  if (ts.isCallExpression(parent) && /(\bcreate|managerOptionsFromArgs)$/.test(parent.expression.getText()))
    return true;
  if (ts.isVariableDeclaration(parent) && parent.type && /\bManagerOptions\b/.test(parent.type.getText()))
    return true;
  return literal.properties.some(
    (p) =>
      (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
      propertyName(p) === "leaderElection",
  );
}
