// `tsop generate` as a user runs it: the built CLI in a temporary project.
import { readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/codegen/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { tsconfig } from "./support.js";

const FIXTURE = fileURLToPath(new URL("../../fixtures/codegen/memcached/", import.meta.url));
const API = readFileSync(join(FIXTURE, "api/v1alpha1/memcached.ts"), "utf8");
const CONTROLLER = readFileSync(join(FIXTURE, "internal/controller/memcached-controller.ts"), "utf8");

async function project(extra: Record<string, string> = {}): Promise<string> {
  return testdir({
    "tsconfig.json": tsconfig(),
    "api/v1alpha1/memcached.ts": API,
    "controllers/memcached.ts": CONTROLLER,
    ...extra,
  });
}

const CRD = "config/crd/bases/cache.example.com_memcacheds.yaml";
/** Per CLI run: generous, the machine running the suites is shared. */
const T = 110_000;

// Each run starts node and the compiler: allow for a busy 2-core machine.
describe("tsop generate (CLI)", { timeout: 120_000 }, () => {
  it("writes CRDs and RBAC, reports sizes, is idempotent, and --check detects drift with a diff", async () => {
    const dir = await project();
    const first = await runTsop(["generate"], { cwd: dir, timeoutMs: T });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /created config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml \(\d+\.\d KiB\)/,
    );
    expect(first.stderr).toContain("created config/rbac/role.yaml");
    const tree = await readTree(dir);
    expect(tree[CRD]?.startsWith("---\napiVersion: apiextensions.k8s.io/v1\n")).toBe(true);
    expect(tree[CRD]).toContain("tsop.dev/version:");

    const again = await runTsop(["generate"], { cwd: dir, timeoutMs: T });
    expect(again.stderr).toContain(`unchanged ${CRD}`);
    expect(await readTree(dir)).toEqual(tree);

    const clean = await runTsop(["generate", "--check"], { cwd: dir, timeoutMs: T });
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(clean.stdout).toBe("");

    await writeFile(join(dir, "api/v1alpha1/memcached.ts"), API.replace("@maximum 3", "@maximum 5"));
    const drift = await runTsop(["generate", "--check"], { cwd: dir, timeoutMs: T });
    expect(drift.exitCode).toBe(1);
    expect(drift.stdout).toContain(`--- a/${CRD}`);
    expect(drift.stdout).toContain(`+++ b/${CRD}`);
    expect(drift.stdout).toMatch(/^-\s+maximum: 3$/m);
    expect(drift.stdout).toMatch(/^\+\s+maximum: 5$/m);
    expect(drift.stderr).toContain("generated files are out of date");
    const afterCheck = await readTree(dir);
    expect(afterCheck[CRD]).toBe(tree[CRD]); // --check wrote nothing

    const update = await runTsop(["generate", "crds"], { cwd: dir, timeoutMs: T });
    expect(update.exitCode).toBe(0);
    expect(update.stderr).toContain(`updated ${CRD}`);
    expect((await runTsop(["generate", "--check"], { cwd: dir, timeoutMs: T })).exitCode).toBe(0);
  });

  it("removes the CRD file of a kind that no longer exists, and says so; other YAML is kept", async () => {
    const dir = await project({ "config/crd/bases/notes.yaml": "# a user file\nkind: ConfigMap\n" });
    expect((await runTsop(["generate"], { cwd: dir, timeoutMs: T })).exitCode).toBe(0);
    await writeFile(
      join(dir, "api/v1alpha1/memcached.ts"),
      API.replace('version: "v1alpha1" }', 'version: "v1alpha1", plural: "caches" }'),
    );
    const check = await runTsop(["generate", "--check"], { cwd: dir, timeoutMs: T });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toContain(`--- a/${CRD}\n+++ /dev/null`);
    const run = await runTsop(["generate"], { cwd: dir, timeoutMs: T });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`removed ${CRD} (its kind no longer exists)`);
    const files = Object.keys(await readTree(dir)).filter((f) => f.startsWith("config/crd"));
    expect(files).toEqual(["config/crd/bases/cache.example.com_caches.yaml", "config/crd/bases/notes.yaml"]);
  });

  it("fails with positioned diagnostics and writes nothing", async () => {
    const dir = await project();
    await writeFile(join(dir, "api/v1alpha1/memcached.ts"), API.replace("size?: Int32;", "size?: any;"));
    const before = await readTree(dir);
    const res = await runTsop(["generate"], { cwd: dir, timeoutMs: T });
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toMatch(
      /api\/v1alpha1\/memcached\.ts:10:3: error TSOP1011: cannot generate a schema for 'any'/,
    );
    expect(res.stderr).toContain("nothing was written");
    expect(await readTree(dir)).toEqual(before);
  });

  it("--strict turns warnings into errors", async () => {
    const dir = await project();
    await writeFile(
      join(dir, "api/v1alpha1/memcached.ts"),
      API.replace("containerPort?: Int32;", "containerPort?: number;"),
    );
    const strict = await runTsop(["generate", "--strict"], { cwd: dir, timeoutMs: T });
    expect(strict.exitCode).toBe(1);
    expect(strict.stderr).toContain("error TSOP1020");
    expect(Object.keys(await readTree(dir)).some((f) => f.startsWith("config/"))).toBe(false);
  });

  it("takes the project root from PROJECT when run in a subdirectory; --out per subcommand", async () => {
    const dir = await project({
      PROJECT:
        'domain: example.com\nprojectName: demo\nlayout:\n- tsop.dev/v1\nresources: []\nversion: "3"\n',
    });
    const res = await runTsop(["generate"], { cwd: join(dir, "api"), timeoutMs: T });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(Object.keys(await readTree(dir))).toContain(CRD);
    const out = await runTsop(["generate", "rbac", "--out", "rbac-here", "--role-name", "operator"], {
      cwd: dir,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(readFileSync(join(dir, "rbac-here/role.yaml"), "utf8")).toContain("name: operator");
  });

  it("output is byte-for-byte deterministic (in process, two programs, different file order)", async () => {
    const a = await project();
    const b = await project({ "api/zz-extra.ts": "export const unrelated = 1;\n" });
    await generate({ cwd: a }, new MemoryReporter());
    await generate({ cwd: b }, new MemoryReporter());
    expect(await readTree(join(b, "config"))).toEqual(await readTree(join(a, "config")));
  });

  it("resolves tsop through node_modules/tsop/dist like a scaffolded project", async () => {
    const dir = await testdir({
      "package.json": JSON.stringify({ name: "demo", type: "module" }),
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
        },
        include: ["src"],
      }),
      "src/api/memcached.ts": API,
    });
    await mkdir(join(dir, "node_modules"), { recursive: true });
    await symlink(REPO_ROOT, join(dir, "node_modules/tsop"), "dir");
    const res = await runTsop(["generate", "crds"], { cwd: dir, timeoutMs: T });
    expect(res.exitCode, res.stderr).toBe(0);
    const expected = readFileSync(join(FIXTURE, "expected/crd/cache.example.com_memcacheds.yaml"), "utf8");
    const strip = (t: string) => t.replace(/tsop\.dev\/version: .*\n/, "");
    expect(strip(readFileSync(join(dir, CRD), "utf8"))).toBe(strip(expected));
  });

  it("--list-markers prints the reference from the marker table", async () => {
    const res = await runTsop(["generate", "--list-markers"]);
    expect(res.exitCode).toBe(0);
    for (const tag of [
      "@minimum <number>",
      "@listMapKey",
      "@validation rule=",
      "@immutable",
      "@Rbac({",
      "@CustomResource({",
    ]) {
      expect(res.stdout).toContain(tag);
    }
  });

  it("tsop --help does not load the TypeScript compiler", async () => {
    const script = [
      'import { createRequire } from "node:module";',
      `const { buildProgram } = await import(${JSON.stringify(fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url)))});`,
      "const program = buildProgram();",
      "program.exitOverride(); program.configureOutput({ writeOut() {}, writeErr() {} });",
      'for (const args of [["--help"], ["generate", "--help"]]) { try { await program.parseAsync(args, { from: "user" }); } catch {} }',
      "const cache = Object.keys(createRequire(import.meta.url).cache);",
      'console.log(cache.filter((k) => k.includes("/typescript/")).length);',
    ].join("\n");
    const res = await execa(process.execPath, ["--input-type=module", "-e", script]);
    expect(res.stdout.trim().split("\n").pop()).toBe("0");
  });
});
