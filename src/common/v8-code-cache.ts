// Scripts compiled with V8's code cache (the CLI, src/cli/load-cli.ts; the TypeScript compiler,
// codegen/cache/code-cache.ts): their source, and the cache's files. V8 checks a cache against its version, its flags and the source's
// length, but a release build does not check the bytes of the payload: a damaged file stops the
// process with a fatal error in V8's deserializer. So each file starts with a CRC-32 of the data,
// and a file whose data does not match it is treated as absent (and then written again). Files are
// written whole or not at all (a temporary file renamed), and a failure to write costs only the next
// run's compile time.
import { isAscii } from "node:buffer";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { crc32 } from "node:zlib";

const HEADER_BYTES = 4;

/**
 * A script's text. ASCII (typescript.js as published, the CLI as built) decodes as Latin-1 several
 * times faster than through the UTF-8 decoder (~20 ms for typescript.js); other text as UTF-8.
 */
export function readScriptSource(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** The cached data in `file`, or undefined when it is missing or damaged. */
export function readCodeCache(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES) return undefined;
  const data = bytes.subarray(HEADER_BYTES);
  return bytes.readUInt32LE(0) === crc32(data) ? data : undefined;
}

export function writeCodeCache(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(crc32(data), 0);
  try {
    writeFileSync(temp, Buffer.concat([header, data]));
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
