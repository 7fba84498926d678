// CSV composition from a manifest stream (-f): the RBAC split into permissions and
// clusterPermissions by service account, webhook definitions, relatedImages, WATCH_NAMESPACE.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, CRD, DEPLOYMENT, docs, miniProject, readYaml, tsop } from "./helpers.js";

const CSV_FILE = "bundle/manifests/demo-operator.clusterserviceversion.yaml";

const role = (
  kind: "Role" | "ClusterRole",
  name: string,
  resource: string,
) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}}
rules:
- apiGroups: [""]
  resources: [${resource}]
  verbs: [get]
`;
const binding = (
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  roleKind: string,
  roleName: string,
  subjects: string[],
) => `apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ${roleKind}, name: ${roleName}}
subjects:
${subjects.map((s) => `- {kind: ServiceAccount, name: ${s}, namespace: system}`).join("\n")}
`;
const sa = (name: string) =>
  `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ${name}, namespace: system}\n`;

async function bundleStream(objects: string[], extraArgs: string[] = []) {
  const dir = await testdir(miniProject({}));
  const stream = objects.join("---\n");
  const run = await tsop(
    dir,
    ["bundle", "--skip-generate", "--version", "0.1.0", ...BASE_FLAGS, "-f", "-", ...extraArgs],
    {},
    stream,
  );
  return { dir, run };
}

describe("RBAC split", () => {
  test("permissions do not depend on the order of the input (kustomize sorts, -f streams need not)", async () => {
    const objects = [
      CRD,
      DEPLOYMENT("demo-operator-controller-manager", "manager-sa"),
      sa("manager-sa"),
      role("Role", "b-role", "secrets"),
      binding("RoleBinding", "b-binding", "Role", "b-role", ["manager-sa"]),
      role("Role", "a-role", "configmaps"),
      binding("RoleBinding", "a-binding", "Role", "a-role", ["manager-sa"]),
      role("ClusterRole", "z-role", "nodes"),
      binding("ClusterRoleBinding", "z-binding", "ClusterRole", "z-role", ["manager-sa"]),
      role("ClusterRole", "y-role", "pods"),
      binding("ClusterRoleBinding", "y-binding", "ClusterRole", "y-role", ["manager-sa"]),
    ];
    const specs = [];
    for (const order of [objects, [...objects].reverse()]) {
      const { dir, run } = await bundleStream(order);
      expect(run.exitCode, run.stderr).toBe(0);
      const csv = await readYaml(join(dir, CSV_FILE));
      specs.push((csv.spec as { install: { spec: Record<string, unknown> } }).install.spec);
    }
    const rules = (...resources: string[]) =>
      resources.map((r) => ({ apiGroups: [""], resources: [r], verbs: ["get"] }));
    expect(specs[0]!.permissions).toEqual([
      { serviceAccountName: "manager-sa", rules: rules("configmaps", "secrets") },
    ]);
    expect(specs[0]!.clusterPermissions).toEqual([
      { serviceAccountName: "manager-sa", rules: rules("pods", "nodes") },
    ]);
    expect(specs[1]).toEqual(specs[0]);
  });

  test("namespaced and cluster rules by service account, extra service accounts, and what stays separate", async () => {
    const { dir, run } = await bundleStream(
      [
        CRD,
        DEPLOYMENT("demo-operator-controller-manager", "manager-sa"),
        sa("manager-sa"),
        sa("helper-sa"),
        sa("unrelated-sa"),
        role("Role", "leader-election", "configmaps"),
        binding("RoleBinding", "leader-election-binding", "Role", "leader-election", ["manager-sa"]),
        role("ClusterRole", "manager-role", "pods"),
        binding("ClusterRoleBinding", "manager-binding", "ClusterRole", "manager-role", ["manager-sa"]),
        role("ClusterRole", "namespaced-via-cluster-role", "secrets"),
        binding("RoleBinding", "ns-binding", "ClusterRole", "namespaced-via-cluster-role", ["helper-sa"]),
        role("ClusterRole", "shared-role", "nodes"),
        binding("ClusterRoleBinding", "shared-binding", "ClusterRole", "shared-role", [
          "manager-sa",
          "unrelated-sa",
        ]),
        role("ClusterRole", "viewer-role", "services"),
      ],
      ["--extra-service-accounts", "helper-sa"],
    );
    expect(run.exitCode).toBe(0);
    const csv = await readYaml(join(dir, CSV_FILE));
    const install = (csv.spec as { install: { spec: Record<string, unknown> } }).install.spec;
    const rules = (resource: string) => [{ apiGroups: [""], resources: [resource], verbs: ["get"] }];
    expect(install.permissions).toEqual([
      { serviceAccountName: "helper-sa", rules: rules("secrets") },
      { serviceAccountName: "manager-sa", rules: rules("configmaps") },
    ]);
    expect(install.clusterPermissions).toEqual([
      { serviceAccountName: "manager-sa", rules: [...rules("pods"), ...rules("nodes")] },
    ]);
    const files = (await readdir(join(dir, "bundle/manifests"))).sort();
    expect(files).toEqual([
      "demo-operator.clusterserviceversion.yaml",
      "example.com_demos.yaml",
      "shared-binding_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml",
      // Kept because the written-out shared-binding still refers to it.
      "shared-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
      "unrelated-sa_v1_serviceaccount.yaml",
      "viewer-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
    ]);
    // A binding that also names another account is kept whole, and carries no namespace.
    const kept = docs(
      await readFile(
        join(dir, "bundle/manifests/shared-binding_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml"),
        "utf8",
      ),
    )[0]!;
    expect((kept.subjects as unknown[]).length).toBe(2);
    const unrelated = docs(
      await readFile(join(dir, "bundle/manifests/unrelated-sa_v1_serviceaccount.yaml"), "utf8"),
    )[0]!;
    expect(unrelated.metadata).toEqual({ name: "unrelated-sa" });
  });
});

describe("webhooks", () => {
  test("validating, mutating and conversion webhooks become webhookdefinitions wired to the deployment", async () => {
    const service = `apiVersion: v1
