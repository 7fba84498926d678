// V8's code cache for the TypeScript compiler: typescript.js is 9 MB of JavaScript, and compiling
// it costs ~0.1 s of each analysis. When generate names a cache file before the compiler loads
// (useCodeCache), typescript.js is compiled with the code V8 saved there by an earlier analysis,
// and after this analysis the code (now including every function the analysis ran) is saved for
// the next. V8 checks the data against the source and rejects what does not fit (another
// TypeScript or Node version): the compiler then compiles as usual and the file is written again.
import { isAscii } from "node:buffer";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";

const require = createRequire(import.meta.url);

let cacheFile: string | undefined;
let loaded: { script: Script; reused: boolean } | undefined;

/** Where the code cache is kept; call before the compiler is first imported. */
export function useCodeCache(file: string): void {
  cacheFile = file;
}

/**
 * V8 optimises a function once it has run a budget of bytecode (--interrupt-budget, 66 KB). In a
 * process that parses, binds and walks a project once and exits, much of that optimising, on a
 * second thread, is spent on compiler functions that are done before the optimised code is ready:
 * four times the budget cut an analysis's CPU time by a quarter to a third (docs/generate.md). Set
 * before the compiler loads, by every analysis alike (`tsop generate`, and the generate that
 * bundle, install, run local and deploy run first): V8 rejects a code cache made under other flags,
 * so analyses with different flags would throw away each other's cache.
 */
const ANALYSIS_V8_FLAGS = "--interrupt-budget=270336";

/** The TypeScript module: through the code cache when one was named, else a plain require(). */
export function loadTypeScript(): unknown {
  setFlagsFromString(ANALYSIS_V8_FLAGS);
  if (cacheFile === undefined) return require("typescript");
  const filename = require.resolve("typescript");
  const cachedData = readOrUndefined(cacheFile);
  const script = new Script(
    (Module as unknown as { wrap(code: string): string }).wrap(readSource(filename)),
    {
      filename,
      ...(cachedData ? { cachedData } : {}),
    },
  );
  loaded = { script, reused: cachedData !== undefined && !script.cachedDataRejected };
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(filename), module, filename, dirname(filename));
  return module.exports;
}

/**
 * Saves the compiler's code for the next analysis, unless it came from a usable cache already;
 * once per process (a process that analyses several projects loads the compiler once).
 */
export function saveCodeCache(): void {
  if (cacheFile === undefined || loaded === undefined || loaded.reused) return;
  loaded.reused = true;
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, loaded.script.createCachedData());
    renameSync(temp, cacheFile);
  } catch {
    // Only a cache: a read-only or full disk costs the next run its compile time, nothing else.
    rmSync(temp, { force: true });
  }
}

/**
 * typescript.js's text. The published file is pure ASCII, which decodes as Latin-1 several times
 * faster than through the UTF-8 decoder (~20 ms of each analysis); any other text is decoded as UTF-8.
 */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
