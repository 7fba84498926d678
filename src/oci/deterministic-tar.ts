// The one tar writer of tsop (image layers, bundle images, the tsop tarball init packs). Its output
// depends only on the entries: every entry gets the mtime the caller fixes, and uid/gid 0 with no
// user or group names, so no clock, user or machine leaks into the bytes. The same entries in the
// same order give the same tar, hence the same digest.
import { pack } from "tar-stream";

export interface TarEntry {
  /** Path inside the tar, without a leading slash; a directory's may end in "/" or not. */
  path: string;
  type: "directory" | "file" | "symlink";
  mode: number;
  /** A file's bytes (none: empty). */
  content?: Buffer;
  /** A symlink's target. */
  linkname?: string;
}

/** A tar of the entries in the order given; directory names are written with a trailing "/". */
export async function writeDeterministicTar(entries: readonly TarEntry[], mtime: Date): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c: unknown) => {
    chunks.push(c as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    p.on("end", resolve);
    p.on("error", reject);
  });
  for (const e of entries) {
    const name = e.type === "directory" && !e.path.endsWith("/") ? `${e.path}/` : e.path;
    const header = { name, type: e.type, mode: e.mode, mtime, uid: 0, gid: 0, uname: "", gname: "" };
    if (e.type === "file") p.entry(header, e.content ?? Buffer.alloc(0));
    else if (e.type === "symlink") p.entry({ ...header, linkname: e.linkname ?? "" });
    else p.entry(header);
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}
