// `tsop image build` where the first hour goes wrong, through the built CLI: a base it cannot reach
// (no internet to gcr.io; a proxy that refuses stands in for it, so the test never leaves the
// machine) names --base and TSOP_IMAGE_BASE; a production dependency on a directory (`init
// --tsop-dependency file:/path`) is refused before npm runs, saying how to depend on a packed copy.
import { mkdir } from "node:fs/promises";
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
});