kind: Service
metadata: {name: demo-webhook-service, namespace: system}
spec:
  selector: {app: demo-operator-controller-manager}
  ports:
  - {port: 443, targetPort: 9443}
`;
    const hooks = (kind: string, name: string, path: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}}
webhooks:
- name: ${path.slice(1, 2)}demo.example.com
  admissionReviewVersions: [v1]
  clientConfig:
    service: {name: demo-webhook-service, namespace: system, path: ${path}}
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 5
  rules:
  - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [demos]}
`;
    const conversionCrd = (plural: string, kind: string) =>
      CRD.replaceAll("demos", plural)
        .replace("kind: Demo,", `kind: ${kind},`)
        .replace("singular: demo", `singular: ${kind.toLowerCase()}`)
        .replace("listKind: DemoList", `listKind: ${kind}List`)
        .replace(
          "  scope: Namespaced\n",
          "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig:\n        service: {name: demo-webhook-service, namespace: system, path: /convert}\n",
        );
    const { dir, run } = await bundleStream([
      conversionCrd("widgets", "Widget"),
      conversionCrd("gadgets", "Gadget"),
      DEPLOYMENT("demo-operator-controller-manager", "manager-sa"),
      service,
      hooks("ValidatingWebhookConfiguration", "v-config", "/validate-demo"),
      hooks("MutatingWebhookConfiguration", "m-config", "/mutate-demo"),
    ]);
    expect(run.exitCode).toBe(0);
    const csv = await readYaml(join(dir, CSV_FILE));
    const wired = {
      containerPort: 443,
      targetPort: 9443,
      deploymentName: "demo-operator-controller-manager",
    };
    const admission = {
      admissionReviewVersions: ["v1"],
      failurePolicy: "Fail",
      sideEffects: "None",
      timeoutSeconds: 5,
      rules: [
        { apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["demos"] },
      ],
      ...wired,
    };
    expect((csv.spec as Record<string, unknown>).webhookdefinitions).toEqual([
      {
        type: "ConversionWebhook",
        generateName: "cgadgetswidgets.kb.io",
        conversionCRDs: ["gadgets.example.com", "widgets.example.com"],
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        webhookPath: "/convert",
        ...wired,
      },
      {
        type: "MutatingAdmissionWebhook",
        generateName: "mdemo.example.com",
        webhookPath: "/mutate-demo",
        ...admission,
      },
      {
        type: "ValidatingAdmissionWebhook",
        generateName: "vdemo.example.com",
        webhookPath: "/validate-demo",
        ...admission,
      },
    ]);
    // The webhook configurations themselves are consumed, not written.
    expect(
      (await readdir(join(dir, "bundle/manifests"))).filter((f) => f.includes("webhookconfiguration")),
    ).toEqual([]);

    // OLM v1 (v1.11, with its certificate provider) installs these webhooks: within its limits.
    const v1 = await tsop(dir, ["bundle", "validate", "bundle", "--select-optional", "olm-v1", "-o", "json"]);
    const v1Ids = (JSON.parse(v1.stdout) as { findings: Array<{ id: string }> }).findings.map((f) => f.id);
    expect(v1Ids.filter((id) => id.startsWith("V1-"))).toEqual([]);
    expect(v1.exitCode).toBe(0);

    // Conversion webhooks need AllNamespaces only: the generated CSV is refused and nothing written.
    const dir2 = await testdir(miniProject({}));
    const refused = await tsop(
      dir2,
      [
        "bundle",
        "--skip-generate",
        ...BASE_FLAGS,
        "--install-modes",
        "OwnNamespace,AllNamespaces",
        "-f",
        "-",
      ],
      {},
      [
        conversionCrd("widgets", "Widget"),
        DEPLOYMENT("demo-operator-controller-manager", "sa"),
        service,
      ].join("---\n"),
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("invalid generated ClusterServiceVersion:");
    expect(refused.stderr).toContain(
      "CSV-09 spec.webhookdefinitions[0]: a conversion webhook needs the operator in all namespaces: support AllNamespaces only",
    );
    await expect(readdir(join(dir2, "bundle"))).rejects.toThrow();
    // Not even the base CSV: a failed first run leaves no partial output.
    await expect(readdir(join(dir2, "config/manifests/bases"))).rejects.toThrow();
  });
});

