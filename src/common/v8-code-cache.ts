// Scripts compiled with V8's code cache (the CLI, src/cli/load-cli.ts; the TypeScript compiler,
// codegen/cache/code-cache.ts): their source, and the cache's files. V8 checks a cache against its
// version, its flags, the source's length and (under common/v8-flags.ts) a checksum of its bytes,
// and rejects one that does not fit: the script then compiles as usual and the file is written
// again. Files are written whole or not at all (a temporary file renamed), and a failure to write
// costs only the next run's compile time.
import { isAscii } from "node:buffer";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * A script's text. ASCII (typescript.js as published, the CLI as built) decodes as Latin-1 several
 * times faster than through the UTF-8 decoder (~20 ms for typescript.js); other text as UTF-8.
 */
export function readScriptSource(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** The cached data in `file`, or undefined when there is none. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

export function writeCodeCache(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch {
    // Only a cache: a read-only or full disk costs the next run its compile time, nothing else.
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written (the directory is not one).
    }
  }
}
