// A project ported from Go keeps its own config/rbac/namespaced_role_binding.yaml. `tsop generate`
// must not write a second RoleBinding with the same id into role.yaml (kustomize refuses the tree),
// must not drop a binding the manager needs when the user's file binds someone else, and must stay
// deterministic (`generate --check`, the generate cache) as the user edits that file.
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, test } from "vitest";
import { goBinding, readYaml, scaffoldWithNamespacedRbac, tsop } from "../bundle/helpers.js";
import { testdir } from "../support/testdir.js";

/** A scaffolded project with a namespaced @Rbac rule and the user's binding file listed in config/rbac. */
async function portedProject(binding: string): Promise<string> {
  const dir = await testdir();
  await scaffoldWithNamespacedRbac(dir);
  await writeFile(join(dir, "config/rbac/namespaced_role_binding.yaml"), binding);
  await appendFile(join(dir, "config/rbac/kustomization.yaml"), "- namespaced_role_binding.yaml\n");
  return dir;
}

async function roleYamlKinds(dir: string): Promise<string[]> {
  const text = await readFile(join(dir, "config/rbac/role.yaml"), "utf8");
  return parseAllDocuments(text).map((d) => `${d.toJS().kind}/${d.toJS().metadata.name}`);
}

type Permissions = Array<{ serviceAccountName: string; rules: unknown[] }>;

async function csvPermissions(dir: string): Promise<Permissions> {
  const csv = await readYaml(join(dir, "bundle/manifests/nsperm-operator.clusterserviceversion.yaml"));
  return (csv.spec as { install: { spec: { permissions: Permissions } } }).install.spec.permissions;
}

const CONFIGMAPS = { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] };

describe("tsop generate and the config tree's own RoleBindings", { timeout: 180_000 }, () => {
  test("a Go-style namespaced_role_binding.yaml: no second binding, one line naming it, the bundle still grants", async () => {
    const dir = await portedProject(goBinding());

    const generate = await tsop(dir, ["generate"]);
    expect(generate.exitCode, generate.stderr).toBe(0);
    expect(generate.stdout + generate.stderr).toContain(
      "config/rbac/namespaced_role_binding.yaml binds Role manager-role (namespace system) to the manager's ServiceAccount: config/rbac/role.yaml writes no RoleBinding of its own for it",
    );
    expect(await roleYamlKinds(dir)).toEqual(["ClusterRole/manager-role", "Role/manager-role"]);
    const check = await tsop(dir, ["generate", "--check"]);
    expect(check.exitCode, check.stdout + check.stderr).toBe(0);

    // The user drops their file from the kustomization: the generate cache notices (the files
    // read are its inputs) and the Role gets its binding back; and the other way round.
    const kustomization = join(dir, "config/rbac/kustomization.yaml");
    const listed = await readFile(kustomization, "utf8");
    await writeFile(kustomization, listed.replace("- namespaced_role_binding.yaml\n", ""));
    const dropped = await tsop(dir, ["generate", "--verbose"]);
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    expect(dropped.stderr).toContain(
      `generate cache: changed since the last analysis: read:${kustomization}`,
    );
    expect(dropped.stdout + dropped.stderr).not.toContain("namespaced_role_binding.yaml binds");
    expect(await roleYamlKinds(dir)).toEqual([
      "ClusterRole/manager-role",
      "Role/manager-role",
      "RoleBinding/manager-rolebinding",
    ]);
    const check2 = await tsop(dir, ["generate", "--check"]);
    expect(check2.exitCode, check2.stdout + check2.stderr).toBe(0);
    await writeFile(kustomization, listed);
    const back = await tsop(dir, ["generate", "--verbose"]);
    expect(back.stderr).toContain(`generate cache: changed since the last analysis: read:${kustomization}`);
    expect(await roleYamlKinds(dir)).toEqual(["ClusterRole/manager-role", "Role/manager-role"]);

    // The bundle takes the manager's namespaced permissions from the user's binding.
    const bundle = await tsop(dir, ["bundle"]);
    expect(bundle.exitCode, bundle.stderr).toBe(0);
    const manager = (await csvPermissions(dir)).find(
      (p) => p.serviceAccountName === "nsperm-operator-controller-manager",
    );
    expect(manager?.rules).toContainEqual(CONFIGMAPS);
  });

  test("the user's binding takes the generated binding's name for another subject: refused, naming both files", async () => {
    const dir = await portedProject(goBinding({ subject: "auditor" }));
    const before = await readFile(join(dir, "config/rbac/role.yaml"), "utf8");

    const generate = await tsop(dir, ["generate"]);
    expect(generate.exitCode).not.toBe(0);
    expect(generate.stderr).toContain(
      "config/rbac/namespaced_role_binding.yaml: error TSOP1064: config/rbac/namespaced_role_binding.yaml defines RoleBinding manager-rolebinding in namespace system, the binding config/rbac/role.yaml needs for Role manager-role, but it does not bind Role manager-role to ServiceAccount controller-manager (namespace system)",
    );
    expect(generate.stderr).toContain(
      "hint: rename the RoleBinding in config/rbac/namespaced_role_binding.yaml",
    );
    expect(await readFile(join(dir, "config/rbac/role.yaml"), "utf8")).toBe(before);
  });

  test("a user binding of the Role to someone else under its own name: both bindings stay", async () => {
    const dir = await portedProject(goBinding({ name: "auditor-rolebinding", subject: "auditor" }));

    const bundle = await tsop(dir, ["bundle"]);
    expect(bundle.exitCode, bundle.stderr).toBe(0);
    expect(await roleYamlKinds(dir)).toContain("RoleBinding/manager-rolebinding");
    const manager = (await csvPermissions(dir)).find(
      (p) => p.serviceAccountName === "nsperm-operator-controller-manager",
    );
    expect(manager?.rules).toContainEqual(CONFIGMAPS);
  });

  test("a kustomization entry outside the project is not read: the generated binding stays", async () => {
    const dir = await testdir();
    await mkdir(join(dir, "project"));
    const project = join(dir, "project");
    await scaffoldWithNamespacedRbac(project);
    // A binding that would make generate leave its own out, one directory above the project.
    await writeFile(join(dir, "outside_binding.yaml"), goBinding());
    await appendFile(join(project, "config/rbac/kustomization.yaml"), "- ../../../outside_binding.yaml\n");

    const generate = await tsop(project, ["generate"]);
    expect(generate.exitCode, generate.stderr).toBe(0);
    expect(generate.stdout + generate.stderr).not.toContain("outside_binding.yaml");
    expect(await roleYamlKinds(project)).toContain("RoleBinding/manager-rolebinding");
  });
});
