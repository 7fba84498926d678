// A project made by `tsop init` + `tsop create api` bundles with a plain `tsop bundle`: generate
// runs first (CRDs and RBAC from the TypeScript), the base CSV comes from tsop.bundle.yaml, and
// the result validates.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { linkNodeModules, readYaml, tsop } from "./helpers.js";

describe("bundle on a scaffolded project", () => {
  test("init, create api, then tsop bundle (with generate) and validate", { timeout: 120_000 }, async () => {
    const dir = await testdir();
    const init = await tsop(dir, [
      "init",
      "--domain",
      "example.com",
      "--project-name",
      "memcached-operator",
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
    // @title tags become the CSV's display names and spec/status descriptors.
    const apiFile = join(dir, "src/api/v1alpha1/memcached.ts");
    await writeFile(
      apiFile,
      (await readFile(apiFile, "utf8"))
        .replace("   * @minimum 0\n", "   * @title Size\n   * @minimum 0\n")
        .replace(
          "  /** Replicas of the workload that are available. */",
          "  /**\n   * Replicas of the workload that are available.\n   * @title Available Replicas\n   */",
        )
        .replace(
          "/** Memcached is the Schema for the memcacheds API. */",
          "/**\n * Memcached is the Schema for the memcacheds API.\n * @title Memcached Cluster\n */",
        ),
    );
    const config = join(dir, "tsop.bundle.yaml");
    await writeFile(
      config,
      `${await readFile(config, "utf8")}description: Runs memcached.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\nminKubeVersion: 1.28.0\n`,
    );
    const run = await tsop(dir, ["bundle"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("created config/crd/bases/cache.example.com_memcacheds.yaml");
    expect(run.stderr).toContain(
      "Created config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
    );
    const files = (await readdir(join(dir, "bundle/manifests"))).sort();
    expect(files).toContain("cache.example.com_memcacheds.yaml");
    expect(files).toContain("memcached-operator.clusterserviceversion.yaml");
    const csv = await readYaml(join(dir, "bundle/manifests/memcached-operator.clusterserviceversion.yaml"));
    expect(csv).toMatchObject({
      metadata: { name: "memcached-operator.v0.0.1" },
      spec: {
        customresourcedefinitions: {
          owned: [{ name: "memcacheds.cache.example.com", kind: "Memcached", version: "v1alpha1" }],
        },
      },
    });
    const validate = await tsop(dir, ["bundle", "validate", "--strict", "-o", "json"]);
    expect(JSON.parse(validate.stdout).findings).toEqual([]);
    expect(validate.exitCode).toBe(0);
  });
});
