// "Generate + build if stale" for `run local` and `image build`: the project's own `npm run build`
// (what `tsop init` writes: `tsop generate && tsc`), run only when a source is newer than the
// compiled entry point.
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

interface Newest {
  path: string;
  mtimeMs: number;
}

async function newestUnder(dir: string): Promise<Newest | undefined> {
  let newest: Newest | undefined;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory()
      ? SKIP_DIRS.has(entry.name)
        ? undefined
        : await newestUnder(path)
      : await mtime(path).then((mtimeMs) => (mtimeMs === undefined ? undefined : { path, mtimeMs }));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/**
 * Why the compiled entry point is stale: the file under src/ or among `inputs` newer than it (the
 * newest one), or the entry itself when it is missing; undefined when it is up to date.
 */
export async function staleBecause(
  root: string,
  entry: string,
  inputs: readonly string[] = BUILD_INPUTS,
): Promise<string | undefined> {
  const built = await mtime(join(root, entry));
  if (built === undefined) return join(root, entry);
  let newest = await newestUnder(join(root, "src"));
  for (const file of inputs) {
    const path = join(root, file);
    const mtimeMs = await mtime(path);
    if (mtimeMs !== undefined && (!newest || mtimeMs > newest.mtimeMs)) newest = { path, mtimeMs };
  }
  return newest && newest.mtimeMs > built ? newest.path : undefined;
}

/** Whether the compiled entry point is missing or older than a source or build file. */
export async function isStale(root: string, entry: string): Promise<boolean> {
  return (await staleBecause(root, entry)) !== undefined;
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
