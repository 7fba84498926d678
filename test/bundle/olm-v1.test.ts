// The olm-v1 suite through the CLI, beside the corpus's one case per id (corpus.ts): what OLM v1
// (operator-controller v1.11.0) accepts is not flagged — webhooks within its limits, extra install
// modes, label dependencies (a warning only) — and every source of a dependency and every webhook
// limit is caught with the file and field to change.
import { describe, expect, test } from "vitest";
import { type Bundle, CSV, validBundle } from "./corpus.js";
import { tsop } from "./helpers.js";

interface Report {
  passed: boolean;
  findings: Array<{ id: string; level: string; message: string; file?: string; path?: string }>;
}

async function validate(b: Bundle, args: string[] = []) {
  const run = await tsop(b.dir, ["bundle", "validate", ".", "--select-optional", "olm-v1", ...args]);
  return run;
}

async function v1Findings(b: Bundle) {
  const run = await validate(b, ["-o", "json"]);
  const report = JSON.parse(run.stdout) as Report;
  return { exitCode: run.exitCode, findings: report.findings.filter((f) => f.id.startsWith("V1-")) };
}

describe("bundle validate --select-optional olm-v1", () => {
  test("the memcached bundle, mutating webhook included, is fit for OLM v1", async () => {
    const b = await validBundle();
    const { exitCode, findings } = await v1Findings(b);
    expect(findings).toEqual([]);
    expect(exitCode).toBe(0);
  });

  test("what OLM v1 accepts is not an error: more install modes, label dependencies, webhooks on other groups", async () => {
    const b = await validBundle();
    await b.csv((c) => {
      for (const m of c.spec.installModes) m.supported = m.type !== "MultiNamespace";
      c.spec.webhookdefinitions[0].rules.push({
        apiGroups: ["admissionregistration.k8s.io"],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["validatingadmissionpolicies"],
      });
    });
    await b.write("metadata/dependencies.yaml", "dependencies:\n- type: olm.label\n  value: {label: x}\n");
    const { exitCode, findings } = await v1Findings(b);
    expect(findings.map((f) => [f.id, f.level])).toEqual([["V1-05", "warning"]]);
    expect(exitCode).toBe(0);
  });

  test("V1-03: every way a bundle declares a dependency, each where it is declared", async () => {
    const b = await validBundle();
    await b.csv((c) => {
      c.spec.customresourcedefinitions.required = [
        { name: "etcdclusters.etcd.database.coreos.com", version: "v1beta2", kind: "EtcdCluster" },
      ];
      c.spec.apiservicedefinitions = {
        required: [{ group: "metrics.k8s.io", version: "v1beta1", kind: "PodMetrics" }],
      };
    });
    await b.write(
      "metadata/dependencies.yaml",
      [
        "dependencies:",
        "- type: olm.gvk",
        "  value: {group: etcd.database.coreos.com, kind: EtcdCluster, version: v1beta2}",
        "- type: olm.constraint",
        "  value: {failureMessage: needs etcd, package: {packageName: etcd, versionRange: '>=0.9.0'}}",
        "",
      ].join("\n"),
    );
    await b.write(
      "metadata/properties.yaml",
      "properties:\n- type: olm.package.required\n  value: {packageName: etcd, versionRange: '>=0.9.0'}\n",
    );
    const { exitCode, findings } = await v1Findings(b);
    expect(findings).toEqual([
      {
        id: "V1-03",
        level: "error",
        message:
          "OLM v1 refuses bundles with dependencies: this required API becomes the catalog property olm.gvk.required; remove it and have users install the operator that provides metrics.k8s.io/v1beta1 PodMetrics first",
        file: CSV,
        path: "spec.apiservicedefinitions.required[0]",
      },
      {
        id: "V1-03",
        level: "error",
        message:
          "OLM v1 refuses bundles with dependencies: this required API becomes the catalog property olm.gvk.required; remove it and have users install the operator that provides etcd.database.coreos.com/v1beta2 EtcdCluster first",
        file: CSV,
        path: "spec.customresourcedefinitions.required[0]",
      },
      {
        id: "V1-03",
        level: "error",
        message:
          "OLM v1 refuses bundles with dependencies: this olm.gvk dependency becomes the catalog property olm.gvk.required; remove it and have users install the operator that provides etcd.database.coreos.com/v1beta2 EtcdCluster first",
        file: "metadata/dependencies.yaml",
        path: "dependencies[0]",
      },
      {
        id: "V1-03",
        level: "error",
        message:
          "OLM v1 refuses bundles with dependencies: this olm.constraint dependency becomes the catalog property olm.constraint; remove it and document the prerequisite",
        file: "metadata/dependencies.yaml",
        path: "dependencies[1]",
      },
      {
        id: "V1-03",
        level: "error",
        message:
          "OLM v1 refuses bundles with dependencies: metadata/properties.yaml declares olm.package.required; remove it and document the prerequisite",
        file: "metadata/properties.yaml",
        path: "properties[0]",
      },
    ]);
    expect(exitCode).toBe(1);
  });

  test("V1-02: OLM v1's webhook limits — its own group, webhook configurations, one conversion webhook per CRD", async () => {
    const b = await validBundle();
    await b.csv((c) => {
      const [mutating] = c.spec.webhookdefinitions;
      mutating.rules = [
        { ...mutating.rules[0], apiGroups: ["olm.operatorframework.io"] },
        {
          ...mutating.rules[0],
          apiGroups: ["admissionregistration.k8s.io"],
          resources: ["MutatingWebhookConfigurations", "*"],
        },
      ];
      const conversion = {
        type: "ConversionWebhook",
        admissionReviewVersions: ["v1"],
        containerPort: 443,
        targetPort: 9443,
        deploymentName: "memcached-operator-controller-manager",
        sideEffects: "None",
        webhookPath: "/convert",
        conversionCRDs: ["memcacheds.cache.example.com"],
      };
      c.spec.webhookdefinitions.push(
        { ...conversion, generateName: "cmemcached-a.kb.io" },
        { ...conversion, generateName: "cmemcached-b.kb.io" },
      );
    });
    const { findings } = await v1Findings(b);
    expect(findings.map((f) => `${f.path}: ${f.message}`)).toEqual([
      'spec.webhookdefinitions[0].rules[0].apiGroups: webhook mmemcached-v1alpha1.kb.io has a rule on API group "olm.operatorframework.io"; OLM v1 refuses admission rules on all groups and on its own group olm.operatorframework.io: list the groups the webhook needs',
      'spec.webhookdefinitions[0].rules[1].resources: webhook mmemcached-v1alpha1.kb.io has a rule on "MutatingWebhookConfigurations" of admissionregistration.k8s.io; OLM v1 refuses admission rules on webhook configurations (or all of that group): drop that resource',
      'spec.webhookdefinitions[0].rules[1].resources: webhook mmemcached-v1alpha1.kb.io has a rule on "*" of admissionregistration.k8s.io; OLM v1 refuses admission rules on webhook configurations (or all of that group): drop that resource',
      "spec.webhookdefinitions[2].conversionCRDs: conversion webhooks cmemcached-a.kb.io and cmemcached-b.kb.io both convert memcacheds.cache.example.com; OLM v1 allows one conversion webhook per CRD: keep one",
    ]);
  });

  test("V1-07: a deployment name that is not a DNS-1123 subdomain", async () => {
    const b = await validBundle();
    await b.csv((c) => {
      c.spec.install.spec.deployments[0].name = "Controller_Manager";
      c.spec.webhookdefinitions = [];
    });
    const { findings } = await v1Findings(b);
    expect(findings).toEqual([
      {
        id: "V1-07",
        level: "error",
        message:
          'deployment name "Controller_Manager" is not a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", starting and ending with a letter or digit); OLM v1 refuses it',
        file: CSV,
        path: "spec.install.spec.deployments[0].name",
      },
    ]);
  });

  test("text output names the id, file and field; errors exit 1", async () => {
    const b = await validBundle();
    await b.write(
      "metadata/dependencies.yaml",
      "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: '>=0.9.0'}\n",
    );
    const run = await validate(b);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      "ERROR V1-03   metadata/dependencies.yaml: dependencies[0]: OLM v1 refuses bundles with dependencies: this olm.package dependency",
    );
  });
});