describe("relatedImages and WATCH_NAMESPACE", () => {
  test("RELATED_IMAGE_ env vars are named, deduplicated by image, prefixed on name clashes; WATCH_NAMESPACE follows OLM", async () => {
    const env = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value }));
    const { dir, run } = await bundleStream([
      DEPLOYMENT(
        "demo-operator-controller-manager",
        "sa",
        env([
          ["RELATED_IMAGE_MY_DB", "example.com/db:1"],
          ["RELATED_IMAGE_CACHE", "example.com/cache:1"],
          ["RELATED_IMAGE_CACHE_COPY", "example.com/cache:1"],
          ["WATCH_NAMESPACE", "ignored"],
          ["OTHER", "x"],
        ]),
      ),
      DEPLOYMENT("demo-operator-worker", "sa", env([["RELATED_IMAGE_MY_DB", "example.com/db:2"]]), [
        "worker",
        "sidecar",
      ]),
    ]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      'image example.com/cache:1 is referenced as "cache" and "cache-copy"; listed once as "cache"',
    );
    const csv = await readYaml(join(dir, CSV_FILE));
    const spec = csv.spec as {
      relatedImages: unknown;
      install: {
        spec: {
          deployments: Array<{ spec: { template: { spec: { containers: Array<{ env: unknown[] }> } } } }>;
        };
      };
    };
    // Every image of the CSV, sorted by name (the same list --use-image-digests pins).
    expect(spec.relatedImages).toEqual([
      { name: "cache", image: "example.com/cache:1" },
      { name: "demo-operator-controller-manager-my-db", image: "example.com/db:1" },
      { name: "demo-operator-worker-worker-my-db", image: "example.com/db:2" },
      { name: "manager", image: "example.com/manager:v1" },
      { name: "sidecar", image: "example.com/sidecar:v1" },
      { name: "worker", image: "example.com/worker:v1" },
    ]);
    expect(spec.install.spec.deployments[0]!.spec.template.spec.containers[0]!.env).toContainEqual({
      name: "WATCH_NAMESPACE",
      valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } },
    });
  });

  test("a RELATED_IMAGE_ from valueFrom is an error naming the deployment and variable", async () => {
    const deployment = DEPLOYMENT("demo-operator-controller-manager", "sa").replace(
      "env: []",
      'env: [{"name": "RELATED_IMAGE_DB", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}]',
    );
    const { dir, run } = await bundleStream([deployment]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      'deployment demo-operator-controller-manager, container manager, env RELATED_IMAGE_DB: "valueFrom" cannot be pinned or listed in relatedImages; give the image as "value"',
    );
    await expect(readdir(join(dir, "bundle"))).rejects.toThrow();
  });
});
