// The committed golden project (fixtures/scaffold/memcached-operator) is what the built CLI
// scaffolds for a fixed set of commands, including a repeated `create api --force` to prove it
// idempotent. A template change shows up here as a reviewable diff.
// Regenerate with: UPDATE_GOLDEN=1 npx vitest run test/scaffold/golden.test.ts (then review the diff).
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";

const GOLDEN = join(REPO_ROOT, "fixtures/scaffold/memcached-operator");
// A nested biome.json would be taken for a second root configuration by tsop's own lint.
const stored = (path: string) => (path === "biome.json" ? "biome.json.golden" : path);
const unstored = (path: string) => (path === "biome.json.golden" ? "biome.json" : path);

const STEPS: string[][] = [
  [
    "init",
    "memcached-operator",
    "--domain",
    "example.com",
    "--skip-install",
    "--tsop-dependency",
    "file:../tsop",
  ],
  ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
  ["create", "api", "--group", "infra", "--version", "v1", "--kind", "Cluster", "--namespaced=false"],
  ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--force"],
];

describe("golden project", () => {
  it("matches fixtures/scaffold/memcached-operator", async () => {
    const parent = await testdir();
    const dir = join(parent, "memcached-operator");
    for (const [i, args] of STEPS.entries()) {
      const result = await runTsop(args, { cwd: i === 0 ? parent : dir });
      expect(result.exitCode, result.stderr).toBe(0);
    }
    const tree = await readTree(dir);
    if (process.env.UPDATE_GOLDEN) {
      await rm(GOLDEN, { recursive: true, force: true });
      for (const [path, text] of Object.entries(tree)) {
        await mkdir(dirname(join(GOLDEN, stored(path))), { recursive: true });
        await writeFile(join(GOLDEN, stored(path)), text);
      }
    }
    const golden = Object.fromEntries(
      Object.entries(await readTree(GOLDEN)).map(([p, t]) => [unstored(p), t]),
    );
    expect(tree).toEqual(golden);
  });
});
