// `tsop init` when the registry cannot serve the running tsop (it is not published): run from a
// clone, init packs the running tsop into the project and depends on the tarball; run from a copy
// the registry installed, it depends on ^<version>. npm's 404 for tsop gets a hint naming
// --tsop-dependency, and --force repairs a project an earlier init left half-made.
import { cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { createApi } from "./helpers.js";

const VERSION = (JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as { version: string })
  .version;

describe("tsop init: how the project depends on tsop", () => {
  it("run from a clone, it packs the running tsop into vendor/ and says so", async () => {
    const dir = join(await testdir(), "memcached-operator");
    const result = await runTsop(["init", dir, "--domain", "example.com", "--skip-install"]);
    expect(result.exitCode, result.stderr).toBe(0);
    const tarball = `vendor/tsop-${VERSION}.tgz`;
    expect(result.stderr).toContain(
      `tsop dependency: file:${tarball} (this tsop is not from the npm registry`,
    );
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.tsop).toBe(`file:${tarball}`);
    // The tarball holds what `npm pack` would put in it (npm itself is the oracle).
    const listed = (await execa("tar", ["-tzf", join(dir, tarball)])).stdout.split("\n").sort();
    const npmPack = await execa("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: REPO_ROOT,
    });
    const expected = (JSON.parse(npmPack.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files
      .map((f) => `package/${f.path}`)
      .sort();
    expect(listed).toEqual(expected);
    // The image build gets the tarball too.
    expect(await readFile(join(dir, "Dockerfile"), "utf8")).toContain("COPY vendor/ vendor/");
    expect(await readFile(join(dir, ".dockerignore"), "utf8")).toContain("!vendor/");
  }, 60_000);

  it("run from a copy installed into node_modules, it depends on ^<version>", async () => {
    const prefix = await testdir();
    const installed = join(prefix, "node_modules", "tsop");
    await mkdir(installed, { recursive: true });
    for (const entry of ["bin", "dist", "templates", "package.json"]) {
      await cp(join(REPO_ROOT, entry), join(installed, entry), { recursive: true });
    }
    await symlink(join(REPO_ROOT, "node_modules"), join(installed, "node_modules"));
    const dir = join(prefix, "op");
    const result = await execa(
      process.execPath,
      [join(installed, "bin/tsop.cjs"), "init", dir, "--domain", "example.com", "--skip-install"],
      { reject: false, env: { NO_COLOR: "1" } },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`tsop dependency: ^${VERSION} (from the npm registry)`);
    const tree = await readTree(dir);
    expect(JSON.parse(tree["package.json"]!).dependencies.tsop).toBe(`^${VERSION}`);
    expect(Object.keys(tree).filter((p) => p.startsWith("vendor/"))).toEqual([]);
    expect(tree.Dockerfile).not.toContain("vendor");
  }, 60_000);
});

describe("tsop init: a registry without tsop, and --force repairing a half-made project", () => {
  it("the 404 hint names --tsop-dependency; --force then repairs the project", async () => {
    const parent = await testdir();
    const dir = join(parent, "memcached-operator");
    // npm as it answers when the registry lacks tsop (its text copied from npm 10's real output).
    const bin = join(parent, "bin");
    await mkdir(bin);
    await writeFile(
      join(bin, "npm"),
      [
        "#!/bin/sh",
        "echo 'npm error code E404' >&2",
        "echo 'npm error 404 Not Found - GET https://registry.npmjs.org/tsop - Not found' >&2",
        "echo \"npm error 404  The requested resource 'tsop@^${VERSION}' could not be found or you do not have permission to access it.\" >&2",
        "exit 1",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    const failed = await runTsop(
      ["init", dir, "--domain", "example.com", "--tsop-dependency", `^${VERSION}`],
      {
        env: { PATH: `${bin}:${process.env.PATH ?? ""}` },
      },
    );
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("npm install failed");
    expect(failed.stderr).toMatch(
      /hint: the npm registry cannot serve tsop \^\d+\.\d+\.\d+: .*--tsop-dependency/,
    );

    // Half-made: the install failed, and a file went missing too.
    await rm(join(dir, "src/main.ts"));
    const refused = await runTsop(["init", dir, "--domain", "example.com", "--skip-install"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("run it again with --force to repair the project");
    const repaired = await runTsop(["init", dir, "--domain", "example.com", "--skip-install", "--force"]);
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    const tree = await readTree(dir);
    expect(tree["src/main.ts"]).toBeDefined();
    expect(JSON.parse(tree["package.json"]!).dependencies.tsop).toBe(`file:vendor/tsop-${VERSION}.tgz`);

    // Once it has an API, --force never re-initialises it.
    expect(
      (await createApi(dir, ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])).exitCode,
    ).toBe(0);
    const before = await readTree(dir);
    const again = await runTsop(["init", dir, "--domain", "example.com", "--skip-install", "--force"]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("already holds a tsop project with 1 API(s)");
    expect(await readTree(dir)).toEqual(before);
  }, 180_000);
});

describe("tsop init: a lock npm ci would refuse", () => {
  it("drops the optional dependency the registry could not serve from the lock, and says which and why", async () => {
    const parent = await testdir();
    const dir = join(parent, "memcached-operator");
    // npm 11.16+ as it installs here: vite's optional napi-windows-process-start-time answers 404,
    // so the lock keeps vite's edge to it and holds no entry for it (npm/cli#9846).
    const lock = {
      name: "memcached-operator",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "memcached-operator" },
        "node_modules/vite": {
          version: "8.4.0",
          dev: true,
          optionalDependencies: { fsevents: "~2.3.3", "napi-windows-process-start-time": "^0.1.0" },
        },
        "node_modules/fsevents": { version: "2.3.3", dev: true, optional: true, os: ["darwin"] },
      },
    };
    const bin = join(parent, "bin");
    await mkdir(bin);
    await writeFile(join(parent, "lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
    await writeFile(join(bin, "npm"), `#!/bin/sh\ncp ${join(parent, "lock.json")} package-lock.json\n`, {
      mode: 0o755,
    });
    const init = await runTsop(["init", dir, "--domain", "example.com"], {
      env: { PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    expect(init.exitCode, init.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8"));
    expect(written.packages["node_modules/vite"].optionalDependencies).toEqual({ fsevents: "~2.3.3" });
    expect(init.stderr).toContain("napi-windows-process-start-time (an optional dependency of vite@8.4.0)");
    expect(init.stderr).toContain("npm ci");
  }, 60_000);
});
