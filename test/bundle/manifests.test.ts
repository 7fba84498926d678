// The built-in kustomize reader: resources, patches (strategic merge and JSON 6902), namespace,
// prefixes with name references, labels, images, replacements, and the errors for what it
// does not do.
import { describe, expect, test } from "vitest";
import { formatLocation, TsopError } from "../../src/common/errors.js";
import { isRecord, loadManifests } from "../../src/manifests/index.js";
import { testdir } from "../support/testdir.js";

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: controller-manager, namespace: system}
spec:
  selector: {matchLabels: {app: op}}
  template:
    metadata: {labels: {app: op}}
    spec:
      serviceAccountName: controller-manager
      containers:
      - name: manager
        image: controller:latest
        env: [{name: A, value: "1"}]
      volumes: [{name: certs, secret: {secretName: certs}}]
`;
const rbac = `apiVersion: v1
kind: ServiceAccount
metadata: {name: controller-manager, namespace: system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: manager-role}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: manager-rolebinding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: manager-role}
subjects: [{kind: ServiceAccount, name: controller-manager, namespace: system}]
---
apiVersion: v1
kind: Service
metadata: {name: webhook-service, namespace: system}
spec: {selector: {app: op}, ports: [{port: 443}]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vwc}
webhooks:
- name: v.example.com
  clientConfig: {service: {name: webhook-service, namespace: system, path: /validate}}
