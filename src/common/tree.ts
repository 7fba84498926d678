// Reads a directory tree into memory (relative path with "/" → UTF-8 text); a missing directory
// reads as empty. Symbolic links and special files are skipped.
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

export async function readTreeFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
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
        out.set(relative(dir, full).split("\\").join("/"), await readFile(full, "utf8"));
    }
  }
  await visit(dir);
  return out;
}
