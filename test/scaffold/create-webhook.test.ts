// `tsop create webhook` through the built CLI in a temp project: the files and wiring it writes,
// its usage errors (exit 2, nothing written), idempotent re-runs with --force, the flags in --help,
// and `tsop generate` turning the scaffolded decorators into the webhook manifests controller-gen
// writes for operator-sdk's memcached sample.
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { createApi, scaffoldProject } from "./helpers.js";

const KIND = ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];

async function webhookProject(): Promise<string> {
  const dir = await scaffoldProject();
  expect((await createApi(dir, KIND)).exitCode).toBe(0);
  return dir;
}

/** Lets `tsop generate` resolve "tsop" and the Node types as an installed project does. */
async function linkDependencies(dir: string): Promise<void> {
  await mkdir(join(dir, "node_modules/@types"), { recursive: true });
  await symlink(REPO_ROOT, join(dir, "node_modules/tsop"), "dir");
  await symlink(join(REPO_ROOT, "node_modules/@types/node"), join(dir, "node_modules/@types/node"), "dir");
}

const read = (dir: string, file: string) => readFile(join(dir, file), "utf8");

describe("tsop create webhook", () => {
  it("scaffolds a defaulting and validating handler, its test, config and wiring", async () => {
    const dir = await webhookProject();
    const result = await runTsop(
      ["create", "webhook", ...KIND, "--defaulting", "--programmatic-validation"],
      { cwd: dir },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    for (const file of [
      "src/api/v1alpha1/memcached.webhook.ts",
      "test/memcached.webhook.test.ts",
      "config/webhook/kustomization.yaml",
      "config/webhook/service.yaml",
      "config/certmanager/certificate-webhook.yaml",
      "config/certmanager/issuer.yaml",
      "config/default/manager_webhook_patch.yaml",
    ])
      expect(existsSync(join(dir, file)), file).toBe(true);
    const main = await read(dir, "src/main.ts");
    expect(main).toContain('import { MemcachedWebhook } from "./api/v1alpha1/memcached.webhook.js";');
    expect(main).toContain("manager.addWebhook(new MemcachedWebhook());");
    const project = parse(await read(dir, "PROJECT"));
    expect(project.resources[0].webhooks).toEqual({
      defaulting: true,
      validation: true,
      webhookVersion: "v1",
    });
    const deploy = parse(await read(dir, "config/default/kustomization.yaml"));
    expect(deploy.resources).toEqual(expect.arrayContaining(["../webhook", "../certmanager"]));
    expect(deploy.patches).toContainEqual({
      path: "manager_webhook_patch.yaml",
      target: { kind: "Deployment" },
    });
    const manager = await read(dir, "config/manager/manager.yaml");
    expect(manager).toMatch(/volumeMounts: \[\]/);
    expect(manager).toMatch(/volumes: \[\]/);

    // Again with --force: the same files, no duplicated wiring.
    const again = await runTsop(
      ["create", "webhook", ...KIND, "--defaulting", "--programmatic-validation", "--force"],
      { cwd: dir },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await read(dir, "src/main.ts")).toBe(main);
    expect(parse(await read(dir, "config/default/kustomization.yaml"))).toEqual(deploy);
  });

  it("refuses bad requests with exit 2 and writes nothing", async () => {
    const dir = await webhookProject();
    const before = await read(dir, "PROJECT");
    const none = await runTsop(["create", "webhook", ...KIND], { cwd: dir });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(
      "choose at least one of --defaulting, --programmatic-validation and --conversion",
    );
    const unknown = await runTsop(
      ["create", "webhook", "--group", "cache", "--version", "v1", "--kind", "Other", "--defaulting"],
      { cwd: dir },
    );
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("tsop create api --group cache --version v1 --kind Other");
    const conversion = await runTsop(["create", "webhook", ...KIND, "--conversion"], { cwd: dir });
    expect(conversion.exitCode).toBe(2);
    expect(conversion.stderr).toContain("PROJECT has no other version of it");
    expect(await read(dir, "PROJECT")).toBe(before);
    expect(existsSync(join(dir, "config/webhook"))).toBe(false);

    expect((await runTsop(["create", "webhook", ...KIND, "--defaulting"], { cwd: dir })).exitCode).toBe(0);
    const twice = await runTsop(["create", "webhook", ...KIND, "--defaulting"], { cwd: dir });
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("already has these webhooks");
  });

  it("scaffolds a conversion webhook with the other versions as spokes", async () => {
    const dir = await webhookProject();
    expect(
      (
        await createApi(dir, [
          "--group",
          "cache",
          "--version",
          "v2",
          "--kind",
          "Memcached",
          "--controller=false",
        ])
      ).exitCode,
    ).toBe(0);
    const result = await runTsop(["create", "webhook", ...KIND, "--conversion"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const conversion = await read(dir, "src/api/v1alpha1/memcached.conversion.ts");
    expect(conversion).toContain(
      '@ConversionWebhook({ group: "cache.example.com", kind: "Memcached", hub: "v1alpha1" })',
    );
    expect(conversion).toContain("v2: {");
    expect(parse(await read(dir, "config/crd/kustomization.yaml")).patches).toEqual([
      { path: "patches/webhook_in_memcacheds.yaml" },
    ]);
    expect(
      parse(await read(dir, "config/crd/patches/webhook_in_memcacheds.yaml")).spec.conversion.webhook
        .clientConfig.service,
    ).toEqual({
      namespace: "system",
      name: "webhook-service",
      path: "/convert",
    });
    expect(parse(await read(dir, "PROJECT")).resources[0].webhooks).toEqual({
      conversion: true,
      spoke: ["v2"],
      webhookVersion: "v1",
    });
  });

  it("lists every flag in --help", async () => {
    const help = await runTsop(["create", "webhook", "--help"]);
    for (const flag of [
      "--group",
      "--version",
      "--kind",
      "--defaulting",
      "--programmatic-validation",
      "--conversion",
      "--force",
      "--output",
    ])
      expect(help.stdout).toContain(flag);
  });

  it(
    "generates the webhook manifests controller-gen writes for the same webhook, and --check sees drift",
    { timeout: 120_000 },
    async () => {
      const dir = await webhookProject();
      await linkDependencies(dir);
      expect((await runTsop(["create", "webhook", ...KIND, "--defaulting"], { cwd: dir })).exitCode).toBe(0);
      const generated = await runTsop(["generate"], { cwd: dir, timeoutMs: 110_000 });
      expect(generated.exitCode, generated.stderr).toBe(0);
      const oracle = await readFile(
        join(REPO_ROOT, "fixtures/webhook/controller-gen-memcached-manifests.yaml"),
        "utf8",
      );
      expect(await read(dir, "config/webhook/manifests.yaml")).toBe(oracle);

      await writeFile(
        join(dir, "config/webhook/manifests.yaml"),
        oracle.replace("failurePolicy: Fail", "failurePolicy: Ignore"),
      );
      const check = await runTsop(["generate", "--check"], { cwd: dir, timeoutMs: 110_000 });
      expect(check.exitCode).toBe(1);
      expect(check.stdout + check.stderr).toContain("config/webhook/manifests.yaml");
    },
  );
});
