// The CLI's code cache (src/cli/load-cli.ts): kept per command in the project's
// node_modules/.cache/tsop/cli/, written once after a command succeeds, reused (never rewritten)
// while V8 accepts it, written again when V8 rejects it, never outside a project, and the command's
// output the same in every case. A file V8 rejected is rewritten and a file it accepted is not, so
// "left untouched" below is V8's own verdict that the cache was used.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

const ARGS = ["completion", "bash"];

async function completion(cwd: string): Promise<string> {
  const run = await runTsop(ARGS, { cwd });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stderr).toBe("");
  return run.stdout;
}

/** The cache files of the project at `dir`, by name. */
function cacheFiles(dir: string): string[] {
  const cli = join(dir, "node_modules/.cache/tsop/cli");
  return existsSync(cli) ? readdirSync(cli).sort() : [];
}

function identity(file: string) {
  const stat = statSync(file);
  return { ino: stat.ino, mtimeMs: stat.mtimeMs, bytes: readFileSync(file).toString("base64") };
}

describe("the CLI's code cache", () => {
  it("is written once in a project, then used as it is; the output is the same without it", async () => {
    const outside = await testdir();
    const expected = await completion(outside);
    expect(existsSync(join(outside, "node_modules"))).toBe(false);

    const project = await testdir();
    await mkdir(join(project, "node_modules"));
    expect(await completion(project)).toBe(expected);
    const [file, ...others] = cacheFiles(project);
    expect(others).toEqual([]);
    expect(file).toMatch(/^completion-\d+\.\d+\.\d+.*-\d+-\d+\.v8$/);
    const path = join(project, "node_modules/.cache/tsop/cli", file!);
    const written = identity(path);

    expect(await completion(project)).toBe(expected);
    expect(identity(path)).toEqual(written);
  });

  it("a damaged file: the output is the same and the file is written again, then used", async () => {
    const project = await testdir();
    await mkdir(join(project, "node_modules"));
    const expected = await completion(project);
    const [file] = cacheFiles(project);
    const path = join(project, "node_modules/.cache/tsop/cli", file!);
    const good = readFileSync(path);
    // The same length, every byte after V8's header flipped.
    const damaged = Buffer.from(good.map((byte, i) => (i < 32 ? byte : byte ^ 0xff)));
    writeFileSync(path, damaged);

    expect(await completion(project)).toBe(expected);
    const rewritten = identity(path);
    expect(Buffer.from(rewritten.bytes, "base64").equals(damaged)).toBe(false);
    expect(await completion(project)).toBe(expected);
    expect(identity(path)).toEqual(rewritten);
  });

  it("writing a file removes other builds' files and keeps other commands' files", async () => {
    const project = await testdir();
    const dir = join(project, "node_modules/.cache/tsop/cli");
    await mkdir(dir, { recursive: true });
    await completion(project);
    const [file] = cacheFiles(project);
    const build = file!.slice("completion-".length);
    writeFileSync(join(dir, `completion-0.0.1-1-1.v8`), "an older tsop's cache");
    writeFileSync(join(dir, `version-${build}`), "another command's cache");
    writeFileSync(join(dir, `completion-${build}`), "damaged");

    await completion(project);
    expect(cacheFiles(project)).toEqual([`completion-${build}`, `version-${build}`]);
  });

  it("a failed command leaves no file; a cache that cannot be written costs nothing but its time", async () => {
    const project = await testdir();
    await mkdir(join(project, "node_modules"));
    const failed = await runTsop(["frobnicate"], { cwd: project });
    expect(failed.exitCode).not.toBe(0);
    expect(cacheFiles(project)).toEqual([]);

    // node_modules/.cache/tsop/cli is a file: no directory can be made there.
    await mkdir(join(project, "node_modules/.cache/tsop"), { recursive: true });
    writeFileSync(join(project, "node_modules/.cache/tsop/cli"), "not a directory");
    const expected = await completion(await testdir());
    expect(await completion(project)).toBe(expected);
    expect(readFileSync(join(project, "node_modules/.cache/tsop/cli"), "utf8")).toBe("not a directory");
  });
});
