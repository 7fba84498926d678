// --dry-run of generate and bundle through the built CLI: what would be created, updated or
// removed is printed as unified diffs on stdout, and the project is left byte for byte as it was.
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { tsconfig } from "../codegen/support.js";

const ENV = { CI: "1", SOURCE_DATE_EPOCH: "1700000000" };
const CRD = "config/crd/bases/cache.example.com_memcacheds.yaml";

describe("--dry-run writes nothing and shows what would change", { timeout: 180_000 }, () => {
  it("generate --dry-run: the new files, then only the changed lines", async () => {
    const fixture = join(REPO_ROOT, "fixtures/codegen/memcached");
    const api = await readFile(join(fixture, "api/v1alpha1/memcached.ts"), "utf8");
    const dir = await testdir({
      "tsconfig.json": tsconfig(),
      "api/v1alpha1/memcached.ts": api,
      "controllers/memcached.ts": await readFile(
        join(fixture, "internal/controller/memcached-controller.ts"),
        "utf8",
      ),
    });
    const before = await readTree(dir);
    const dry = await runTsop(["generate", "--dry-run"], { cwd: dir, env: ENV, timeoutMs: 110_000 });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("nothing was written");
    expect(dry.stdout).toContain(`would create ${CRD}`);
    expect(dry.stdout).toContain("would create config/rbac/role.yaml");
    expect(dry.stdout).toContain(`+++ b/${CRD}`);
    expect(await readTree(dir)).toEqual(before);

    // The dry run shows exactly what the real run then writes.
    const real = await runTsop(["generate"], { cwd: dir, env: ENV, timeoutMs: 110_000 });
    expect(real.exitCode, real.stderr).toBe(0);
    const crd = await readFile(join(dir, CRD), "utf8");
    for (const line of crd.trimEnd().split("\n").slice(0, 20)) expect(dry.stdout).toContain(`+${line}\n`);

    await writeFile(join(dir, "api/v1alpha1/memcached.ts"), api.replace("@maximum 3", "@maximum 5"));
    const generated = await readTree(dir);
    const drift = await runTsop(["generate", "--dry-run"], { cwd: dir, env: ENV, timeoutMs: 110_000 });
    expect(drift.exitCode, drift.stderr).toBe(0);
    expect(drift.stdout).toContain(`would update ${CRD}`);
    expect(drift.stdout).not.toContain("role.yaml");
    expect(drift.stdout).toMatch(/^-\s+maximum: 3$/m);
    expect(drift.stdout).toMatch(/^\+\s+maximum: 5$/m);
    expect(await readTree(dir)).toEqual(generated);
  });

  it("bundle --dry-run: base CSV, bundle/ and bundle.Dockerfile shown, none written", async () => {
    const dir = await testdir();
    await cp(join(REPO_ROOT, "fixtures/bundle/memcached/project"), dir, { recursive: true });
    const args = [
      "bundle",
      "--skip-generate",
      "--image",
      "example.com/memcached-operator:v0.0.1",
      "--version",
      "0.0.1",
    ];
    const before = await readTree(dir);
    const dry = await runTsop([...args, "--dry-run", "--display-name", "Memcached Dry"], {
      cwd: dir,
      env: ENV,
    });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      "would create bundle/manifests/memcached-operator.clusterserviceversion.yaml",
    );
    expect(dry.stdout).toContain("would create bundle/metadata/annotations.yaml");
    expect(dry.stdout).toContain("would create bundle.Dockerfile");
    expect(dry.stdout).toContain(
      "would update config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
    );
    expect(dry.stdout).toContain("+  displayName: Memcached Dry");
    expect(dry.stdout).toContain("+  name: memcached-operator.v0.0.1");
    expect(await readTree(dir)).toEqual(before);

    const real = await runTsop(args, { cwd: dir, env: ENV });
    expect(real.exitCode, real.stderr).toBe(0);
    const written = await readTree(dir);
    const again = await runTsop([...args, "--dry-run"], { cwd: dir, env: ENV });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("dry run: nothing would change");
    expect(await readTree(dir)).toEqual(written);
  });
});
