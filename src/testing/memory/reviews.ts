// The in-memory server's review resources, the way an operator's metrics filter (or kubectl auth
// can-i) uses them: TokenReview authenticates the tokens this server issues (the kubeconfig's and
// options.users'); SelfSubjectAccessReview / SubjectAccessReview of a resource are answered by the
// forbid rules and the authorize hook (everything else is allowed, as on the rest of this server);
// of a non-resource URL, also by RBAC as kube-apiserver decides it: system:masters, or a
// ClusterRoleBinding to a ClusterRole whose nonResourceURLs and verbs match.
import { groupVersion } from "./engine.js";
import { checkAccess, type HttpContext } from "./http.js";
import { ApiError } from "./status.js";
import type { KObj, RequestAttributes, ResourceDef, UserInfo } from "./types.js";

/** Answers a create of a virtual review resource. */
export function review(def: ResourceDef, body: KObj, requester: UserInfo, ctx: HttpContext): KObj {
  const status =
    def.kind === "TokenReview" ? tokenReview(body, ctx) : accessReview(def, body, requester, ctx);
  return {
    ...body,
    apiVersion: groupVersion(def),
    kind: def.kind,
    metadata: { creationTimestamp: null },
    status,
  };
}

function tokenReview(body: KObj, ctx: HttpContext): KObj {
  const token = body.spec?.token;
  if (typeof token !== "string" || token === "")
    throw new ApiError(
      422,
      'TokenReview.authentication.k8s.io "" is invalid: spec.token: Required value',
      "Invalid",
    );
  const user = ctx.tokens.get(token);
  if (!user) return { user: {}, error: "[invalid bearer token, token lookup failed]" };
  return {
    authenticated: true,
    user: { username: user.name, groups: user.groups },
    audiences: ["https://kubernetes.default.svc.cluster.local"],
  };
}

function accessReview(def: ResourceDef, body: KObj, requester: UserInfo, ctx: HttpContext): KObj {
  const spec = body.spec ?? {};
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  const user: UserInfo =
    def.kind === "SubjectAccessReview"
      ? { name: String(spec.user ?? ""), groups: spec.groups ?? [] }
      : requester;
  if (!ra && !nra)
    throw new ApiError(
      422,
      `${def.kind}.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`,
      "Invalid",
    );
  const attrs: RequestAttributes = {
    user,
    verb: String((ra ?? nra).verb ?? ""),
    group: String(ra?.group ?? ""),
    version: String(ra?.version ?? ""),
    resource: String(ra?.resource ?? ""),
    subresource: String(ra?.subresource ?? ""),
    namespace: String(ra?.namespace ?? ""),
    name: String(ra?.name ?? ""),
    path: String(nra?.path ?? ""),
  };
  const verdict = checkAccess(ctx, attrs);
  if (verdict !== true) return { allowed: false, denied: true, ...(verdict ? { reason: verdict } : {}) };
  if (ra) return { allowed: true };
  const grant = nonResourceGrant(ctx, user, attrs.path, attrs.verb);
  return grant ? { allowed: true, reason: grant } : { allowed: false };
}

/** Why RBAC lets the user `verb` the non-resource `path` (kube-apiserver's reason text), or undefined. */
function nonResourceGrant(ctx: HttpContext, user: UserInfo, path: string, verb: string): string | undefined {
  if (user.groups.includes("system:masters")) return 'allowed by group "system:masters"';
  const stored = (kind: string) => {
    const def = ctx.engine.registry.byKind("rbac.authorization.k8s.io/v1", kind);
    return def ? ctx.engine.store.list(def.storageKey, "") : [];
  };
  const roles = new Map(stored("ClusterRole").map((r) => [String(r.metadata?.name), r]));
  for (const binding of stored("ClusterRoleBinding")) {
    if (binding.roleRef?.kind !== "ClusterRole" || !bindsUser(binding, user)) continue;
    const role = roles.get(String(binding.roleRef.name));
    const rules: KObj[] = role?.rules ?? [];
    if (rules.some((rule) => matches(rule.verbs, verb) && urlMatches(rule.nonResourceURLs, path)))
      return `RBAC: allowed by ClusterRoleBinding "${binding.metadata?.name}" of ClusterRole "${role?.metadata?.name}" to ${user.name}`;
  }
  return undefined;
}

function bindsUser(binding: KObj, user: UserInfo): boolean {
  return (binding.subjects ?? []).some(
    (s: KObj) =>
      (s.kind === "User" && s.name === user.name) ||
      (s.kind === "Group" && user.groups.includes(s.name)) ||
      (s.kind === "ServiceAccount" && user.name === `system:serviceaccount:${s.namespace}:${s.name}`),
  );
}

function matches(values: unknown, wanted: string): boolean {
  return Array.isArray(values) && values.some((v) => v === "*" || v === wanted);
}

/** nonResourceURLs: exact, "*", or a prefix ending in "*". */
function urlMatches(urls: unknown, path: string): boolean {
  return (
    Array.isArray(urls) &&
    urls.some(
      (u) => typeof u === "string" && (u === path || (u.endsWith("*") && path.startsWith(u.slice(0, -1)))),
    )
  );
}
