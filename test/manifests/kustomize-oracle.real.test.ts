// kustomize as the oracle of tsop's built-in reader: for every config/ tree in the fixtures, every
// kustomization of a scaffolded project (after `tsop generate`), and a corpus of generator and
// load-restrictor cases, `kustomize build <dir>` and tsop's reader give the same objects in the same
// order, or both refuse the tree (oracle.ts). kustomize-corpus.real.test.ts has the other variants.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { scaffoldWithNamespacedRbac, tsop } from "../bundle/helpers.js";
import { REPO_ROOT } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { expectAgreement, kustomizations, kustomizeBuild, tsopBuild } from "./oracle.js";

describe("tsop's kustomize reader equals kustomize build", () => {
  test("every config/ tree in the fixtures", async () => {
    const dirs = await kustomizations(join(REPO_ROOT, "fixtures"));
    expect(dirs.length).toBeGreaterThan(10);
    for (const dir of dirs) await expectAgreement(REPO_ROOT, dir);
  });

  test("every kustomization of a scaffolded project, after tsop generate", async () => {
    const dir = await testdir();
    await scaffoldWithNamespacedRbac(dir);
    const generate = await tsop(dir, ["generate"]);
    expect(generate.exitCode, generate.stderr).toBe(0);
    const bundle = await tsop(dir, ["bundle", "--version", "0.0.1"]);
    expect(bundle.exitCode, bundle.stderr).toBe(0);
    const dirs = await kustomizations(join(dir, "config"));
    expect(dirs.map((d) => relative(dir, d))).toContain("config/manifests");
    for (const d of dirs) await expectAgreement(dir, d);
  });

  test("generators, behaviors, options and the load restrictor", async () => {
    const parent = await testdir();
    const cases: Record<string, Record<string, string | Buffer>> = {
      literalsFilesEnvs: {
        "kustomization.yaml": [
          "namePrefix: p-",
          "namespace: ns",
          "resources: [deploy.yaml]",
          "configMapGenerator:",
          "- name: settings",
          "  envs: [app.env]",
          "  files: [motd.txt, greeting=motd.txt, blob.bin]",
          "  literals: [MODE=fast, 'QUOTED=\"x y\"', \"HTML=<a href='x'>&amp;</a>\"]",
          "- name: frozen",
          "  literals: [A=1]",
          "  options: {immutable: true, labels: {tier: x}, annotations: {note: 'y'}}",
          "- name: plain",
          "  literals: [A=1]",
          "  options: {disableNameSuffixHash: true}",
          "secretGenerator:",
          "- name: creds",
          "  literals: [user=admin, password=s3cr3t]",
          "  files: [blob.bin]",
          "- name: tls",
          "  type: kubernetes.io/tls",
          "  files: [tls.crt=motd.txt, tls.key=motd.txt]",
          "generatorOptions: {labels: {generated: 'yes'}, annotations: {by: tsop}}",
          "",
        ].join("\n"),
        "app.env": "# comment\n\nLEVEL=debug\nEMPTY=\n  SPACED=a b \nLAST=x=y\n",
        "motd.txt": "hello\nworld\n",
        "blob.bin": Buffer.from([0, 159, 146, 150, 255]),
        "deploy.yaml": [
          "apiVersion: apps/v1",
          "kind: Deployment",
          "metadata: {name: app}",
          "spec:",
          "  selector: {matchLabels: {app: a}}",
          "  template:",
          "    metadata: {labels: {app: a}}",
          "    spec:",
          "      containers:",
          "      - name: c",
          "        image: busybox",
          "        envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: creds}}]",
          "        env: [{name: A, valueFrom: {configMapKeyRef: {name: frozen, key: A}}}]",
          "      volumes:",
          "      - {name: tls, secret: {secretName: tls}}",
          "      - name: both",
          "        projected: {sources: [{configMap: {name: plain}}, {secret: {name: creds}}]}",
          "",
        ].join("\n"),
      },
      "overlay/base": {
        "kustomization.yaml": "configMapGenerator:\n- name: cfg\n  literals: [A=1, B=2]\n",
      },
      "overlay/merge": {
        "kustomization.yaml":
          "namePrefix: o-\nresources: [../base]\nconfigMapGenerator:\n- name: cfg\n  behavior: merge\n  literals: [B=3, C=4]\n",
      },
      "overlay/replace": {
        "kustomization.yaml":
          "resources: [../base]\nconfigMapGenerator:\n- name: cfg\n  behavior: replace\n  literals: [Z=9]\n  options: {disableNameSuffixHash: true}\n",
      },
      "restrictor/inside": {
        "kustomization.yaml": "resources: [../outside.yaml]\n",
      },
      "restrictor/patch": {
        "kustomization.yaml": "resources: [cm.yaml]\npatches: [{path: ../outside.yaml}]\n",
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: evil}\n",
      },
      "restrictor/generator": {
        "kustomization.yaml": "configMapGenerator:\n- name: leak\n  files: [../outside.yaml]\n",
      },
      restrictor: {
        "outside.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: evil}\ndata: {x: 'y'}\n",
      },
    };
    for (const [dir, files] of Object.entries(cases)) {
      for (const [name, content] of Object.entries(files)) {
        await mkdir(join(parent, dir), { recursive: true });
        await writeFile(join(parent, dir, name), content);
      }
    }
    for (const dir of Object.keys(cases)) {
      if (!(await stat(join(parent, dir, "kustomization.yaml")).catch(() => undefined))) continue;
      await expectAgreement(parent, join(parent, dir));
    }
    // The cases above must exercise both outcomes.
    expect((await kustomizeBuild(join(parent, "restrictor/inside"))).ok).toBe(false);
    expect((await kustomizeBuild(join(parent, "literalsFilesEnvs"))).ok).toBe(true);
  });

  test("two objects with one id: both refuse (a RoleBinding a ported project keeps and one tsop writes)", async () => {
    const parent = await testdir();
    const binding = (role: string) =>
      [
        "apiVersion: rbac.authorization.k8s.io/v1",
        "kind: RoleBinding",
        "metadata: {name: manager-rolebinding, namespace: system}",
        `roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${role}}`,
        "subjects: [{kind: ServiceAccount, name: controller-manager, namespace: system}]",
        "",
      ].join("\n");
    const cases: Record<string, Record<string, string>> = {
      "same-dir": {
        "kustomization.yaml": "resources: [namespaced_role_binding.yaml, role_binding_generated.yaml]\n",
        "namespaced_role_binding.yaml": binding("manager-role"),
        "role_binding_generated.yaml": binding("manager-role"),
      },
      "across-dirs/rbac": {
        "kustomization.yaml": "resources: [namespaced_role_binding.yaml]\n",
        "namespaced_role_binding.yaml": binding("manager-role"),
      },
      "across-dirs": {
        "kustomization.yaml": "resources: [rbac, extra.yaml]\n",
        "extra.yaml": binding("other-role"),
      },
      "other-namespace": {
        "kustomization.yaml": "resources: [a.yaml, b.yaml]\n",
        "a.yaml": binding("manager-role"),
        "b.yaml": binding("manager-role").replaceAll("namespace: system}", "namespace: elsewhere}"),
      },
    };
    for (const [dir, files] of Object.entries(cases)) {
      for (const [name, content] of Object.entries(files)) {
        await mkdir(join(parent, dir), { recursive: true });
        await writeFile(join(parent, dir, name), content);
      }
    }
    for (const dir of ["same-dir", "across-dirs", "other-namespace"])
      await expectAgreement(parent, join(parent, dir));
    const refused = await tsopBuild(parent, join(parent, "same-dir"));
    expect(refused.ok ? "" : refused.error).toContain(
      "may not add resource with an already registered id: RoleBinding.v1.rbac.authorization.k8s.io/manager-rolebinding.system (in ",
    );
    expect((await kustomizeBuild(join(parent, "same-dir"))).ok).toBe(false);
    expect((await kustomizeBuild(join(parent, "other-namespace"))).ok).toBe(true);
  });
});
