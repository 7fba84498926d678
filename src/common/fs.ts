// The one way src/ touches a CLI's files: node:fs/promises' API, done synchronously, plus atomic
// writes. The CLI reads and writes a project's small local files and has nothing else to do
// meanwhile: each asynchronous call is a round trip through libuv's thread pool that the process
// only waits for (~15 ms of idle in a `tsop bundle` that reads its config tree and commits 11
// files). These keep the promise API, so callers and their error handling (`.catch`, rejections in
// try/await) read as with fs/promises. For paths only, never FileHandles. Code that streams blobs or
// serves the network while it touches files (oci/, operator-image/, bundle/load/, testing/,
// runtime/) uses node:fs/promises itself; code that is synchronous end to end (codegen's cache)
// calls node:fs's sync functions. scripts/check-architecture.ts holds the rule (FRONTS).
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import type * as fsPromises from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** `call` as a function returning a promise: its throw becomes the rejection, as in fs/promises. */
function promised<T>(call: (...args: never[]) => unknown): T {
  return (async (...args: never[]) => call(...args)) as T;
}

export const access = promised<typeof fsPromises.access>(fs.accessSync);
export const link = promised<typeof fsPromises.link>(fs.linkSync);
export const lstat = promised<typeof fsPromises.lstat>(fs.lstatSync);
export const mkdir = promised<typeof fsPromises.mkdir>(fs.mkdirSync);
export const readdir = promised<typeof fsPromises.readdir>(fs.readdirSync);
export const readFile = promised<typeof fsPromises.readFile>(fs.readFileSync);
// The native realpath, as fs/promises uses (realpathSync alone is a JavaScript walk).
export const realpath = promised<typeof fsPromises.realpath>(fs.realpathSync.native);
export const rename = promised<typeof fsPromises.rename>(fs.renameSync);
export const rm = promised<typeof fsPromises.rm>(fs.rmSync);
export const rmdir = promised<typeof fsPromises.rmdir>(fs.rmdirSync);
export const stat = promised<typeof fsPromises.stat>(fs.statSync);
export const writeFile = promised<typeof fsPromises.writeFile>(fs.writeFileSync);

// Atomic file writes: write a sibling temp file, then rename over the target, so a crash or an
// error never leaves a half-written file behind.

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
