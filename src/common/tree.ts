// Reads a directory tree into memory (relative path with "/" → content); a missing directory
// reads as empty. A file is text when it is valid UTF-8, else its bytes, so writing the map back
// gives the same bytes (a tarball or an image carried over stays intact). Symbolic links and
// special files are skipped (the output-dir rule refuses a directory that holds them).
import type { Dirent } from "node:fs";
import { readdir, readFile } from "./fs.js";
import { join, relative } from "node:path";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The file's text when its bytes are valid UTF-8 (and so round-trip), else the bytes. */
export function textOrBytes(bytes: Buffer): string | Buffer {
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes;
  }
}

export async function readTreeFiles(dir: string): Promise<Map<string, string | Buffer>> {
  const out = new Map<string, string | Buffer>();
  async function visit(current: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile())
        out.set(relative(dir, full).split("\\").join("/"), textOrBytes(await readFile(full)));
    }
  }
  await visit(dir);
  return out;
}
