// Writes the bundle directory all at once: the new tree is assembled in a sibling temp dir and
// swapped in by rename, so a failure leaves the old bundle untouched. Files tsop no longer
// produces under manifests/ are dropped (and reported); user files elsewhere are carried over.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";

export interface WriteResult {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

export async function readTreeFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function visit(current: string): Promise<void> {
    let entries: import("node:fs").Dirent[];
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

/** Is this a file tsop owns in the bundle dir (so it is removed when no longer produced)? */
function owned(path: string): boolean {
  return (
    path.startsWith("manifests/") ||
    path === "metadata/annotations.yaml" ||
    path === "tests/scorecard/config.yaml"
  );
}

export async function writeBundleDir(
  dir: string,
  files: Map<string, string>,
  previous: Map<string, string>,
): Promise<WriteResult> {
  const result: WriteResult = { created: [], updated: [], unchanged: [], removed: [] };
  const final = new Map(files);
  for (const [path, content] of previous) {
    if (final.has(path)) continue;
    if (owned(path)) result.removed.push(path);
    else final.set(path, content);
  }
  for (const [path, content] of files) {
    const old = previous.get(path);
    if (old === undefined) result.created.push(path);
    else if (old === content) result.unchanged.push(path);
    else result.updated.push(path);
  }
  for (const list of Object.values(result)) (list as string[]).sort();
  if (result.created.length === 0 && result.updated.length === 0 && result.removed.length === 0)
    return result;

  const tag = randomBytes(6).toString("hex");
  const temp = join(dirname(dir), `.${basename(dir)}.tmp-${tag}`);
  const old = join(dirname(dir), `.${basename(dir)}.old-${tag}`);
  try {
    for (const [path, content] of [...final].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await mkdir(dirname(join(temp, path)), { recursive: true });
      await writeFile(join(temp, path), content);
    }
    await mkdir(temp, { recursive: true });
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  let moved = false;
  try {
    await rename(dir, old);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
  }
  try {
    await rename(temp, dir);
  } catch (error) {
    if (moved) await rename(old, dir);
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  if (moved) await rm(old, { recursive: true, force: true });
  return result;
}
