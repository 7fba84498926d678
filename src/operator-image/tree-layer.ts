// A reproducible gzip layer from directories of the project: entries sorted, every mtime the same
// (SOURCE_DATE_EPOCH or 0), uid/gid 0 with no user names, modes reduced to 0755/0644, symlinks kept
// only when they stay inside their tree. The same files give the same bytes, hence the same digest.
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, posix } from "node:path";
import { gzipSync } from "node:zlib";
import { InvalidInputError } from "../common/errors.js";
import { comparePaths } from "../oci/bundle-image.js";
import { type TarEntry, writeDeterministicTar } from "../oci/deterministic-tar.js";
import { sha256Digest } from "../oci/digest.js";

/** One directory or file of the project and where it goes in the image (no leading slash). */
export interface TreeSource {
  from: string;
  to: string;
}

export interface BuiltLayer {
  /** The gzip-compressed tar. */
  blob: Buffer;
  digest: string;
  /** Digest of the uncompressed tar (config rootfs.diff_ids). */
  diffId: string;
  /** Paths in the layer, in order. */
  files: string[];
}

function unsafeLink(path: string, target: string): InvalidInputError {
  return new InvalidInputError(`${path} is a symlink to ${target}, outside the directory being packed`, {
    location: { file: path },
    hint: "An image holds only what the project ships; replace the link with a copy of its target.",
  });
}

async function walk(from: string, to: string, entries: TarEntry[], top: string): Promise<void> {
  const info = await lstat(from);
  if (info.isSymbolicLink()) {
    const target = await readlink(from);
    const resolved = posix.normalize(posix.join(posix.dirname(to), target));
    if (posix.isAbsolute(target) || !(resolved === top || resolved.startsWith(`${top}/`))) {
      throw unsafeLink(from, target);
    }
    entries.push({ path: to, type: "symlink", mode: 0o777, linkname: target });
  } else if (info.isDirectory()) {
    entries.push({ path: to, type: "directory", mode: 0o755 });
    for (const name of await readdir(from)) await walk(join(from, name), `${to}/${name}`, entries, top);
  } else if (info.isFile()) {
    const mode = info.mode & 0o111 ? 0o755 : 0o644;
    entries.push({ path: to, type: "file", mode, content: await readFile(from) });
  } else {
    throw new InvalidInputError(`${from} is not a regular file, directory or symlink`, {
      location: { file: from },
      hint: "Remove it from the directories the image is built from.",
    });
  }
}

/** The parent directories of `path` ("app/dist" → ["app"]). */
function parents(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Packs the sources into one layer; missing optional sources are skipped by the caller. */
export async function buildTreeLayer(
  sources: readonly TreeSource[],
  epochSeconds: number,
): Promise<BuiltLayer> {
  const entries: TarEntry[] = [];
  const dirs = new Set<string>();
  for (const source of sources) {
    for (const dir of parents(source.to)) dirs.add(dir);
    await walk(source.from, source.to, entries, source.to);
  }
  for (const dir of dirs) {
    if (!entries.some((e) => e.path === dir)) entries.push({ path: dir, type: "directory", mode: 0o755 });
  }
  entries.sort((a, b) => comparePaths(a.path, b.path));
  const tar = await writeDeterministicTar(entries, new Date(epochSeconds * 1000));
  const blob = gzipSync(tar, { level: 6 });
  return { blob, digest: sha256Digest(blob), diffId: sha256Digest(tar), files: entries.map((e) => e.path) };
}
