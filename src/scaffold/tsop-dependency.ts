// How a new project depends on tsop. A tsop installed from the npm registry is depended on as
// `^<version>`. A tsop that runs from anywhere else (a clone, `npm link`, `npm i -g <path>`) is one
// the registry cannot serve, so init packs the running tsop into the project
// (vendor/tsop-<version>.tgz, like `npm pack`) and depends on that file: the project installs
// offline from the registry's point of view, survives moving or deleting the clone, and its
// Dockerfile can copy the tarball into the image build.
import { realpathSync } from "node:fs";
import { readdir, readFile } from "../common/fs.js";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { tsopVersion } from "../common/version.js";
import type { TarEntry } from "../oci/deterministic-tar.js";

export interface TsopDependency {
  /** The package.json spec, e.g. "^0.1.0" or "file:vendor/tsop-0.1.0.tgz". */
  spec: string;
  /** Why: the --tsop-dependency flag, the registry, or a tarball of the running tsop. */
  source: "flag" | "registry" | "packed";
  /** For "packed": the tarball's path in the project and its bytes. */
  tarball?: { path: string; content: Buffer };
}

/** The directory of the running tsop's package.json (symlinks resolved). */
export function runningTsopRoot(): string {
  return realpathSync(fileURLToPath(new URL("../../", import.meta.url)));
}

/** Whether tsop runs from an installed copy (inside node_modules), i.e. one a registry served. */
function installedFromRegistry(root: string): boolean {
  return root.split(sep).includes("node_modules");
}

export async function chooseTsopDependency(flag: string | undefined): Promise<TsopDependency> {
  if (flag !== undefined) return { spec: flag, source: "flag" };
  const root = runningTsopRoot();
  if (installedFromRegistry(root)) return { spec: `^${tsopVersion()}`, source: "registry" };
  const path = `vendor/tsop-${tsopVersion()}.tgz`;
  return { spec: `file:${path}`, source: "packed", tarball: { path, content: await packTsop(root) } };
}

/** npm's fixed timestamp for packed files, so the same tsop packs to the same bytes. */
const PACK_TIME = new Date("1985-10-26T08:15:00.000Z");

/** The files npm would pack: package.json, README, LICENSE and package.json's "files". */
async function packFiles(root: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { files?: string[] };
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => undefined);
    if (!entries) {
      out.push(rel);
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await visit(child);
      else if (e.isFile()) out.push(child);
    }
  };
  for (const entry of pkg.files ?? []) await visit(entry);
  const top = await readdir(root);
  for (const name of top) if (/^(README|LICENSE|LICENCE)(\..*)?$/i.test(name)) out.push(name);
  out.push("package.json");
  return [...new Set(out)].sort();
}

/** A gzipped tarball of the running tsop in npm's layout (every path under package/). */
export async function packTsop(root: string): Promise<Buffer> {
  // Imported lazily: tar-stream is needed only when init packs tsop.
  const { writeDeterministicTar } = await import("../oci/deterministic-tar.js");
  const entries: TarEntry[] = [];
  for (const file of await packFiles(root)) {
    const content = await readFile(join(root, file));
    const mode = file.startsWith("bin/") ? 0o755 : 0o644;
    entries.push({ path: `package/${relative(root, join(root, file))}`, type: "file", mode, content });
  }
  return gzipSync(await writeDeterministicTar(entries, PACK_TIME), { level: 9 });
}
