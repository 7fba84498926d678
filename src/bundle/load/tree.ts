// The files of a bundle as the loader sees them: a directory on disk read safely, or files held in
// memory (the bundle `tsop bundle` is about to write). On disk every path is resolved (realpath)
// before use and refused when it leaves the bundle root, loops, or is anything but a regular file
// with one name; sizes and counts are bounded before anything is read.
import { constants } from "node:fs";
import { lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { TsopError } from "../../common/errors.js";
import { specialFileKind } from "../../common/file-kind.js";
import type { TreeLimits } from "../../common/tree-limits.js";

export interface TreeEntry {
  name: string;
  kind: "file" | "directory";
}

/** A bundle's files, addressed by slash-separated paths relative to the bundle root. */
export interface BundleTree {
  /** Names the bundle in messages (a directory, an image reference). */
  label: string;
  /** Entries of a directory, sorted by name; undefined when it does not exist. */
  list(dir: string): Promise<TreeEntry[] | undefined>;
  read(file: string): Promise<Buffer>;
}

export const DEFAULT_TREE_LIMITS: TreeLimits = {
  maxEntries: 10_000,
  maxFileBytes: 32 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
};

/** A bundle file or directory the loader refuses to read (escapes, loops, devices, limits). */
export class UnsafeBundleError extends TsopError {}

const LINK_HINT =
  "A bundle holds regular files inside its own directory only. Replace links with copies of the files.";
const SIZE_HINT =
  "A bundle must fit in a container image layer OLM unpacks into a ConfigMap: make the file smaller (an icon of a few KiB, no data files).";

function refuse(label: string, file: string, reason: string, hint = LINK_HINT): UnsafeBundleError {
  return new UnsafeBundleError(`bundle ${label}: ${file} ${reason}; refusing to read the bundle`, {
    location: { file },
    hint,
  });
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** A bundle directory on disk. Fails when `dir` is not a directory. */
export async function directoryTree(
  dir: string,
  label: string,
  limits: TreeLimits = DEFAULT_TREE_LIMITS,
): Promise<BundleTree> {
  const root = await realpath(dir);
  let totalBytes = 0;

  /** The real path of a bundle path, refused when a link leads outside the root or loops. */
  const resolveInside = async (file: string): Promise<string | undefined> => {
    let real: string;
    try {
      real = await realpath(join(root, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        // A dangling link is refused; a missing file is simply absent.
        if ((await lstat(join(root, file)).catch(() => undefined))?.isSymbolicLink())
          throw refuse(label, file, "is a symlink to nothing");
        return undefined;
      }
      if (code === "ELOOP") throw refuse(label, file, "is a symlink loop (a link that leads back to itself)");
      throw refuse(label, file, `cannot be resolved (${code ?? (error as Error).message})`);
    }
    if (!inside(root, real)) throw refuse(label, file, "is a symlink that leads outside the bundle");
    return real;
  };

  return {
    label,
    async list(dirPath) {
      const real = await resolveInside(dirPath);
      if (!real || !(await stat(real)).isDirectory()) return undefined;
      const names = (await readdir(real)).sort();
      if (names.length > limits.maxEntries)
        throw refuse(
          label,
          `${dirPath}/`,
          `holds ${names.length} entries, more than the limit of ${limits.maxEntries}`,
          "A bundle holds its manifests, metadata and tests only: move other files out of it.",
        );
      const entries: TreeEntry[] = [];
      for (const name of names) {
        const file = `${dirPath}/${name}`;
        const target = await resolveInside(file);
        if (!target) throw refuse(label, file, "disappeared while the bundle was read");
        const info = await stat(target);
        if (info.isDirectory()) entries.push({ name, kind: "directory" });
        else if (info.isFile()) entries.push({ name, kind: "file" });
        else throw refuse(label, file, `is a ${kindOf(info)}; a bundle holds regular files only`);
      }
      return entries;
    },
    async read(file) {
      const real = await resolveInside(file);
      if (!real) throw refuse(label, file, "is missing");
      // O_NOFOLLOW | O_NONBLOCK: the resolved path is no link, and a FIFO swapped in cannot block.
      const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const info = await handle.stat();
        if (!info.isFile())
          throw refuse(label, file, `is a ${kindOf(info)}; a bundle holds regular files only`);
        if (info.nlink > 1)
          throw refuse(label, file, `is a hard link (${info.nlink} names); a bundle file has one name`);
        if (info.size > limits.maxFileBytes)
          throw refuse(
            label,
            file,
            `is ${info.size} bytes, more than the limit of ${limits.maxFileBytes}`,
            SIZE_HINT,
          );
        totalBytes += info.size;
        if (totalBytes > limits.maxTotalBytes)
          throw refuse(label, file, `takes the bundle past ${limits.maxTotalBytes} bytes`, SIZE_HINT);
        const buffer = Buffer.alloc(info.size);
        const { bytesRead } = await handle.read(buffer, 0, info.size, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}

const kindOf = specialFileKind;

/** Files held in memory (path → content), e.g. the bundle `tsop bundle` renders before writing. */
export function memoryTree(files: ReadonlyMap<string, string | Buffer>, label: string): BundleTree {
  return {
    label,
    async list(dirPath) {
      const prefix = `${dirPath}/`;
      const names = new Map<string, TreeEntry["kind"]>();
      for (const path of files.keys()) {
        if (!path.startsWith(prefix)) continue;
        const [name, ...rest] = path.slice(prefix.length).split("/");
        if (name) names.set(name, rest.length > 0 ? "directory" : "file");
      }
      if (names.size === 0) return undefined;
      return [...names].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, kind]) => ({ name, kind }));
    },
    async read(file) {
      const content = files.get(file);
      if (content === undefined) throw refuse(label, file, "is missing");
      return Buffer.from(content);
    },
  };
}
