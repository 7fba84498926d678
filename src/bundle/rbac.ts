// The RBAC split (operator-sdk §2.6): rules bound to the CSV's service accounts become
// `permissions` (namespaced: RoleBinding → Role/ClusterRole) and `clusterPermissions`
// (ClusterRoleBinding → ClusterRole); everything not consumed is written to bundle/manifests.
// Bindings are read in name order, as kustomize sorts them, so the CSV does not depend on the
// order of the input; a Role that nothing binds is reported (its rules reach nobody).
import { asRecords, type LoadedObject, nameOf, namespaceOf, str } from "../manifests/index.js";
import type { Collected } from "./collect.js";

export interface StrategyPermission {
  serviceAccountName: string;
  rules: Record<string, unknown>[];
}

export interface RbacSplit {
  permissions: StrategyPermission[];
  clusterPermissions: StrategyPermission[];
  /** Roles, bindings and service accounts that stay separate manifests in the bundle. */
  out: LoadedObject[];
  /** The service accounts the CSV creates (deployments' plus --extra-service-accounts). */
  serviceAccounts: string[];
  /** Roles whose rules reach no one, for the user to fix. */
  warnings: string[];
}

const RBAC_GROUPS = new Set(["", "rbac.authorization.k8s.io"]);

export function deploymentServiceAccount(deployment: Record<string, unknown>): string {
  const spec = deployment.spec as Record<string, unknown> | undefined;
  const template = spec?.template as Record<string, unknown> | undefined;
  const pod = template?.spec as Record<string, unknown> | undefined;
  return str(pod?.serviceAccountName) || "default";
}

const byName = (a: LoadedObject, b: LoadedObject): number => {
  const ka = `${nameOf(a.object)}\0${namespaceOf(a.object)}`;
  const kb = `${nameOf(b.object)}\0${namespaceOf(b.object)}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** Roles no RoleBinding refers to: valid manifests whose rules are granted to nobody. */
export function unboundRoles(c: Collected): string[] {
  const bound = new Set(
    c.roleBindings.flatMap((b) => {
      const ref = (b.object.roleRef ?? {}) as Record<string, unknown>;
      return str(ref.kind) === "Role" ? [`${namespaceOf(b.object)}/${str(ref.name)}`] : [];
    }),
  );
  return [...c.roles]
    .sort(byName)
    .filter((r) => !bound.has(`${namespaceOf(r.object)}/${nameOf(r.object)}`))
    .map(
      (r) =>
        `Role ${nameOf(r.object)} (${r.origin.file}) is bound by no RoleBinding, so its rules are granted to no one: add a RoleBinding to the manager's ServiceAccount (\`tsop generate\` writes one for each @Rbac Role), or remove the Role`,
    );
}

export function splitRbac(c: Collected, extraServiceAccounts: readonly string[]): RbacSplit {
  const accounts = new Set<string>([
    ...c.deployments.map((d) => deploymentServiceAccount(d.object)),
    ...extraServiceAccounts,
  ]);
  const roles = new Map(c.roles.map((r) => [nameOf(r.object), r]));
  const clusterRoles = new Map(c.clusterRoles.map((r) => [nameOf(r.object), r]));
  const consumed = new Set<LoadedObject>();
  const namespaced = new Map<string, Record<string, unknown>[]>();
  const cluster = new Map<string, Record<string, unknown>[]>();
  const bindingsOut: LoadedObject[] = [];

  const bind = (binding: LoadedObject, isCluster: boolean) => {
    const ref = (binding.object.roleRef ?? {}) as Record<string, unknown>;
    const refKind = str(ref.kind);
    const role =
      RBAC_GROUPS.has(str(ref.apiGroup)) &&
      (refKind === "ClusterRole"
        ? clusterRoles.get(str(ref.name))
        : !isCluster && refKind === "Role"
          ? roles.get(str(ref.name))
          : undefined);
    const subjects = asRecords(binding.object.subjects);
    const csvSubjects = subjects.filter((s) => s.kind === "ServiceAccount" && accounts.has(str(s.name)));
    if (!role || csvSubjects.length === 0) {
      bindingsOut.push(binding);
      return;
    }
    consumed.add(role);
    for (const subject of csvSubjects) {
      const target = isCluster ? cluster : namespaced;
      const name = str(subject.name);
      target.set(name, [...(target.get(name) ?? []), ...asRecords(role.object.rules)]);
    }
    if (csvSubjects.length < subjects.length) bindingsOut.push(binding);
  };
  for (const b of [...c.roleBindings].sort(byName)) bind(b, false);
  for (const b of [...c.clusterRoleBindings].sort(byName)) bind(b, true);

  const toList = (m: Map<string, Record<string, unknown>[]>) =>
    [...m.entries()]
      .filter(([, rules]) => rules.length > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([serviceAccountName, rules]) => ({ serviceAccountName, rules }));

  // A role stays a separate manifest when no CSV account consumed it, or when a binding that is
  // written out still refers to it (operator-sdk drops it then, leaving a dangling roleRef).
  const referenced = new Set(
    bindingsOut.map((b) => {
      const ref = (b.object.roleRef ?? {}) as Record<string, unknown>;
      return `${str(ref.kind)}/${str(ref.name)}`;
    }),
  );
  const keep = (r: LoadedObject, kind: string) =>
    !consumed.has(r) || referenced.has(`${kind}/${nameOf(r.object)}`);
  const out = [
    ...c.roles.filter((r) => keep(r, "Role")),
    ...c.clusterRoles.filter((r) => keep(r, "ClusterRole")),
    ...bindingsOut,
    ...c.serviceAccounts.filter((sa) => !accounts.has(nameOf(sa.object))),
  ];
  return {
    permissions: toList(namespaced),
    clusterPermissions: toList(cluster),
    out,
    serviceAccounts: [...accounts].sort(),
    warnings: unboundRoles(c),
  };
}