`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions reach into the objects
type Loose = Record<string, any>;

function byKind(objects: Array<{ object: Record<string, unknown> }>, kind: string): Loose {
  const hit = objects.find((o) => o.object.kind === kind)?.object as Loose | undefined;
  if (!hit) throw new Error(`no ${kind}`);
  return hit;
}

describe("kustomize reader", () => {
  test("prefix, namespace, name references, labels, images and both patch kinds", async () => {
    const dir = await testdir({
      "config/base/kustomization.yaml": "resources: [manager.yaml, rbac.yaml]\n",
      "config/base/manager.yaml": deployment,
      "config/base/rbac.yaml": rbac,
      "config/default/kustomization.yaml": [
        "namespace: op-system",
        "namePrefix: op-",
        "resources: [../base]",
        "labels:",
        "- pairs: {team: core}",
        "  includeSelectors: false",
        "images:",
        "- {name: controller, newName: quay.io/me/op, newTag: v2}",
        "patches:",
        "- path: smp.yaml",
        "- target: {kind: Deployment, name: controller-manager}",
        "  patch: |-",
        "    - op: add",
        "      path: /spec/template/spec/containers/0/args",
        "      value: [--leader-elect]",
        "",
      ].join("\n"),
      "config/default/smp.yaml":
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: controller-manager, namespace: system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        env: [{name: B, value: "2"}]\n',
    });
    const objects = await loadManifests({ cwd: dir, dir: "config/default" });
    const d = byKind(objects, "Deployment");
    expect(d.metadata).toEqual({
      name: "op-controller-manager",
      namespace: "op-system",
      labels: { team: "core" },
    });
    const pod = d.spec.template.spec;
    expect(pod.serviceAccountName).toBe("op-controller-manager");
    expect(pod.containers[0]).toEqual({
      name: "manager",
      image: "quay.io/me/op:v2",
      // As kustomize merges a keyed list: the patch's items first, then the base's others.
      env: [
        { name: "B", value: "2" },
        { name: "A", value: "1" },
      ],
      args: ["--leader-elect"],
    });
    expect(pod.volumes[0].secret.secretName).toBe("certs");
    expect(d.spec.selector).toEqual({ matchLabels: { app: "op" } });
    const binding = byKind(objects, "ClusterRoleBinding");
    expect(binding.roleRef.name).toBe("op-manager-role");
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: "op-controller-manager", namespace: "op-system" },
    ]);
    expect(byKind(objects, "ClusterRole").metadata.namespace).toBeUndefined();
    expect(byKind(objects, "ValidatingWebhookConfiguration").webhooks[0].clientConfig.service).toEqual({
      name: "op-webhook-service",
      namespace: "op-system",
      path: "/validate",
    });
    expect(objects.map((o) => o.origin.file)).toContain("config/base/manager.yaml");
  });

  test("replacements copy a field into targets, with delimiter and index", async () => {
    const dir = await testdir({
      "k/kustomization.yaml": [
        "resources: [svc.yaml, cm.yaml]",
        "namespace: ns1",
        "replacements:",
        "- source: {kind: Service, name: metrics, fieldPath: metadata.name}",
        "  targets:",
        "  - select: {kind: ConfigMap}",
        "    fieldPaths: [data.host]",
        "    options: {delimiter: '.', index: 0, create: true}",
        "- source: {kind: Service, name: metrics, fieldPath: metadata.namespace}",
        "  targets:",
        "  - select: {kind: ConfigMap}",
        "    fieldPaths: [data.host, '.metadata.annotations.[example.com/ns]']",
        "    options: {delimiter: '.', index: 1, create: true}",
        "",
      ].join("\n"),
      "k/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: metrics}\n",
      "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
    });
    const cm = byKind(await loadManifests({ cwd: dir, dir: "k" }), "ConfigMap");
    expect(cm.data).toEqual({ host: "metrics.ns1" });
    // Like kustomize: index 1 of an empty field appends after the empty first part.
    expect(cm.metadata.annotations).toEqual({ "example.com/ns": ".ns1" });
  });

  test("errors name the file once: missing resource, bad patch, unsupported features, YAML syntax", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { "k/kustomization.yaml": "resources: [gone.yaml]\n" },
        /^k\/kustomization.yaml lists gone.yaml, which does not exist \(k\/gone.yaml\)$/,
      ],
      [
        { "k/kustomization.yaml": "resources: [../nowhere]\n" },
        /^k\/kustomization.yaml lists ..\/nowhere, which does not exist \(nowhere\)$/,
      ],
      [
        {
          "k/kustomization.yaml":
            "resources: [d.yaml]\npatches:\n- target: {kind: Deployment}\n  patch: '[{op: remove, path: /spec/nothing}]'\n",
          "k/d.yaml": deployment,
        },
        /^k\/kustomization.yaml \(inline patch\): patch operation 1 \(remove \/spec\/nothing\): path "\/spec\/nothing" does not exist$/,
      ],
      [
        { "k/kustomization.yaml": "components: [../c]\n" },
        /^k\/kustomization.yaml: kustomize "components" is not supported by tsop's built-in kustomize reader$/,
      ],
      [
        { "k/kustomization.yaml": "helmCharts: [{name: x}]\n" },
        /^k\/kustomization.yaml: kustomize "helmCharts" is not supported/,
      ],
      [
        { "k/kustomization.yaml": "resources: [https://github.com/x/y]\n" },
        /^k\/kustomization.yaml: remote resource "https:\/\/github.com\/x\/y" is not supported$/,
      ],
      [
        { "k/kustomization.yaml": "resources: [bad.yaml]\n", "k/bad.yaml": "a: [1,\n" },
        /^invalid YAML in k\/bad.yaml/,
      ],
      [{ "k/other.yaml": "" }, /^no kustomization.yaml in k$/],
    ];
    for (const [files, message] of cases) {
      const dir = await testdir(files);
      const error = await loadManifests({ cwd: dir, dir: "k" }).catch((e: unknown) => e);
      // What the CLI prints: the location, then the message (which must not repeat it).
      expect(error).toBeInstanceOf(TsopError);
      const { location, message: text } = error as TsopError;
      expect(location ? `${formatLocation(location)}: ${text}` : text).toMatch(message);
    }
  });

  test("kustomize configurations: name references are applied, other fields refused by name", async () => {
    const dir = await testdir({
      "k/kustomization.yaml": "namePrefix: p-\nresources: [certs]\n",
      "k/certs/kustomization.yaml": "resources: [certs.yaml]\nconfigurations: [kustomizeconfig.yaml]\n",
      "k/certs/certs.yaml": [
        "apiVersion: cert-manager.io/v1",
        "kind: Issuer",
        "metadata: {name: selfsigned}",
        "---",
        "apiVersion: cert-manager.io/v1",
        "kind: Certificate",
        "metadata: {name: serving}",
        "spec: {issuerRef: {kind: Issuer, name: selfsigned}}",
        "",
      ].join("\n"),
      "k/certs/kustomizeconfig.yaml":
        "nameReference:\n- kind: Issuer\n  group: cert-manager.io\n  fieldSpecs:\n  - {kind: Certificate, group: cert-manager.io, path: spec/issuerRef/name}\n",
      "bad/kustomization.yaml": "resources: []\nconfigurations: [kustomizeconfig.yaml]\n",
      "bad/kustomizeconfig.yaml": "commonLabels:\n- {path: spec/extra, create: true}\n",
    });
    const loaded = await loadManifests({ cwd: dir, dir: "k" });
    expect(loaded.map((l) => l.object.spec)).toContainEqual({
      issuerRef: { kind: "Issuer", name: "p-selfsigned" },
    });
    const error = await loadManifests({ cwd: dir, dir: "bad" }).catch((e: unknown) => e);
    expect((error as TsopError).message).toBe(
      'kustomize configurations field "commonLabels" is not supported by tsop\'s built-in kustomize reader',
    );
    expect((error as TsopError).location).toEqual({ file: "bad/kustomizeconfig.yaml" });
  });

  test("-f reads a multi-document stream from a file or stdin", async () => {
    const dir = await testdir({ "all.yaml": rbac });
    const fromFile = await loadManifests({ cwd: dir, file: "all.yaml" });
    expect(fromFile.map((o) => o.object.kind)).toEqual([
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Service",
      "ValidatingWebhookConfiguration",
    ]);
    expect(fromFile[1]!.origin).toEqual({ file: "all.yaml", doc: 1 });
    const fromStdin = await loadManifests({ cwd: dir, file: "-", stdin: `---\n${deployment}---\n` });
    expect(fromStdin).toHaveLength(1);
    expect(isRecord(fromStdin[0]!.object.spec)).toBe(true);
    const notMapping = (await loadManifests({ cwd: dir, file: "-", stdin: "- just\n- a list\n" }).catch(
      (e: unknown) => e,
    )) as TsopError;
    expect(`${formatLocation(notMapping.location!)}: ${notMapping.message}`).toBe(
      "<stdin>: document 1 is not a mapping (a Kubernetes object)",
    );
  });
});
