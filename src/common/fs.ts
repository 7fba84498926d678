// Atomic file writes: write a sibling temp file, then rename over the target, so a crash or an
// error never leaves a half-written file behind.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "./local-fs.js";
import { basename, dirname, join } from "node:path";

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, data, mode === undefined ? undefined : { mode });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    // Name the file the caller asked for in the error, not the hidden temp beside it.
    const failed = error as NodeJS.ErrnoException;
    if (failed.path === temp) failed.path = path;
    throw error;
  }
}

/** Writes several files all-or-nothing as far as the filesystem allows: every temp file first, then renames. */
export async function writeFilesAtomic(
  files: ReadonlyArray<{ path: string; data: string | Uint8Array }>,
): Promise<void> {
  const staged: Array<{ temp: string; path: string }> = [];
  try {
    for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
      await mkdir(dirname(file.path), { recursive: true });
      const temp = join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString("hex")}.tmp`);
      await writeFile(temp, file.data);
      staged.push({ temp, path: file.path });
    }
  } catch (error) {
    await Promise.all(staged.map((s) => rm(s.temp, { force: true })));
    throw error;
  }
  for (const s of staged) await rename(s.temp, s.path);
}
