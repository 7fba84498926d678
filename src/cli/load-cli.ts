// Loads the CLI, dist/cli/tsop.cjs (one CommonJS file, scripts/bundle-cli.mjs), with V8's code
// cache: compiling the CLI's code was the largest single cost of a short command (with the cache
// `tsop bundle` took 125 ms instead of 155), and Node 20 gives a code cache only to scripts compiled
// by node:vm. The cache is kept per command in the project, node_modules/.cache/tsop/cli/ of the
// working directory, and only where node_modules already exists (tsop never creates it): outside a
// project nothing is read or written. After a command that succeeded, the code V8 compiled for it
// (every function it ran) is saved when the cache was missing or V8 rejected it (another Node, other
// flags, a damaged file); a cache V8 accepted is never rewritten. A file is named by the CLI build
// it belongs to (version, size and modification time of tsop.cjs: V8 itself checks only the
// source's length), and writing one removes the files of other builds.
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cachedDataVersionTag, setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { tsopVersion } from "../common/version.js";
import { readCodeCache, readScriptSource, writeCodeCache } from "../common/v8-code-cache.js";
import { PROCESS_V8_FLAGS } from "../common/v8-flags.js";

/** What dist/cli/tsop.cjs exports (src/cli/main.ts). */
export interface Cli {
  run(argv: readonly string[]): Promise<number>;
}

export interface LoadedCli {
  cli: Cli;
  /**
   * Saves the code V8 compiled for the command, when it succeeded (a typo or a failure part-way
   * leaves no file, or one holding part of what the command runs) and the cache did not hold it.
   */
  saveCodeCache(exitCode: number): void;
}

const CLI_FILE = fileURLToPath(new URL("./tsop.cjs", import.meta.url));

/** The CLI's parameters besides CommonJS's: `importExternal`, a real import() (see the build script). */
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname, importExternal) { ";
const WRAPPER_TAIL = "\n})";

export function loadCli(argv: readonly string[]): LoadedCli {
  // Before anything is compiled: V8 accepts a code cache only under the flags it was made with.
  setFlagsFromString(PROCESS_V8_FLAGS);
  const flagsTag = cachedDataVersionTag();
  const cacheFile = codeCacheFile(argv);
  const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile);
  const script = new Script(`${WRAPPER_HEAD}${readScriptSource(CLI_FILE)}${WRAPPER_TAIL}`, {
    filename: CLI_FILE,
    ...(cachedData ? { cachedData } : {}),
  });
  const reused = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as Cli };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const importExternal = (specifier: string) => import(specifier);
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(CLI_FILE),
    module,
    CLI_FILE,
    dirname(CLI_FILE),
    importExternal,
  );
  let saved = reused;
  return {
    cli: module.exports,
    saveCodeCache(exitCode) {
      if (saved || exitCode !== 0 || cacheFile === undefined) return;
      // A command that changed V8's flags would save code no later run accepts.
      if (cachedDataVersionTag() !== flagsTag) return;
      saved = true;
      saveFile(cacheFile, script.createCachedData());
    },
  };
}

/**
 * node_modules/.cache/tsop/cli/<command>-<build>.v8 in the working directory, or undefined when it
 * has no node_modules. One file per command (its first word): each holds what its command runs.
 */
function codeCacheFile(argv: readonly string[]): string | undefined {
  const modules = join(process.cwd(), "node_modules");
  try {
    if (!statSync(modules).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const first = argv[0];
  const command = first !== undefined && /^[a-z][a-z-]{0,30}$/.test(first) ? first : "other";
  return join(modules, ".cache", "tsop", "cli", `${command}-${buildId()}.v8`);
}

/** The CLI build: version, size and modification time of tsop.cjs (a rebuild changes the time). */
function buildId(): string {
  const stat = statSync(CLI_FILE);
  return `${tsopVersion()}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
}

/** Writes the cache file, first removing other builds' files from its directory. */
function saveFile(file: string, data: Buffer): void {
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true });
    const suffix = `-${buildId()}.v8`;
    for (const name of readdirSync(dir)) {
      if (name.endsWith(".v8") && !name.endsWith(suffix)) rmSync(join(dir, name), { force: true });
    }
  } catch {
    return; // no directory there: only a cache
  }
  writeCodeCache(file, data);
}
