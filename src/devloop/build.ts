// "Generate + build if stale" for `run local`: the project's own `npm run build` (what `tsop init`
// writes: `tsop generate && tsc`), run only when a source is newer than the compiled entry point.
import { readdir, readFile, stat } from "../common/fs.js";
import { join } from "node:path";
import { errorFrom, TsopError } from "../common/errors.js";
import { messages } from "./messages.js";

/** Files whose change makes the build stale, besides everything under src/. */
const BUILD_INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json", "PROJECT"];
const SKIP_DIRS = new Set(["node_modules", ".git"]);

async function mtime(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

async function newestUnder(dir: string): Promise<number> {
  let newest = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) newest = Math.max(newest, await newestUnder(path));
    } else newest = Math.max(newest, (await mtime(path)) ?? 0);
  }
  return newest;
}

/** Whether the compiled entry point is missing or older than a source or build file. */
export async function isStale(root: string, entry: string): Promise<boolean> {
  const built = await mtime(join(root, entry));
  if (built === undefined) return true;
  let newest = await newestUnder(join(root, "src"));
  for (const file of BUILD_INPUTS) newest = Math.max(newest, (await mtime(join(root, file))) ?? 0);
  return newest > built;
}

/** Runs `npm run build` in the project; on failure the error carries the build's output. */
export async function runBuild(root: string, signal?: AbortSignal): Promise<void> {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8").catch(() => "{}")) as {
    scripts?: Record<string, string>;
  };
  if (!pkg.scripts?.build) {
    throw errorFrom(messages.noBuildScript());
  }
  const { execa } = await import("execa");
  const result = await execa("npm", ["run", "build", "--silent"], {
    cwd: root,
    all: true,
    reject: false,
    cancelSignal: signal,
    env: { npm_config_update_notifier: "false" },
  });
  if (result.exitCode !== 0) {
    const m = messages.buildFailed(result.exitCode);
    const output = String(result.all ?? "").trim();
    throw new TsopError(`${m.message}${output ? `:\n${output}` : ""}`, { hint: m.hint });
  }
}
