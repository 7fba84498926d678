// RBAC stage 2: controller-gen's rule normalisation, so the same declarations give the same rules:
// bucket by (namespace, roleName); explode per resource; core → ""; dedupe and sort every list; merge
// equal keys (union verbs), then rules equal but for resources, then groups, then urls; sort by the
// key string; `*` swallows the other verbs. The ClusterRole (no namespace) comes first.
import type { RbacDeclaration } from "./collect.js";

export interface PolicyRule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

export interface RoleBucket {
  namespace: string;
  roleName: string;
  rules: PolicyRule[];
}

const uniqSorted = (xs: readonly string[]): string[] =>
  [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const join = (xs: readonly string[]) => xs.join("&");
const keyOf = (r: PolicyRule) =>
  [join(r.groups), join(r.resources), join(r.resourceNames), join(r.urls)].join(" + ");

type Field = "groups" | "resources" | "urls";

/** Merges rules that are equal in everything but `field`, uniting that field. */
function mergeExcept(rules: PolicyRule[], field: Field): PolicyRule[] {
  const out = new Map<string, PolicyRule>();
  for (const r of rules) {
    const k = JSON.stringify({ ...r, [field]: [] });
    const existing = out.get(k);
    if (existing) existing[field] = uniqSorted([...existing[field], ...r[field]]);
    else out.set(k, { ...r, [field]: [...r[field]] });
  }
  return [...out.values()];
}

export function normalizeRules(declarations: readonly RbacDeclaration[]): PolicyRule[] {
  const exploded: PolicyRule[] = [];
  for (const d of declarations) {
    const base = {
      groups: uniqSorted(d.groups.map((g) => (g === "core" ? "" : g))),
      resourceNames: uniqSorted(d.resourceNames),
      urls: uniqSorted(d.urls),
      verbs: uniqSorted(d.verbs),
    };
    const resources = d.resources.length ? uniqSorted(d.resources).map((r) => [r]) : [[]];
    for (const res of resources) exploded.push({ ...base, resources: res });
  }
  const byKey = new Map<string, PolicyRule>();
  for (const r of exploded) {
    const k = keyOf(r);
    const existing = byKey.get(k);
    if (existing) existing.verbs = uniqSorted([...existing.verbs, ...r.verbs]);
    else byKey.set(k, { ...r });
  }
  let rules = [...byKey.values()];
  rules = mergeExcept(rules, "resources");
  rules = mergeExcept(rules, "groups");
  rules = mergeExcept(rules, "urls");
  rules.sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  for (const r of rules) if (r.verbs.includes("*")) r.verbs = ["*"];
  return rules;
}

export function bucketRules(declarations: readonly RbacDeclaration[]): RoleBucket[] {
  const buckets = new Map<string, RbacDeclaration[]>();
  for (const d of declarations) {
    const k = JSON.stringify([d.namespace, d.roleName]);
    buckets.set(k, [...(buckets.get(k) ?? []), d]);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, ds]) => {
      const [namespace, roleName] = JSON.parse(k) as [string, string];
      return { namespace, roleName, rules: normalizeRules(ds) };
    });
}

/** The manager's ServiceAccount as the scaffold names it (config/rbac/service_account.yaml). */
export const MANAGER_SUBJECT = {
  kind: "ServiceAccount",
  name: "controller-manager",
  namespace: "system",
} as const;

/** "manager-role" → "manager-rolebinding" (kubebuilder's naming); "reader" → "reader-binding". */
export function bindingName(roleName: string): string {
  return roleName.endsWith("role") ? `${roleName}binding` : `${roleName}-binding`;
}

/**
 * The RoleBinding of a generated Role: the manager's ServiceAccount, in the Role's namespace, so a
 * namespaced @Rbac rule takes effect wherever kustomize (or OLM, as CSV permissions) puts the Role.
 */
function roleBinding(b: RoleBucket): Record<string, unknown> {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: bindingName(b.roleName), namespace: b.namespace },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: b.roleName },
    subjects: [{ ...MANAGER_SUBJECT }],
  };
}

/**
 * The Kubernetes objects of role.yaml, in order: the roles as controller-gen writes them, then a
 * RoleBinding for each Role (controller-gen writes none, leaving namespaced rules unbound) but those
 * whose binding the project's config tree already `provided` (rbac/config-bindings.ts).
 */
export function roleObjects(
  buckets: readonly RoleBucket[],
  provided: ReadonlySet<RoleBucket> = new Set(),
): Record<string, unknown>[] {
  const written = buckets.filter((b) => b.rules.length > 0);
  const bound = written.filter((b) => b.namespace !== "" && !provided.has(b));
  return [...written.map(roleObject), ...bound.map(roleBinding)];
}

function roleObject(b: RoleBucket): Record<string, unknown> {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: b.namespace === "" ? "ClusterRole" : "Role",
    metadata: b.namespace === "" ? { name: b.roleName } : { name: b.roleName, namespace: b.namespace },
    rules: b.rules.map((r) => {
      const rule: Record<string, string[]> = {};
      if (r.groups.length || r.resources.length) rule.apiGroups = r.groups;
      if (r.urls.length) rule.nonResourceURLs = r.urls;
      if (r.resourceNames.length) rule.resourceNames = r.resourceNames;
      if (r.resources.length) rule.resources = r.resources;
      rule.verbs = r.verbs;
      return rule;
    }),
  };
}
