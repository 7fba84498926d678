// `tsop bundle` on a project with `tsop create webhook`: the webhook configurations become the CSV's
// spec.webhookdefinitions exactly as operator-sdk writes them for its memcached sample, the webhook
// Service is written beside the CSV, cert-manager objects and configurations stay out, OLM's
// certificate replaces the cert-manager volume, and a conversion webhook becomes a ConversionWebhook
// definition. `tsop bundle validate` accepts both bundles.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { readYaml, tsop } from "./helpers.js";

async function linkNodeModules(dir: string): Promise<void> {
  const target = join(dir, "node_modules");
  await mkdir(target);
  for (const entry of await readdir(join(REPO_ROOT, "node_modules"))) {
    if (entry === "tsop") continue;
    await symlink(join(REPO_ROOT, "node_modules", entry), join(target, entry));
  }
  await symlink(REPO_ROOT, join(target, "tsop"));
}

const fixture = (name: string) => readFile(join(REPO_ROOT, "fixtures/webhook", name), "utf8");

async function memcachedProject(): Promise<string> {
  const dir = join(await testdir(), "memcached-operator");
  await mkdir(dir);
  const steps = [
    ["init", "--domain", "example.com", "--skip-install"],
    ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
  ];
  for (const args of steps) {
    const run = await tsop(dir, args);
    expect(run.exitCode, run.stderr).toBe(0);
  }
  await linkNodeModules(dir);
  const config = join(dir, "tsop.bundle.yaml");
  await writeFile(
    config,
    `${await readFile(config, "utf8")}description: Runs memcached.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\nminKubeVersion: 1.28.0\n`,
  );
  return dir;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a CSV is arbitrary YAML
async function bundleAndValidate(dir: string): Promise<Record<string, any>> {
  const run = await tsop(dir, ["bundle"]);
  expect(run.exitCode, run.stderr).toBe(0);
  const validate = await tsop(dir, ["bundle", "validate", "--strict", "-o", "json"]);
  expect(JSON.parse(validate.stdout).findings).toEqual([]);
  expect(validate.exitCode).toBe(0);
  return readYaml(join(dir, "bundle/manifests/memcached-operator.clusterserviceversion.yaml"));
}

describe("bundle with webhooks", () => {
  test(
    "a defaulting webhook bundles as operator-sdk's memcached sample does",
    { timeout: 120_000 },
    async () => {
      const dir = await memcachedProject();
      const webhook = await tsop(dir, [
        "create",
        "webhook",
        "--group",
        "cache",
        "--version",
        "v1alpha1",
        "--kind",
        "Memcached",
        "--defaulting",
      ]);
      expect(webhook.exitCode, webhook.stderr).toBe(0);
      const csv = await bundleAndValidate(dir);

      const expected = parse(await fixture("operator-sdk-memcached-webhookdefinitions.yaml"));
      expect(csv.spec.webhookdefinitions).toEqual(expected.webhookdefinitions);
      const service = parse(
        await readFile(
          join(dir, "bundle/manifests/memcached-operator-webhook-service_v1_service.yaml"),
          "utf8",
        ),
      );
      const upstream = parse(await fixture("operator-sdk-memcached-webhook-service.yaml"));
      // operator-sdk also writes the Go zero values creationTimestamp: null and status.loadBalancer: {}.
      delete upstream.metadata.creationTimestamp;
      delete upstream.status;
      expect(service).toEqual(upstream);

      const files = await readdir(join(dir, "bundle/manifests"));
      expect(files.filter((f) => /certificate|issuer|webhookconfiguration/i.test(f))).toEqual([]);
      const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
      const manager = pod.containers[0];
      expect(manager.args).toContain("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs");
      expect(manager.ports).toContainEqual({ containerPort: 9443, name: "webhook-server", protocol: "TCP" });
      // OLM mounts its own certificate there: the cert-manager Secret's volume is not in the bundle.
      expect(JSON.stringify(pod)).not.toContain("webhook-server-cert");

      // A definition OLM could not install fails validation (CSV-16).
      const csvFile = join(dir, "bundle/manifests/memcached-operator.clusterserviceversion.yaml");
      await writeFile(
        csvFile,
        (await readFile(csvFile, "utf8"))
          .replace("deploymentName: memcached-operator-controller-manager", "deploymentName: elsewhere")
          .replace("webhookPath: /mutate", "webhookPath: mutate"),
      );
      const broken = await tsop(dir, ["bundle", "validate", "-o", "json"]);
      expect(broken.exitCode).toBe(1);
      expect(
        (JSON.parse(broken.stdout).findings as Array<{ id: string; path: string }>)
          .filter((f) => f.id === "CSV-16")
          .map((f) => f.path),
      ).toEqual(["spec.webhookdefinitions[0].deploymentName", "spec.webhookdefinitions[0].webhookPath"]);
    },
  );

  test("validation and conversion webhooks", { timeout: 120_000 }, async () => {
    const dir = await memcachedProject();
    const v2 = await tsop(dir, [
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v2",
      "--kind",
      "Memcached",
      "--controller=false",
    ]);
    expect(v2.exitCode, v2.stderr).toBe(0);
    const hub = join(dir, "src/api/v1alpha1/memcached.ts");
    await writeFile(
      hub,
      (await readFile(hub, "utf8"))
        .replace("PrinterColumn, Status }", "PrinterColumn, Status, StorageVersion }")
        .replace("@Status()\n", "@Status()\n@StorageVersion()\n"),
    );
    const webhook = await tsop(dir, [
      "create",
      "webhook",
      "--group",
      "cache",
      "--version",
      "v1alpha1",
      "--kind",
      "Memcached",
      "--programmatic-validation",
      "--conversion",
    ]);
    expect(webhook.exitCode, webhook.stderr).toBe(0);
    const csv = await bundleAndValidate(dir);
    const definitions = csv.spec.webhookdefinitions as Array<Record<string, unknown>>;
    expect(definitions.map((d) => [d.type, d.generateName])).toEqual([
      ["ConversionWebhook", "cmemcacheds.kb.io"],
      ["ValidatingAdmissionWebhook", "vmemcached-v1alpha1.kb.io"],
    ]);
    expect(definitions[0]).toMatchObject({
      conversionCRDs: ["memcacheds.cache.example.com"],
      deploymentName: "memcached-operator-controller-manager",
      containerPort: 443,
      targetPort: 9443,
      webhookPath: "/convert",
    });
    // OLM only supports conversion webhooks for operators installed in all namespaces.
    expect(
      (csv.spec.installModes as Array<{ type: string; supported: boolean }>).filter((m) => m.supported),
    ).toEqual([{ type: "AllNamespaces", supported: true }]);
    const crd = parse(
      await readFile(join(dir, "bundle/manifests/cache.example.com_memcacheds.yaml"), "utf8"),
    );
    expect(crd.spec.conversion.strategy).toBe("Webhook");
    expect(existsSync(join(dir, "config/webhook/manifests.yaml"))).toBe(true);
  });
});
