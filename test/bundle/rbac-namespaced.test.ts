// Namespaced permissions of a scaffolded operator: `@Rbac({ namespace })` becomes a Role *and* its
// RoleBinding (tsop generate), so the Role reaches the CSV's `permissions`; a Role in config/ that
// nothing binds is reported by `tsop bundle`.
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { readYaml, scaffoldWithNamespacedRbac, tsop } from "./helpers.js";

const UNBOUND_ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: forgotten-role, namespace: system}
rules:
- apiGroups: [""]
  resources: [secrets]
  verbs: [get]
`;

test(
  "a namespaced @Rbac rule is bound and lands in CSV permissions; an unbound Role is reported",
  { timeout: 120_000 },
  async () => {
    const dir = await testdir();
    await scaffoldWithNamespacedRbac(dir);
    await writeFile(join(dir, "config/rbac/forgotten_role.yaml"), UNBOUND_ROLE);
    await appendFile(join(dir, "config/rbac/kustomization.yaml"), "- forgotten_role.yaml\n");

    const run = await tsop(dir, ["bundle"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const role = parseAllDocuments(await readFile(join(dir, "config/rbac/role.yaml"), "utf8")).map((d) =>
      d.toJS(),
    );
    expect(role.find((o) => o.kind === "RoleBinding")).toEqual({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "manager-rolebinding", namespace: "system" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "manager-role" },
      subjects: [{ kind: "ServiceAccount", name: "controller-manager", namespace: "system" }],
    });
    const csv = await readYaml(join(dir, "bundle/manifests/nsperm-operator.clusterserviceversion.yaml"));
    const install = (
      csv.spec as {
        install: { spec: Record<string, Array<{ serviceAccountName: string; rules: unknown[] }>> };
      }
    ).install.spec;
    const manager = install.permissions!.find(
      (p) => p.serviceAccountName === "nsperm-operator-controller-manager",
    );
    expect(manager?.rules).toContainEqual({
      apiGroups: [""],
      resources: ["configmaps"],
      verbs: ["get", "list", "watch"],
    });
    expect(JSON.stringify(install.permissions)).not.toContain("secrets");
    expect(
      install.clusterPermissions!.find((p) => p.serviceAccountName === "nsperm-operator-controller-manager")
        ?.rules,
    ).toContainEqual(expect.objectContaining({ resources: ["memcacheds"] }));
    expect(run.stderr).toContain(
      "Role nsperm-operator-forgotten-role (config/rbac/forgotten_role.yaml) is bound by no RoleBinding, so its rules are granted to no one",
    );
  },
);
