// Safe layer extraction. Every entry is checked before anything is written: no absolute paths, no
// "..", no writing through a symlink (each parent must be a real directory), symlinks only to
// places inside the target, hard links only to files already extracted (copied, not linked), no
// device files or FIFOs, and limits on entry count, file size and total (decompressed) size.
// OCI whiteouts (.wh.<name>, .wh..wh..opq) from later layers remove earlier content.
import { createWriteStream } from "node:fs";
import { copyFile, lstat, mkdir, readdir, rm, symlink, unlink } from "node:fs/promises";
import { join, posix } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import type { TreeLimits } from "../common/tree-limits.js";
import { UnsafeArchiveError } from "./errors.js";
import type { LayerCompression } from "./media-types.js";

export const DEFAULT_EXTRACT_LIMITS: TreeLimits = {
  maxEntries: 10_000,
  maxFileBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
};

export interface ExtractState {
  entries: number;
  bytes: number;
}

export interface ExtractOptions {
  limits: TreeLimits;
  state: ExtractState;
  /** Top-level directories to extract; entries elsewhere are checked, then skipped. */
  include?: readonly string[];
  /** Names the layer in errors ("layer sha256:…"). */
  label: string;
}

const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

/** Path components of an archive name, or the reason it is unsafe. */
function components(name: string): string[] | string {
  if (name.includes("\0")) return "contains a NUL byte";
  if (name.startsWith("/")) return "is an absolute path";
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return "escapes the target directory (..)";
  return parts;
}

/**
 * The layer's tar stream. A gzip layer is inflated while it is read, and the stream fails as soon as
 * more than `limit` bytes came out: a gzip bomb is refused after at most `limit` bytes, chunk by
 * chunk, never held in memory whole.
 */
function inflate(blob: Buffer, compression: LayerCompression, limit: number, label: string): Readable {
  const source = Readable.from([blob]);
  if (compression !== "gzip") return source;
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit)
        callback(new UnsafeArchiveError(`${label} decompresses to more than ${limit} bytes; refusing it`));
      else callback(null, chunk);
    },
  });
  const gunzip = createGunzip();
  gunzip.on("error", (error) =>
    counter.destroy(new UnsafeArchiveError(`${label} is not valid gzip data: ${error.message}`)),
  );
  counter.on("error", () => gunzip.destroy());
  return source.pipe(gunzip).pipe(counter);
}

async function lstatOrUndefined(path: string) {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
}

export async function extractLayer(
  blob: Buffer,
  compression: LayerCompression,
  root: string,
  options: ExtractOptions,
): Promise<void> {
  const extractor = extract();
  const tar = inflate(blob, compression, options.limits.maxTotalBytes, options.label);
  tar.on("error", (error) => extractor.destroy(error));
  tar.pipe(extractor);
  try {
    await unpackEntries(extractor, root, options);
  } finally {
    tar.destroy();
  }
}

async function unpackEntries(extractor: ReturnType<typeof extract>, root: string, options: ExtractOptions) {
  const { limits, state, label } = options;
  const refuse = (name: string, reason: string) => {
    const error = new UnsafeArchiveError(
      `${label}: entry "${name}" ${reason}; refusing to unpack the image`,
      {
        hint: "The image was not built by tsop or a container build; do not trust its content.",
      },
    );
    error.entry = name;
    return error;
  };
  /** mkdir -p inside root, refusing to pass through anything but real directories. */
  const ensureDir = async (parts: readonly string[], name: string): Promise<string> => {
    let current = root;
    for (const part of parts) {
      current = join(current, part);
      const info = await lstatOrUndefined(current);
      if (!info) await mkdir(current, { mode: 0o755 });
      else if (info.isSymbolicLink()) throw refuse(name, `goes through the symlink ${part}`);
      else if (!info.isDirectory()) throw refuse(name, `goes through ${part}, which is not a directory`);
    }
    return current;
  };
  /** Removes what is at a path (a file or link, never following it) before it is replaced. */
  const clear = async (path: string, name: string) => {
    const info = await lstatOrUndefined(path);
    if (!info) return;
    if (info.isDirectory()) throw refuse(name, "would replace a directory");
    await unlink(path);
  };

  for await (const entry of extractor) {
    const header = entry.header;
    const name = header.name;
    const drain = async () => {
      for await (const _ of entry) {
        // discard
      }
    };
    const parts = components(name);
    if (typeof parts === "string") throw refuse(name, parts);
    if (++state.entries > limits.maxEntries)
      throw refuse(name, `is past the limit of ${limits.maxEntries} entries`);
    const size = header.size ?? 0;
    if (size > limits.maxFileBytes)
      throw refuse(name, `is ${size} bytes, more than the limit of ${limits.maxFileBytes}`);
    state.bytes += size;
    if (state.bytes > limits.maxTotalBytes)
      throw refuse(name, `takes the image past ${limits.maxTotalBytes} bytes`);
    const type = header.type ?? "file";
    if (type === "character-device" || type === "block-device" || type === "fifo") {
      throw refuse(name, `is a ${type.replace("-", " ")}; bundle images hold files only`);
    }
    if (!["file", "contiguous-file", "directory", "symlink", "link"].includes(type)) {
      throw refuse(name, `has an unsupported type (${type})`);
    }
    const linkParts = type === "link" ? components(header.linkname ?? "") : [];
    if (typeof linkParts === "string") throw refuse(name, `is a hard link that ${linkParts}`);
    if (type === "symlink") {
      const target = header.linkname ?? "";
      if (target.startsWith("/")) throw refuse(name, `is a symlink to an absolute path (${target})`);
      const resolved = posix.normalize(posix.join(parts.slice(0, -1).join("/") || ".", target));
      if (resolved === ".." || resolved.startsWith("../"))
        throw refuse(name, `is a symlink escaping the target (${target})`);
    }
    const top = parts[0];
    if (parts.length === 0 || (options.include && (!top || !options.include.includes(top)))) {
      await drain();
      continue;
    }
    const base = parts[parts.length - 1]!;
    if (base.startsWith(WHITEOUT)) {
      const parent = await ensureDir(parts.slice(0, -1), name);
      if (base === OPAQUE) {
        for (const child of await readdir(parent))
          await rm(join(parent, child), { recursive: true, force: true });
      } else {
        await rm(join(parent, base.slice(WHITEOUT.length)), { recursive: true, force: true });
      }
      await drain();
      continue;
    }
    if (type === "directory") {
      await ensureDir(parts, name);
      await drain();
      continue;
    }
    const parent = await ensureDir(parts.slice(0, -1), name);
    const target = join(parent, base);
    await clear(target, name);
    if (type === "symlink") {
      await symlink(header.linkname ?? "", target);
      await drain();
    } else if (type === "link") {
      const lp = linkParts as string[];
      if (options.include && !options.include.includes(lp[0] ?? ""))
        throw refuse(name, "is a hard link outside the bundle");
      let source = root;
      for (const [i, part] of lp.entries()) {
        source = join(source, part);
        const info = await lstatOrUndefined(source);
        const last = i === lp.length - 1;
        if (!info || info.isSymbolicLink() || (last ? !info.isFile() : !info.isDirectory())) {
          throw refuse(name, `is a hard link to ${header.linkname}, which is not a file extracted before it`);
        }
      }
      await copyFile(source, target);
      await drain();
    } else {
      // Streamed to disk: a layer never sits decompressed in memory.
      await pipeline(
        entry,
        createWriteStream(target, { mode: (header.mode ?? 0o644) & 0o111 ? 0o755 : 0o644, flags: "wx" }),
      );
    }
  }
}
