// File system refusals while writing output: a read-only config/rbac (generate), an unwritable
// --output-dir, a read-only bundle/ (bundle), an --oci-layout under a file (bundle push) and a full
// disk. Each: exit 1, a message naming the path and what to do, no stack trace, nothing written,
// nothing swapped and no `.bundle.old-*` left behind.
import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { isRoot, makeReadOnly, mountTinyTmpfs } from "../support/readonly.js";
import { readTree, testdir } from "../support/testdir.js";
import { tsconfig } from "../codegen/support.js";

const ENV = { CI: "1", SOURCE_DATE_EPOCH: "1700000000" };
const BUNDLE = ["bundle", "--skip-generate", "--image", "example.com/memcached-operator:v0.0.1"];

function expectCleanFailure(result: { exitCode: number; stderr: string }, path: string) {
  expect(result.exitCode, result.stderr).toBe(1);
  expect(result.stderr).toContain(path);
  expect(result.stderr).toMatch(/read-only|permission denied|not a directory|no space left/);
  expect(result.stderr).toContain("hint:");
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stderr).not.toContain("bug in tsop");
}

async function memcachedBundleProject(): Promise<string> {
  const dir = await testdir();
  await cp(join(REPO_ROOT, "fixtures/bundle/memcached/project"), dir, { recursive: true });
  return dir;
}

describe("write errors name the path and change nothing", { timeout: 180_000 }, () => {
  it("generate with a read-only config/rbac: no CRD written either", async () => {
    const fixture = join(REPO_ROOT, "fixtures/codegen/memcached");
    const dir = await testdir({
      "tsconfig.json": tsconfig(),
      "api/v1alpha1/memcached.ts": await readFile(join(fixture, "api/v1alpha1/memcached.ts"), "utf8"),
      "controllers/memcached.ts": await readFile(
        join(fixture, "internal/controller/memcached-controller.ts"),
        "utf8",
      ),
      "config/rbac/kustomization.yaml": "resources: []\n",
    });
    await makeReadOnly(join(dir, "config/rbac"));
    const before = await readTree(dir);
    const result = await runTsop(["generate"], { cwd: dir, env: ENV, timeoutMs: 110_000 });
    expectCleanFailure(result, join(dir, "config/rbac"));
    expect(result.stderr).toContain("nothing was changed");
    expect(await readTree(dir)).toEqual(before);
  });

  it("bundle --output-dir in a read-only directory: no base CSV, no Dockerfile", async () => {
    const dir = await memcachedBundleProject();
    await mkdir(join(dir, "ro"));
    await makeReadOnly(join(dir, "ro"));
    const before = await readTree(dir);
    const result = await runTsop([...BUNDLE, "--output-dir", "ro/out"], { cwd: dir, env: ENV });
    expectCleanFailure(result, join(dir, "ro"));
    expect(await readTree(dir)).toEqual(before);
  });

  it("bundle with a read-only bundle/: nothing swapped, no .bundle.old-* left", async () => {
    const dir = await memcachedBundleProject();
    const first = await runTsop([...BUNDLE, "--version", "0.0.1"], { cwd: dir, env: ENV });
    expect(first.exitCode, first.stderr).toBe(0);
    await makeReadOnly(join(dir, "bundle"));
    const before = await readTree(dir);
    const result = await runTsop([...BUNDLE, "--version", "0.0.2", "--display-name", "Two"], {
      cwd: dir,
      env: ENV,
    });
    expectCleanFailure(result, join(dir, "bundle"));
    expect(await readTree(dir)).toEqual(before);
    expect((await readdir(dir)).filter((n) => n.startsWith(".bundle."))).toEqual([]);
  });

  it("bundle push --oci-layout under a file: ENOTDIR names the path", async () => {
    const dir = await memcachedBundleProject();
    const first = await runTsop([...BUNDLE, "--version", "0.0.1"], { cwd: dir, env: ENV });
    expect(first.exitCode, first.stderr).toBe(0);
    await writeFile(join(dir, "a-file"), "x");
    const result = await runTsop(["bundle", "push", "example.com/b:v1", "--oci-layout", "a-file/layout"], {
      cwd: dir,
      env: ENV,
    });
    expectCleanFailure(result, join(dir, "a-file"));
  });

  it("bundle push --oci-layout in a read-only directory names the layout file", async () => {
    const dir = await memcachedBundleProject();
    const first = await runTsop([...BUNDLE, "--version", "0.0.1"], { cwd: dir, env: ENV });
    expect(first.exitCode, first.stderr).toBe(0);
    await mkdir(join(dir, "layout"));
    await makeReadOnly(join(dir, "layout"));
    const result = await runTsop(["bundle", "push", "example.com/b:v1", "--oci-layout", "layout"], {
      cwd: dir,
      env: ENV,
    });
    expectCleanFailure(result, join(dir, "layout"));
    expect(result.stderr).not.toMatch(/\.[0-9a-f]{12}\.tmp/);
    expect(await readdir(join(dir, "layout"))).toEqual([]);
  });

  it.runIf(isRoot)("bundle on a full disk (root: a 64 KiB tmpfs): ENOSPC, nothing written", async () => {
    const dir = await memcachedBundleProject();
    const out = join(dir, "full");
    await mkdir(out);
    mountTinyTmpfs(out, 64);
    await writeFile(join(out, "filler"), Buffer.alloc(60 * 1024));
    const before = await readTree(dir);
    const result = await runTsop([...BUNDLE, "--output-dir", "full/bundle"], { cwd: dir, env: ENV });
    expectCleanFailure(result, join(out, "bundle"));
    expect(await readTree(dir)).toEqual(before);
    expect(await readdir(out)).toEqual(["filler"]);
  });
});
