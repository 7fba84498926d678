// The one tar writer (bundle images, `tsop image build` layers, init's packed tsop): headers carry
// nothing but the entries and the given mtime, and directory names end in exactly one "/".
import { Readable } from "node:stream";
import { extract, type Header } from "tar-stream";
import { describe, expect, it } from "vitest";
import { writeDeterministicTar } from "../../src/oci/deterministic-tar.js";

async function headersOf(tar: Buffer): Promise<Array<Header & { body: string }>> {
  const out: Array<Header & { body: string }> = [];
  const ex = extract();
  ex.on("entry", (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: unknown) => {
      chunks.push(c as Buffer);
    });
    stream.on("end", () => {
      out.push({ ...header, body: Buffer.concat(chunks).toString() });
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ex.on("finish", resolve);
    ex.on("error", reject);
    Readable.from([tar]).pipe(ex);
  });
  return out;
}

describe("writeDeterministicTar", () => {
  const mtime = new Date(1_700_000_000_000);
  const entries = [
    { path: "app", type: "directory" as const, mode: 0o755 },
    { path: "app/lib/", type: "directory" as const, mode: 0o755 },
    { path: "app/run.sh", type: "file" as const, mode: 0o755, content: Buffer.from("#!/bin/sh\n") },
    { path: "app/empty", type: "file" as const, mode: 0o644 },
    { path: "app/link", type: "symlink" as const, mode: 0o777, linkname: "run.sh" },
  ];

  it("writes the entries in order, root-owned, with the given mtime", async () => {
    const headers = await headersOf(await writeDeterministicTar(entries, mtime));
    expect(headers.map((h) => [h.name, h.type, h.mode, h.linkname ?? null, h.body])).toEqual([
      ["app/", "directory", 0o755, null, ""],
      ["app/lib/", "directory", 0o755, null, ""],
      ["app/run.sh", "file", 0o755, null, "#!/bin/sh\n"],
      ["app/empty", "file", 0o644, null, ""],
      ["app/link", "symlink", 0o777, "run.sh", ""],
    ]);
    for (const h of headers) {
      expect([h.uid, h.gid, h.uname, h.gname, h.mtime?.getTime()]).toEqual([0, 0, "", "", mtime.getTime()]);
    }
  });

  it("gives the same bytes for the same entries", async () => {
    const a = await writeDeterministicTar(entries, mtime);
    const b = await writeDeterministicTar(
      entries.map((e) => ({ ...e })),
      new Date(mtime),
    );
    expect(a.equals(b)).toBe(true);
  });
});
