// The start-up fast path (src/cli/fast-path.ts): `tsop --help`, `-h`, `--version` and `version`
// print what the full CLI prints, without loading it. Node says what was loaded: NODE_DEBUG=esm logs
// every ES module it loads, and the CLI is dist/cli/tsop.js (the shell, with commander bundled in).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";

const CLI_LOADED = /file:\/\/\S*\/dist\/cli\/tsop\.js\b/;

async function tsop(args: string[]) {
  const run = await runTsop(args, { env: { NODE_DEBUG: "esm" } });
  expect(run.exitCode, run.stderr).toBe(0);
  return { stdout: run.stdout, cliLoaded: CLI_LOADED.test(run.stderr) };
}

describe("start-up fast path", () => {
  it("--help and -h print the CLI's own help without loading the CLI", async () => {
    // `tsop help` is commander's help command: the full CLI, the same text.
    const full = await tsop(["help"]);
    expect(full.cliLoaded).toBe(true);
    expect(full.stdout).toContain("Usage: tsop");
    for (const flag of ["--help", "-h"]) {
      const fast = await tsop([flag]);
      expect(fast.stdout).toBe(full.stdout);
      expect(fast.cliLoaded).toBe(false);
    }
  });

  it("--version and version print what the CLI prints without loading it", async () => {
    const { version } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, "utf8")) as { version: string };
    const fastFlag = await tsop(["--version"]);
    expect(fastFlag).toEqual({ stdout: `${version}\n`, cliLoaded: false });
    const fullFlag = await tsop(["--version", "--quiet"]);
    expect(fullFlag).toEqual({ stdout: `${version}\n`, cliLoaded: true });

    const fast = await tsop(["version"]);
    const full = await tsop(["version", "-o", "text"]);
    expect(full.cliLoaded).toBe(true);
    expect(fast).toEqual({ stdout: full.stdout, cliLoaded: false });
    expect(fast.stdout).toMatch(new RegExp(`^tsop ${version.replaceAll(".", "\\.")}\nnode v`));
  });
});
