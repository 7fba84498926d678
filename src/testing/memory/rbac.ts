// RBAC authorization of resource requests, as kube-apiserver's RBAC authorizer decides it
// (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac): the ClusterRoleBindings, then the
// RoleBindings of the request's namespace, that bind the user; a rule allows when its verbs,
// apiGroups, resources (with "resource/subresource" and "*/subresource") and resourceNames match.
// Used for impersonated users (the operator's ServiceAccount in tests); everyone else keeps the
// forbid rules and the authorize hook.
import type { Engine } from "./engine.js";
import type { KObj, RequestAttributes, UserInfo } from "./types.js";

/** RBAC's verdict: allowed (with kube-apiserver's reason text), or denied with the errors it met. */
export type RbacVerdict = { allowed: true; reason: string } | { allowed: false; reason: string };

const RBAC = "rbac.authorization.k8s.io/v1";

/** Whether RBAC lets attrs.user make the resource request attrs describes. */
export function rbacAuthorize(engine: Engine, attrs: RequestAttributes): RbacVerdict {
  const stored = (kind: string, namespace = "") => {
    const def = engine.registry.byKind(RBAC, kind);
    return def ? engine.store.list(def.storageKey, namespace) : [];
  };
  const errors: string[] = [];
  const roleOf = (ref: KObj, namespace: string): KObj | undefined => {
    const clusterRole = ref.kind === "ClusterRole";
    const def = engine.registry.byKind(RBAC, clusterRole ? "ClusterRole" : "Role");
    const found = def
      ? engine.store.get(def.storageKey, clusterRole ? "" : namespace, String(ref.name))
      : undefined;
    if (!found) {
      errors.push(
        `${clusterRole ? "clusterrole" : "role"}.rbac.authorization.k8s.io "${ref.name}" not found`,
      );
    }
    return found;
  };
  const bindings: Array<{ binding: KObj; namespace: string }> = stored("ClusterRoleBinding").map((b) => ({
    binding: b,
    namespace: "",
  }));
  if (attrs.namespace) {
    for (const b of stored("RoleBinding", attrs.namespace))
      bindings.push({ binding: b, namespace: attrs.namespace });
  }
  for (const { binding, namespace } of bindings) {
    if (!(binding.subjects ?? []).some((s: KObj) => appliesToUser(attrs.user, s, namespace))) continue;
    const role = roleOf(binding.roleRef ?? {}, namespace);
    if (!role) continue;
    if ((role.rules ?? []).some((rule: KObj) => ruleAllows(attrs, rule))) {
      const kind = namespace ? "RoleBinding" : "ClusterRoleBinding";
      const where = namespace ? `${binding.metadata?.name}/${namespace}` : binding.metadata?.name;
      return {
        allowed: true,
        reason: `RBAC: allowed by ${kind} "${where}" of ${binding.roleRef.kind} "${role.metadata?.name}" to ${attrs.user.name}`,
      };
    }
  }
  return { allowed: false, reason: errors.length ? `RBAC: [${errors.join(", ")}]` : "" };
}

/** rbac/v1 appliesToUser: a User, a Group the user is in, or the ServiceAccount the user is. */
function appliesToUser(user: UserInfo, subject: KObj, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.name === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== "" && user.name === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** rbac/v1 RuleAllows for a resource request. */
function ruleAllows(attrs: RequestAttributes, rule: KObj): boolean {
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const names: unknown[] = rule.resourceNames ?? [];
  return (
    includesOrAll(rule.verbs, attrs.verb) &&
    includesOrAll(rule.apiGroups, attrs.group) &&
    resourceMatches(rule.resources, combined, attrs.subresource) &&
    (names.length === 0 || names.includes(attrs.name))
  );
}

function includesOrAll(values: unknown, wanted: string): boolean {
  return Array.isArray(values) && values.some((v) => v === "*" || v === wanted);
}

function resourceMatches(resources: unknown, combined: string, subresource: string): boolean {
  if (!Array.isArray(resources)) return false;
  return resources.some(
    (r) => r === "*" || r === combined || (subresource !== "" && r === `*/${subresource}`),
  );
}

/**
 * The user an Impersonate-User request acts as (kube-apiserver's impersonation filter): a
 * ServiceAccount user without Impersonate-Group gets its service-account groups; everyone but
 * system:anonymous gets system:authenticated.
 */
export function impersonatedUser(name: string, groups: readonly string[]): UserInfo {
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  const all =
    groups.length === 0 && sa ? ["system:serviceaccounts", `system:serviceaccounts:${sa[1]}`] : [...groups];
  if (
    name !== "system:anonymous" &&
    !all.includes("system:authenticated") &&
    !all.includes("system:unauthenticated")
  ) {
    all.push("system:authenticated");
  }
  return { name, groups: all, rbac: true };
}
