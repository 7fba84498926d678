// The dependencies layer of `tsop image build` (/app/node_modules from `npm ci --omit=dev`), built
// once per set of inputs and kept in the project's node_modules/.cache/tsop-image (where tools keep
// caches by convention; ignored by git and never shipped): a rebuild after a change to dist/ alone
// skips npm entirely, as ko and docker's layer cache do. The key covers every input of the install
// (package.json, the lock, .npmrc, vendor/), the mtime epoch and the host platform (optional
// native packages); a cached blob is used only when its digest still matches.
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Reporter } from "../common/reporter.js";
import { writeFileAtomic } from "../common/fs.js";
import { sha256Digest } from "../oci/digest.js";
import { findNativeAddons, stageDependencies } from "./stage.js";
import { type BuiltLayer, buildTreeLayer } from "./tree-layer.js";

export interface DependencyLayer {
  /** Undefined when the project has no production dependency. */
  layer: BuiltLayer | undefined;
  /** Native addons (*.node) among the dependencies, relative to the staging dir. */
  addons: string[];
}

export interface DependencyLayerOptions {
  epoch: number;
  /** false: ignore and do not write the cache (--no-cache). */
  cache: boolean;
  reporter: Reporter;
  env?: NodeJS.ProcessEnv;
}

const CACHE_DIR = join("node_modules", ".cache", "tsop-image");
// Bump when the layer's contents or this file's format change for the same inputs.
const FORMAT = 1;

interface CacheEntry {
  format: number;
  digest: string;
  diffId: string;
  files: string[];
  addons: string[];
}

export async function dependencyLayer(
  project: string,
  options: DependencyLayerOptions,
): Promise<DependencyLayer> {
  const key = await inputsKey(project, options.epoch);
  const dir = join(project, CACHE_DIR);
  if (options.cache) {
    const hit = await readCache(dir, key);
    if (hit) {
      options.reporter.debug(`dependencies layer from ${join(dir, key)} (inputs unchanged; npm not run)`);
      return hit;
    }
  }
  const built = await installAndPack(project, options);
  if (options.cache) {
    // The cache is an optimisation: a read-only or full project still builds.
    await writeCache(dir, key, built).catch((error: unknown) =>
      options.reporter.debug(`dependencies layer not cached in ${dir}: ${(error as Error).message}`),
    );
  }
  return built;
}

async function installAndPack(project: string, options: DependencyLayerOptions): Promise<DependencyLayer> {
  const staged = await stageDependencies(project, options.reporter, options.env);
  try {
    if (!staged.nodeModules) return { layer: undefined, addons: [] };
    return {
      layer: await buildTreeLayer([{ from: staged.nodeModules, to: "app/node_modules" }], options.epoch),
      addons: await findNativeAddons(staged.dir, ["node_modules"]),
    };
  } finally {
    await staged.remove();
  }
}

/** sha256 over every file npm ci reads, with its path, plus the epoch and host platform. */
async function inputsKey(project: string, epoch: number): Promise<string> {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ format: FORMAT, epoch, platform: process.platform, arch: process.arch }));
  for (const file of await inputFiles(project)) {
    hash.update(`\0${file}\0`);
    hash.update(await readFile(join(project, file)));
  }
  return hash.digest("hex").slice(0, 32);
}

async function inputFiles(project: string): Promise<string[]> {
  const files: string[] = [];
  for (const name of ["package.json", "package-lock.json", ".npmrc"]) {
    if (await isFile(join(project, name))) files.push(name);
  }
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(join(project, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) await visit(`${rel}/${e.name}`);
      else if (e.isFile()) files.push(`${rel}/${e.name}`);
    }
  };
  await visit("vendor");
  return files;
}

const isFile = (path: string) =>
  lstat(path).then(
    (s) => s.isFile(),
    () => false,
  );

async function readCache(dir: string, key: string): Promise<DependencyLayer | undefined> {
  try {
    const entry = JSON.parse(await readFile(join(dir, `${key}.json`), "utf8")) as
      CacheEntry | { format: number; empty: true };
    if (entry.format !== FORMAT) return undefined;
    if ("empty" in entry) return { layer: undefined, addons: [] };
    const blob = await readFile(join(dir, `${key}.tar.gz`));
    // A damaged or edited blob is rebuilt, never shipped.
    if (sha256Digest(blob) !== entry.digest) return undefined;
    return {
      layer: { blob, digest: entry.digest, diffId: entry.diffId, files: entry.files },
      addons: entry.addons,
    };
  } catch {
    return undefined;
  }
}

/** One entry per key; older entries are removed so the cache holds one layer per project. */
async function writeCache(dir: string, key: string, built: DependencyLayer): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(dir)) {
    if (!name.startsWith(key)) await rm(join(dir, name), { force: true });
  }
  if (!built.layer) {
    await writeFileAtomic(join(dir, `${key}.json`), JSON.stringify({ format: FORMAT, empty: true }));
    return;
  }
  const { blob, digest, diffId, files } = built.layer;
  await writeFileAtomic(join(dir, `${key}.tar.gz`), blob);
  const entry: CacheEntry = { format: FORMAT, digest, diffId, files, addons: built.addons };
  await writeFileAtomic(join(dir, `${key}.json`), JSON.stringify(entry));
}
