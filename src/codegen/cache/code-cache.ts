// V8's code cache for the TypeScript compiler: typescript.js is 9 MB of JavaScript (3.6 MB as the
// minified copy compiler-source.ts picks), and compiling it costs ~0.1 s of each analysis. When
// generate names a cache file before the compiler loads (useCodeCache), the compiler is compiled
// with the code V8 saved there by an earlier analysis, and after this analysis the code (now
// including every function the analysis ran) is saved for the next. V8 checks the data against the
// source and rejects what does not fit (another TypeScript or Node version): the compiler then
// compiles as usual and the file is written again.
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { readCodeCache, readScriptSource, writeCodeCache } from "../../common/v8-code-cache.js";
import { PROCESS_V8_FLAGS } from "../../common/v8-flags.js";
import type { CompilerSource } from "../compiler-source.js";

let cacheFile: string | undefined;
let loaded: { script: Script; reused: boolean } | undefined;

/** Where the code cache is kept; call before the compiler is first imported. */
export function useCodeCache(file: string): void {
  cacheFile = file;
}

/**
 * The TypeScript module, compiled from `source` (compiler-source.ts) with the code cache when one
 * was named, and run as CommonJS would run typescript.js.
 */
export function loadTypeScript(source: CompilerSource): unknown {
  // A no-op under the CLI, which set them at start (common/v8-flags.ts says why).
  setFlagsFromString(PROCESS_V8_FLAGS);
  const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile);
  const script = new Script(
    (Module as unknown as { wrap(code: string): string }).wrap(readScriptSource(source.text)),
    {
      filename: source.text,
      ...(cachedData ? { cachedData } : {}),
    },
  );
  loaded = { script, reused: cachedData !== undefined && !script.cachedDataRejected };
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const filename = source.module;
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
  writeCodeCache(cacheFile, loaded.script.createCachedData());
}
