// node:fs/promises' file calls, done synchronously. The CLI reads and writes a project's small
// local files and has nothing else to do meanwhile: each asynchronous call is a round trip through
// libuv's thread pool that the process only waits for (~15 ms of idle in a `tsop bundle` that reads
// its config tree and commits 11 files). These keep the promise API, so callers and their error
// handling (`.catch`, rejections in try/await) stay as they are. For paths only, never FileHandles;
// the operator runtime, which serves the network while it works, does not use them.
import * as fs from "node:fs";
import type * as fsPromises from "node:fs/promises";

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
export const stat = promised<typeof fsPromises.stat>(fs.statSync);
export const writeFile = promised<typeof fsPromises.writeFile>(fs.writeFileSync);
