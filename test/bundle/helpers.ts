// Shared helpers of the bundle tests: copy a fixture project into a temp dir, run the built CLI
// there, read YAML back.
import { appendFile, cp, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

export const FIXTURES = join(REPO_ROOT, "fixtures", "bundle");
export const MEMCACHED = join(FIXTURES, "memcached", "project");
export const MEMCACHED_EXPECTED = join(FIXTURES, "memcached", "expected");
export const EPOCH = "1667928397"; // 2022-11-08T17:26:37Z

/** node_modules for a scaffolded project: tsop itself plus the repository's dependencies, linked. */
export async function linkNodeModules(dir: string): Promise<void> {
  const target = join(dir, "node_modules");
  await mkdir(target);
  for (const entry of await readdir(join(REPO_ROOT, "node_modules"))) {
    if (entry === "tsop") continue;
    await symlink(join(REPO_ROOT, "node_modules", entry), join(target, entry));
  }
  await symlink(REPO_ROOT, join(target, "tsop"));
}

/** A temp copy of a fixture directory. */
export async function copyFixture(dir: string): Promise<string> {
  const target = await testdir();
  await cp(dir, target, { recursive: true });
  return target;
}

export function tsop(
  cwd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  input?: string,
) {
  return runTsop(args, { cwd, env: { CI: "1", ...env }, ...(input !== undefined ? { input } : {}) });
}

export async function readYaml(path: string): Promise<Record<string, unknown>> {
  return parse(await readFile(path, "utf8")) as Record<string, unknown>;
}

/** A minimal project: PROJECT plus a config/manifests kustomization of the given files. */
export function miniProject(
  files: Record<string, string>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PROJECT: 'domain: example.com\nlayout:\n- tsop.dev/v1\nprojectName: demo-operator\nversion: "3"\n',
    "config/manifests/kustomization.yaml": `resources:\n- bases/demo-operator.clusterserviceversion.yaml\n${Object.keys(
      files,
    )
      .map((f) => `- ${f}`)
      .join("\n")}\n`,
    ...Object.fromEntries(Object.entries(files).map(([name, text]) => [`config/manifests/${name}`, text])),
    ...extra,
  };
}

/** Flags that fill every required base CSV field. */
export const BASE_FLAGS = [
  "--description",
  "Runs demos",
  "--provider-name",
  "Example Inc",
  "--maintainers",
  "Jane Doe <jane@example.com>",
];

export function docs(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
}

export const DEPLOYMENT = (
  name: string,
  sa: string,
  env: Array<{ name: string; value: string }> = [],
  containers = ["manager"],
) =>
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      serviceAccountName: ${sa}
      containers:
${containers
  .map(
    (c) => `      - name: ${c}
        image: example.com/${c}:v1
        env: ${JSON.stringify(env)}
`,
  )
  .join("")}`;

export const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: demos.example.com
spec:
  group: example.com
  names: {kind: Demo, listKind: DemoList, plural: demos, singular: demo}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: Demo is a demo.
        type: object
`;

/** init + create api, with one namespaced @Rbac rule on the controller. */
export async function scaffoldWithNamespacedRbac(dir: string): Promise<void> {
  const init = await tsop(dir, [
    "init",
    "--domain",
    "example.com",
    "--project-name",
    "nsperm-operator",
    "--skip-install",
    "-y",
    ".",
  ]);
  expect(init.exitCode, init.stderr).toBe(0);
  const api = await tsop(dir, [
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
  ]);
  expect(api.exitCode, api.stderr).toBe(0);
  await linkNodeModules(dir);
  const controller = join(dir, "src/controllers/memcached.controller.ts");
  const source = await readFile(controller, "utf8");
  await writeFile(
    controller,
    source.replace(
      "export class MemcachedReconciler",
      '@Rbac({ groups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"], namespace: "system" })\nexport class MemcachedReconciler',
    ),
  );
  const config = join(dir, "tsop.bundle.yaml");
  await appendFile(
    config,
    "description: Runs memcached.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\n",
  );
}

/** A RoleBinding as Go projects keep it (the name kubebuilder gives the manager's binding). */
export function goBinding(opts: { name?: string; role?: string; subject?: string } = {}): string {
  return [
    "apiVersion: rbac.authorization.k8s.io/v1",
    "kind: RoleBinding",
    "metadata:",
    `  name: ${opts.name ?? "manager-rolebinding"}`,
    "  namespace: system",
    "roleRef:",
    "  apiGroup: rbac.authorization.k8s.io",
    "  kind: Role",
    `  name: ${opts.role ?? "manager-role"}`,
    "subjects:",
    "- kind: ServiceAccount",
    `  name: ${opts.subject ?? "controller-manager"}`,
    "  namespace: system",
    "",
  ].join("\n");
}
