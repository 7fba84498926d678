// The corpus on which tsop's built-in kustomize reader must equal the rig's `kustomize build`: every
// scaffold variant `tsop init` / `create api` / `create webhook` produces (after `tsop generate`),
// including a project ported from Go that keeps its own namespaced_role_binding.yaml, and one small
// tree per kustomize feature tsop claims (namePrefix/nameSuffix, namespace, commonLabels/labels,
// commonAnnotations, strategic-merge and JSON 6902 patches, images, replicas, replacements,
// sortOptions), plus trees both must refuse. A feature tsop leaves out (components) must be refused
// by name, never rendered differently. The same objects in the same order, or both refuse.
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { goBinding, linkNodeModules, scaffoldWithNamespacedRbac, tsop } from "../bundle/helpers.js";
import { testdir } from "../support/testdir.js";
import { expectAgreement, kustomizations, kustomizeBuild, tsopBuild, writeTree } from "./oracle.js";

async function expectTreeAgrees(root: string): Promise<string[]> {
  const dirs = await kustomizations(join(root, "config"));
  for (const d of dirs) await expectAgreement(root, d);
  return dirs.map((d) => relative(root, d));
}

async function cli(dir: string, args: string[]): Promise<void> {
  const r = await tsop(dir, args);
  expect(r.exitCode, `tsop ${args.join(" ")}: ${r.stderr}`).toBe(0);
}

