// `tsop install` and `tsop deploy` right after `tsop create api`, before any `tsop generate` or
// build: like `make install` / `make deploy` (which run `make manifests` first) they generate the
// CRDs and RBAC from src/ and say so; an edit to an API type reaches the cluster on the next
// install; --skip-generate applies config/ as it is; deploy --dry-run writes nothing and warns.
import { readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { clientFor } from "./support.js";
import { scaffoldOperator } from "./project.js";

const CRD_FILE = "config/crd/bases/cache.example.com_memcacheds.yaml";
const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "memcacheds.cache.example.com",
};

let cluster: TestCluster;
let client: KubeClient;
let dir: string;
let remove: (() => Promise<void>) | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startTestCluster({ workloads: true });
  client = await clientFor(cluster.kubeconfigPath);
  env = { KUBECONFIG: cluster.kubeconfigPath };
  ({ dir, remove } = await scaffoldOperator());
}, 120_000);

afterAll(async () => {
  client?.close();
  await cluster?.stop();
  await remove?.();
});

/** The spec properties of the installed CRD's served version. */
async function installedSpecFields(): Promise<string[]> {
  const crd = await client.get(CRD);
  const schema = crd?.spec.versions[0].schema.openAPIV3Schema;
  return Object.keys(schema.properties.spec.properties).sort();
}

describe("install and deploy generate first", () => {
  it("install right after create api generates the CRDs and RBAC, says so, and installs", async () => {
    expect(existsSync(join(dir, CRD_FILE))).toBe(false);
    const first = await runTsop(["install"], { cwd: dir, env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toContain("the CRDs and RBAC were out of date with src/; tsop generate wrote:");
    expect(first.stderr).toContain(`  created ${CRD_FILE}`);
    expect(first.stderr).toContain("  updated config/rbac/role.yaml");
    expect(first.stdout).toMatch(/CustomResourceDefinition\s+memcacheds\.cache\.example\.com\s+created/);
    expect(await installedSpecFields()).toEqual(["containerPort", "image", "size"]);

    const again = await runTsop(["install"], { cwd: dir, env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain("the CRDs and RBAC are up to date with src/");
    expect(again.stderr).not.toContain("tsop generate wrote");
  });

  it("an edit to the API type: deploy --dry-run warns and writes nothing, install applies it", async () => {
    const typeFile = join(dir, "src/api/v1alpha1/memcached.ts");
    const source = await readFile(typeFile, "utf8");
    const edited = source.replace(
      "  size: Int32;\n",
      "  size: Int32;\n  /** A new field. */\n  tier?: string;\n",
    );
    expect(edited).not.toBe(source);
    await writeFile(typeFile, edited);
    const onDisk = await readFile(join(dir, CRD_FILE), "utf8");

    const dry = await runTsop(["deploy", "--dry-run", "-o", "yaml"], { cwd: dir, env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("the CRDs and RBAC on disk are out of date with src/");
    expect(dry.stderr).toContain(`  would be updated ${CRD_FILE}`);
    expect(await readFile(join(dir, CRD_FILE), "utf8")).toBe(onDisk);

    const skipped = await runTsop(["install", "--skip-generate"], { cwd: dir, env });
    expect(skipped.exitCode, skipped.stderr).toBe(0);
    expect(skipped.stderr).not.toContain("tsop generate");
    expect(await installedSpecFields()).toEqual(["containerPort", "image", "size"]);

    const install = await runTsop(["install"], { cwd: dir, env });
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.stderr).toContain(`  updated ${CRD_FILE}`);
    expect(await installedSpecFields()).toEqual(["containerPort", "image", "size", "tier"]);
  });

  it("a marker generate rejects: install stops with generate's error and the way around it", async () => {
    const typeFile = join(dir, "src/api/v1alpha1/memcached.ts");
    const source = await readFile(typeFile, "utf8");
    await writeFile(
      typeFile,
      source.replace("  size: Int32;\n", "  size: Int32;\n  /** @minimum abc */\n  bad?: Int32;\n"),
    );
    try {
      const install = await runTsop(["install"], { cwd: dir, env });
      expect(install.exitCode).toBe(1);
      expect(install.stderr).toContain("tsop generate failed (pass --skip-generate");
      expect(install.stderr).toMatch(
        /src\/api\/v1alpha1\/memcached\.ts:\d+:\d+: error TSOP\d+: @minimum: expected a number/,
      );
      expect(install.stderr).not.toContain("using cluster");
    } finally {
      await writeFile(typeFile, source);
    }
  });
});
