// Temporary directories built from inline file trees, removed when the test ends.
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { onTestFinished } from "vitest";

export type FileTree = Record<string, string | Uint8Array>;

/** Creates a temp dir holding `files` (paths relative to it); removed after the current test. */
export async function testdir(files: FileTree = {}, { keep = false } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-test-"));
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  if (!keep) onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under dir (relative paths, sorted) with its content: for "nothing was written" checks. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function visit(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") await visit(full);
      } else out[relative(dir, full)] = await readFile(full, "utf8");
    }
  }
  await visit(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
