// A file-based catalog in memory (opm's declcfg.DeclarativeConfig) and on disk: read every YAML or
// JSON blob under a directory, and write one <package>/catalog.yaml per package in the order opm's
// WriteYAML uses (package, channels by name, bundles by name, other blobs by schema), keys sorted:
// the same catalog always gives the same bytes.
import { join, relative } from "node:path";
import { InvalidInputError, UsageError } from "../common/errors.js";
import { mkdir, readdir, readFile, rm, writeFileAtomic } from "../common/fs.js";
import { readYamlValues } from "../common/yaml/read-values.js";
import { stringifyYaml } from "../common/yaml/write.js";

export type Blob = Record<string, unknown>;

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

export interface PackageBlob extends Blob {
  schema: "olm.package";
  name: string;
  defaultChannel?: string;
}

export interface ChannelBlob extends Blob {
  schema: "olm.channel";
  name: string;
  package: string;
  entries: ChannelEntry[];
}

export interface Property {
  type: string;
  value: unknown;
}

export interface BundleBlob extends Blob {
  schema: "olm.bundle";
  name: string;
  package: string;
  image: string;
  properties: Property[];
  relatedImages?: Array<{ name?: string; image: string }>;
}

export interface Catalog {
  packages: PackageBlob[];
  channels: ChannelBlob[];
  bundles: BundleBlob[];
  /** Blobs of any other schema (olm.deprecations, custom ones), kept as they are. */
  others: Blob[];
}

export const emptyCatalog = (): Catalog => ({ packages: [], channels: [], bundles: [], others: [] });

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Blob)[k])]),
    );
  }
  return value;
}

const by = (key: string) => (a: Blob, b: Blob) =>
  String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0;

/** The blobs of one package in opm's order. */
export function packageBlobs(catalog: Catalog, pkg: string): Blob[] {
  const of = <T extends Blob>(list: T[]) => list.filter((b) => b.package === pkg);
  return [
    ...catalog.packages.filter((p) => p.name === pkg),
    ...of(catalog.channels).sort(by("name")),
    ...of(catalog.bundles).sort(by("name")),
    // Stable: blobs of one schema keep their order, as opm's sort.SliceStable keeps them.
    ...of(catalog.others).sort(by("schema")),
  ];
}

/** Every package named by a blob, sorted. */
export function packageNames(catalog: Catalog): string[] {
  const names = new Set<string>();
  for (const p of catalog.packages) names.add(p.name);
  for (const b of [...catalog.channels, ...catalog.bundles, ...catalog.others])
    if (typeof b.package === "string" && b.package) names.add(b.package);
  return [...names].sort();
}

/** YAML documents as opm's WriteYAML separates them ("---" before each), keys sorted. */
export function serializeBlobs(blobs: readonly Blob[]): string {
  return blobs.map((b) => `---\n${stringifyYaml(sortKeys(b), { lineWidth: 0, indentSeq: false })}`).join("");
}

/** The whole catalog as one YAML stream (what `opm render`/`render-template -o yaml` prints). */
export function serializeCatalog(catalog: Catalog): string {
  const global = catalog.others.filter((o) => !o.package);
  return serializeBlobs([...packageNames(catalog).flatMap((p) => packageBlobs(catalog, p)), ...global]);
}

/**
 * Refuses (nothing changed) an output directory holding anything but <package>/catalog.yaml: the
 * directory is rewritten as a whole, and nothing tsop did not write may be lost with it.
 */
async function assertCatalogOutput(dir: string): Promise<void> {
  const top = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of top) {
    const inner = entry.isDirectory() ? await readdir(join(dir, entry.name)) : undefined;
    if (!inner || inner.some((name) => name !== "catalog.yaml"))
      throw new UsageError(
        `${join(dir, entry.name)} is not a <package>/catalog.yaml tsop writes; refusing to replace ${dir} (nothing was changed)`,
        { hint: "Render into a new or empty directory (--out), or move the file away." },
      );
  }
}

/** Writes <dir>/<package>/catalog.yaml for every package (and removes packages no longer there). */
export async function writeCatalogDir(catalog: Catalog, dir: string): Promise<string[]> {
  await assertCatalogOutput(dir);
  const names = packageNames(catalog);
  for (const entry of await readdir(dir).catch(() => [] as string[]))
    if (!names.includes(entry)) await rm(join(dir, entry), { recursive: true, force: true });
  const written: string[] = [];
  for (const pkg of names) {
    const file = join(dir, pkg, "catalog.yaml");
    await mkdir(join(dir, pkg), { recursive: true });
    await writeFileAtomic(file, serializeBlobs(packageBlobs(catalog, pkg)));
    written.push(file);
  }
  return written;
}

async function walk(dir: string, out: string[]): Promise<void> {
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, out);
    else if (entry.isFile() && /\.(ya?ml|json)$/.test(entry.name)) out.push(path);
  }
}

/** Adds a blob to the list of its schema. */
export function addBlob(catalog: Catalog, blob: Blob): void {
  if (blob.schema === "olm.package") catalog.packages.push(blob as PackageBlob);
  else if (blob.schema === "olm.channel") catalog.channels.push(blob as ChannelBlob);
  else if (blob.schema === "olm.bundle") catalog.bundles.push(blob as BundleBlob);
  else catalog.others.push(blob);
}

/** Reads every .yaml/.yml/.json file under `dir` as FBC blobs (as `opm validate` walks a catalog). */
export async function readCatalogDir(dir: string): Promise<Catalog> {
  const files: string[] = [];
  try {
    await walk(dir, files);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new InvalidInputError(`catalog directory ${dir} does not exist`, {
        hint: "Render it first (tsop catalog render), or pass the directory that holds the FBC.",
      });
    throw error;
  }
  const catalog = emptyCatalog();
  for (const file of files) {
    const shown = relative(process.cwd(), file) || file;
    const blobs = readYamlValues(await readFile(file, "utf8"), {
      where: shown,
      onSyntaxError: (error) =>
        new InvalidInputError(`${shown}: not valid YAML/JSON: ${error.message.split("\n")[0]}`, {
          location: { file: shown },
        }),
    });
    for (const value of blobs) {
      if (value === null || value === undefined) continue;
      if (typeof value !== "object" || Array.isArray(value) || typeof (value as Blob).schema !== "string")
        throw new InvalidInputError(`${shown}: every document of a catalog is a blob with a "schema" field`, {
          location: { file: shown },
        });
      addBlob(catalog, value as Blob);
    }
  }
  return catalog;
}
