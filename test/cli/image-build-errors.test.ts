// `tsop image build` where the first hour goes wrong, through the built CLI: a base it cannot reach
// (no internet to gcr.io; a proxy that refuses stands in for it, so the test never leaves the
// machine) names --base and TSOP_IMAGE_BASE; a production dependency on a directory (`init
// --tsop-dependency file:/path`) is refused before npm runs, saying how to depend on a packed copy;
// a source edited after the last build is built first (npm run build, as ko compiles), naming the
// file, and a failing build ships nothing.
import { mkdir, readFile, utimes } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

/** A built project with no dependencies: enough for image build to reach the base. */
function project(dependencies: Record<string, string> = {}) {
  return testdir({
    "dist/main.js": "console.log('operator');\n",
    "package.json": JSON.stringify({ name: "op", version: "0.0.1", dependencies }),
    "package-lock.json": JSON.stringify({ name: "op", lockfileVersion: 3, packages: { "": { name: "op" } } }),
  });
}

// Port 9 (discard) on the loopback: nothing listens, so every connection is refused at once.
const REFUSING = "127.0.0.1:9";

describe("tsop image build: the way out is named", () => {
  it("the default base unreachable: the error names --base and TSOP_IMAGE_BASE", async () => {
    const dir = await project();
    const result = await runTsop(["image", "build", "--push", "127.0.0.1:5999/op:v1"], {
      cwd: dir,
      env: { HTTPS_PROXY: `http://${REFUSING}`, NO_PROXY: "", TSOP_IMAGE_BASE: "" },
    });
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain("error: cannot read the base image: cannot reach gcr.io");
    expect(result.stderr).toContain(
      "tsop's default base is gcr.io/distroless/nodejs20-debian12:nonroot@sha256:",
    );
    expect(result.stderr).toContain("pass --base <ref> or set TSOP_IMAGE_BASE");
  });

  it("a base given by TSOP_IMAGE_BASE unreachable: the error says how to pick another", async () => {
    const dir = await project();
    const result = await runTsop(
      ["image", "build", "--push", "127.0.0.1:5999/op:v1", `--plain-http=${REFUSING}`],
      { cwd: dir, env: { TSOP_IMAGE_BASE: `${REFUSING}/node:20` } },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(`error: cannot read the base image: cannot reach ${REFUSING}`);
    expect(result.stderr).toContain("pass another --base <ref> (or set TSOP_IMAGE_BASE without --base)");
  });

  it("a file: dependency on a directory is refused before npm runs, with the packed-copy way", async () => {
    const parent = await testdir();
    const tsopDir = join(parent, "tsop");
    await mkdir(tsopDir);
    const dir = await project({ tsop: `file:${tsopDir}` });
    const result = await runTsop(
      ["image", "build", "--base", `${REFUSING}/node:20`, "--push", "127.0.0.1:5999/op:v1"],
      {
        cwd: dir,
      },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      `error: ${join(dir, "package.json")}: the dependency tsop is "file:${tsopDir}", a directory on this machine`,
    );
    expect(result.stderr).toContain(`npm pack ${tsopDir} --pack-destination vendor`);
    expect(result.stderr).not.toContain("npm error");
    expect(result.stderr).not.toContain("cannot reach"); // refused before the base is read
  });

  it("a source newer than dist/ is built first (npm run build), naming it; a failing build ships nothing", async () => {
    const build = (script: string) =>
      testdir({
        "dist/main.js": "console.log('old');\n",
        "dist/controllers/widget.js": "export {};\n",
        "src/main.ts": "console.log('new');\n",
        "src/controllers/widget.ts": "export {};\n",
        "tsconfig.json": "{}\n",
        "package.json": JSON.stringify({ name: "op", version: "0.0.1", scripts: { build: script } }),
        "package-lock.json": JSON.stringify({
          name: "op",
          lockfileVersion: 3,
          packages: { "": { name: "op" } },
        }),
      });
    const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1000);
    /** Built at 10 s; the reconciler edited at 20 s, dist/ not rebuilt. */
    const edited = async (dir: string) => {
      for (const file of ["src/main.ts", "tsconfig.json", "package.json"])
        await utimes(join(dir, file), at(0), at(0));
      for (const file of ["dist/main.js", "dist/controllers/widget.js"])
        await utimes(join(dir, file), at(10), at(10));
      await utimes(join(dir, "src/controllers/widget.ts"), at(20), at(20));
      return dir;
    };
    const imageBuild = (cwd: string, ...flags: string[]) =>
      runTsop(
        ["image", "build", "--base", `${REFUSING}/node:20`, "--push", "127.0.0.1:5999/op:v1", ...flags],
        {
          cwd,
        },
      );

    const dir = await edited(
      await build(`node -e "require('fs').writeFileSync('dist/main.js', 'compiled\\n')"`),
    );
    const built = await imageBuild(dir);
    expect(built.stderr).toContain(
      "building the operator (npm run build): src/controllers/widget.ts is newer than dist/main.js",
    );
    expect(await readFile(join(dir, "dist/main.js"), "utf8")).toBe("compiled\n");
    expect(built.stderr).toContain("cannot reach"); // then on to the base
    // Up to date now: no second build.
    const again = await imageBuild(dir);
    expect(again.stderr).not.toContain("npm run build");

    const failing = await edited(
      await build("echo 'src/controllers/widget.ts(1,1): error TS1005' >&2; exit 2"),
    );
    const failed = await imageBuild(failing);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("npm run build failed");
    expect(failed.stderr).toContain("error TS1005");
    expect(failed.stderr).not.toContain("cannot reach"); // nothing read, nothing pushed
    expect(failed.stdout).toBe("");

    // --no-build: dist/ as it is.
    const skipped = await imageBuild(failing, "--no-build");
    expect(skipped.stderr).not.toContain("npm run build");
    expect(skipped.stderr).toContain("cannot reach");
  }, 120_000); // five CLI runs and two npm runs: past the default 30 s on a loaded machine
});