describe("scaffold variants: tsop's kustomize equals kustomize build", { timeout: 240_000 }, () => {
  test("a project ported from Go keeps config/rbac/namespaced_role_binding.yaml: generate, bundle, and kustomize builds config/default", async () => {
    const dir = await testdir();
    await scaffoldWithNamespacedRbac(dir);
    await writeFile(join(dir, "config/rbac/namespaced_role_binding.yaml"), goBinding());
    await appendFile(join(dir, "config/rbac/kustomization.yaml"), "- namespaced_role_binding.yaml\n");
    await cli(dir, ["generate"]);
    await cli(dir, ["bundle", "--version", "0.0.1"]);
    const built = await kustomizeBuild(join(dir, "config/default"));
    expect(built.ok ? "" : built.error).toBe("");
    const bindings = (built.ok ? built.objects : []).filter(
      (o) => (o as { kind: string }).kind === "RoleBinding",
    );
    expect(bindings.map((o) => (o as { metadata: { name: string } }).metadata.name)).toContain(
      "nsperm-operator-manager-rolebinding",
    );
    expect(await expectTreeAgrees(dir)).toContain("config/default");
  });

  test("cluster-scoped and namespaced kinds with defaulting, validating and conversion webhooks", async () => {
    const dir = await testdir();
    await cli(dir, [
      "init",
      "--domain",
      "example.com",
      "--project-name",
      "hooks",
      "--skip-install",
      "-y",
      ".",
    ]);
    await cli(dir, [
      "create",
      "api",
      "--group",
      "infra",
      "--version",
      "v1",
      "--kind",
      "Cluster",
      "--namespaced=false",
    ]);
    await cli(dir, ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    await cli(dir, [
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v1beta1",
      "--kind",
      "Memcached",
      "--controller=false",
    ]);
    const hub = join(dir, "src/api/v1alpha1/memcached.ts");
    await writeFile(
      hub,
      (await readFile(hub, "utf8"))
        .replace("PrinterColumn, Status }", "PrinterColumn, Status, StorageVersion }")
        .replace("@Status()\n", "@Status()\n@StorageVersion()\n"),
    );
    await cli(dir, [
      "create",
      "webhook",
      "--group",
      "infra",
      "--version",
      "v1",
      "--kind",
      "Cluster",
      "--defaulting",
      "--programmatic-validation",
    ]);
    await cli(dir, [
      "create",
      "webhook",
      "--group",
      "cache",
      "--version",
      "v1alpha1",
      "--kind",
      "Memcached",
      "--conversion",
    ]);
    await linkNodeModules(dir);
    await cli(dir, ["generate"]);
    const dirs = await expectTreeAgrees(dir);
    expect(dirs).toEqual(expect.arrayContaining(["config/default", "config/webhook", "config/certmanager"]));
  });

  test("a fresh init (no kind yet) and a kind without a controller", async () => {
    const dir = await testdir();
    await cli(dir, [
      "init",
      "--domain",
      "example.com",
      "--project-name",
      "bare",
      "--skip-install",
      "-y",
      ".",
    ]);
    await expectTreeAgrees(dir);
    await cli(dir, [
      "create",
      "api",
      "--group",
      "ship",
      "--version",
      "v1",
      "--kind",
      "Frigate",
      "--controller=false",
    ]);
    await linkNodeModules(dir);
    await cli(dir, ["generate"]);
    await expectTreeAgrees(dir);
  });
});

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: runner
      containers:
      - name: app
        image: example.com/app:v1
        envFrom: [{configMapRef: {name: settings}}]
        ports: [{containerPort: 8080}]
      - name: sidecar
        image: busybox
      volumes:
      - {name: cfg, configMap: {name: settings}}
`;
const SA = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: runner}\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n";
const SVC = `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-binding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: ServiceAccount, name: runner, namespace: default}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: cluster-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: runner, namespace: default}]
`;
const NS = "apiVersion: v1\nkind: Namespace\nmetadata: {name: system}\n";
const BASE = {
  "deploy.yaml": DEPLOY,
  "sa.yaml": SA,
  "cm.yaml": CM,
  "svc.yaml": SVC,
  "rbac.yaml": RBAC,
  "ns.yaml": NS,
};
const ALL = "resources: [deploy.yaml, svc.yaml, rbac.yaml, cm.yaml, sa.yaml, ns.yaml]\n";

/** One directory per case: its kustomization and the shared resources. */
const FEATURES: Record<string, string> = {
  plain: ALL,
  "prefix-suffix-namespace": `${ALL}namePrefix: p-\nnameSuffix: -s\nnamespace: team\n`,
  "common-labels": `${ALL}commonLabels: {team: blue, app.kubernetes.io/part-of: demo}\n`,
  labels: `${ALL}labels:\n- pairs: {a: "1"}\n- pairs: {b: "2"}\n  includeSelectors: true\n- pairs: {c: "3"}\n  includeTemplates: true\n`,
  annotations: `${ALL}commonAnnotations: {owner: ops, note: "x: y"}\n`,
  "patch-smp-file": `${ALL}patches:\n- path: patch.yaml\n`,
  "patch-smp-inline-list-merge": `${ALL}patchesStrategicMerge:\n- |-\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    template:\n      spec:\n        containers:\n        - name: app\n          env: [{name: LEVEL, value: debug}]\n        - name: extra\n          image: extra:v2\n`,
  "patch-smp-delete": `${ALL}patches:\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n    spec:\n      template:\n        spec:\n          containers:\n          - name: sidecar\n            $patch: delete\n`,
  "patch-smp-target": `${ALL}patches:\n- target: {kind: Deployment, name: "w.*"}\n  patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: ignored}\n    spec: {replicas: 4}\n`,
  "patch-json6902": `${ALL}patches:\n- target: {group: apps, version: v1, kind: Deployment, name: web}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n    - op: add\n      path: /spec/template/spec/containers/0/args\n      value: [--verbose]\n    - op: remove\n      path: /spec/template/spec/containers/1\n    - op: add\n      path: /metadata/annotations\n      value: {a~b: c}\n`,
  "patch-json6902-labelselector": `${ALL}patches:\n- target: {labelSelector: app=web}\n  patch: |-\n    - op: add\n      path: /metadata/labels/patched\n      value: "yes"\n`,
  images: `${ALL}images:\n- {name: example.com/app, newName: registry.local/app, newTag: v9}\n- {name: busybox, digest: "sha256:${"a".repeat(64)}"}\n`,
  replicas: `${ALL}replicas:\n- {name: web, count: 5}\n`,
  replacements: `${ALL}replacements:\n- source: {kind: ConfigMap, name: settings, fieldPath: data.mode}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths: [spec.template.metadata.annotations.mode]\n    options: {create: true}\n- source: {kind: Service, name: web}\n  targets:\n  - select: {kind: Deployment}\n    fieldPaths:\n    - spec.template.spec.containers.[name=app].image\n    options: {delimiter: "/", index: 0}\n`,
  "sort-fifo": `${ALL}sortOptions: {order: fifo}\n`,
  "overlay/base": `${ALL}namespace: base-ns\n`,
  overlay: "resources: [base, extra.yaml]\nnamePrefix: o-\nnamespace: over\ncommonLabels: {layer: top}\n",
};
const FEATURE_FILES: Record<string, string> = {
  "patch-smp-file/patch.yaml":
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {annotations: {patched: 'true'}}\n",
  "overlay/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {k: v}\n",
};

/** Trees kustomize refuses; tsop must refuse them too. */
const REFUSED: Record<string, Record<string, string>> = {
  "missing-resource": {
    "kustomization.yaml": "resources: [deploy.yaml, nowhere.yaml]\n",
    "deploy.yaml": DEPLOY,
  },
  "duplicate-id": {
    "kustomization.yaml": "resources: [cm.yaml, again.yaml]\n",
    "cm.yaml": CM,
    "again.yaml": CM,
  },
  "patch-matches-nothing": {
    "kustomization.yaml":
      "resources: [cm.yaml]\npatchesStrategicMerge:\n- |-\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: absent}\n  data: {x: y}\n",
    "cm.yaml": CM,
  },
  "json6902-without-target": {
    "kustomization.yaml":
      "resources: [cm.yaml]\npatches:\n- patch: |-\n    - op: add\n      path: /data/x\n      value: y\n",
    "cm.yaml": CM,
  },
};

describe("kustomize features tsop claims: tsop's kustomize equals kustomize build", () => {
  test("each feature on one small tree", async () => {
    const root = await testdir();
    for (const [dir, k] of Object.entries(FEATURES)) {
      await writeTree(join(root, dir), { ...BASE, "kustomization.yaml": k });
    }
    await writeTree(root, FEATURE_FILES);
    const failures: string[] = [];
    for (const dir of Object.keys(FEATURES)) {
      try {
        const outcome = await expectAgreement(root, join(root, dir));
        expect(outcome.ok, `${dir}: kustomize should build it`).toBe(true);
      } catch (error) {
        failures.push(`${dir}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("trees kustomize refuses are refused by tsop too", async () => {
    const root = await testdir();
    for (const [dir, files] of Object.entries(REFUSED)) await writeTree(join(root, dir), files);
    for (const dir of Object.keys(REFUSED)) {
      const outcome = await expectAgreement(root, join(root, dir));
      expect(outcome.ok, `${dir}: kustomize should refuse it`).toBe(false);
    }
    const missing = await tsopBuild(root, join(root, "missing-resource"));
    expect(missing.ok ? "" : missing.error).toContain("lists nowhere.yaml, which does not exist");
  });

  test("components, which tsop does not implement: refused by name, where kustomize builds", async () => {
    const root = await testdir();
    await writeTree(root, {
      "app/kustomization.yaml": "resources: [cm.yaml]\ncomponents: [../extra]\n",
      "app/cm.yaml": CM,
      "extra/kustomization.yaml":
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {extra: 'on'}\n",
    });
    expect((await kustomizeBuild(join(root, "app"))).ok).toBe(true);
    const ours = await tsopBuild(root, join(root, "app"));
    expect(ours.ok ? "" : ours.error).toBe(
      'kustomize "components" is not supported by tsop\'s built-in kustomize reader',
    );
  });
});
