// A bundle directory as a FROM-scratch image, built without a container engine and reproducibly:
// one gzip layer with /manifests, /metadata and /tests (entries sorted, mtime from
// SOURCE_DATE_EPOCH or 0, uid/gid 0, modes 0755/0644), an OCI config whose labels are
// metadata/annotations.yaml, and an OCI manifest. The same directory gives the same digest.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { InvalidInputError } from "../common/errors.js";
import { parseYamlText } from "../common/yaml/read-values.js";
import { type TarEntry, writeDeterministicTar } from "./deterministic-tar.js";
import { sha256Digest } from "./digest.js";
import { type Descriptor, type ImageManifest, MediaType } from "./media-types.js";

export const BUNDLE_DIRS = ["manifests", "metadata", "tests"] as const;

export interface BuiltImage {
  layer: Buffer;
  /** Digest of the uncompressed layer (config rootfs.diff_ids). */
  diffId: string;
  config: Buffer;
  manifest: Buffer;
  manifestDescriptor: Descriptor;
  layerDescriptor: Descriptor;
  configDescriptor: Descriptor;
  labels: Record<string, string>;
  /** Files in the layer, in order. */
  files: string[];
}

export interface BuildOptions {
  /** Seconds since the epoch for mtimes and `created` (default: $SOURCE_DATE_EPOCH, else 0 and no `created`). */
  sourceDateEpoch?: number;
  env?: NodeJS.ProcessEnv;
}

/** Tar entry order: path components compared one by one, so a directory precedes its contents. */
export function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return (pa[i] ?? "") < (pb[i] ?? "") ? -1 : 1;
  }
  return pa.length - pb.length;
}

async function collect(root: string, dir: string, entries: TarEntry[]): Promise<void> {
  const rel = relative(root, dir).split(sep).join("/");
  entries.push({ path: `${rel}/`, type: "directory", mode: 0o755 });
  for (const name of await readdir(dir)) {
    const full = join(dir, name);
    const info = await lstat(full);
    const relPath = `${rel}/${name}`;
    if (info.isDirectory()) await collect(root, full, entries);
    else if (info.isFile()) {
      entries.push({
        path: relPath,
        type: "file",
        content: await readFile(full),
        mode: info.mode & 0o111 ? 0o755 : 0o644,
      });
    } else {
      throw new InvalidInputError(
        `${full} is not a regular file or directory; a bundle image holds only those`,
        {
          location: { file: full },
          hint: "Replace the link with a copy of the file.",
        },
      );
    }
  }
}

/** The labels of a bundle image: metadata/annotations.yaml's `annotations` map. */
export async function readBundleLabels(dir: string): Promise<Record<string, string>> {
  const file = join(dir, "metadata", "annotations.yaml");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new InvalidInputError(`${file} is missing; a bundle image takes its labels from it`, {
      hint: "Generate the bundle first (tsop bundle), or pass --dir <bundle dir>.",
    });
  }
  let doc: unknown;
  try {
    doc = parseYamlText(text);
  } catch (error) {
    throw new InvalidInputError(`${file} is not valid YAML: ${(error as Error).message.split("\n")[0]}`, {
      location: { file },
    });
  }
  const annotations = (doc as { annotations?: unknown } | null)?.annotations;
  if (!annotations || typeof annotations !== "object" || Array.isArray(annotations)) {
    throw new InvalidInputError(`${file} has no "annotations" map`, { location: { file } });
  }
  const labels: Record<string, string> = {};
  for (const key of Object.keys(annotations).sort()) {
    const value = (annotations as Record<string, unknown>)[key];
    if (typeof value !== "string") {
      throw new InvalidInputError(`${file}: annotation "${key}" must be a string`, {
        location: { file },
        hint: "Quote the value in the YAML file.",
      });
    }
    labels[key] = value;
  }
  return labels;
}

/** SOURCE_DATE_EPOCH (or the option), in seconds; undefined when neither is set. */
export function epochFrom(options: BuildOptions): number | undefined {
  if (options.sourceDateEpoch !== undefined) return options.sourceDateEpoch;
  const raw = (options.env ?? process.env).SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidInputError(`SOURCE_DATE_EPOCH="${raw}" is not a whole number of seconds`);
  }
  return value;
}

export async function buildBundleImage(dir: string, options: BuildOptions = {}): Promise<BuiltImage> {
  const manifestsDir = join(dir, "manifests");
  const hasManifests = await readdir(manifestsDir).then(
    (names) => names.length > 0,
    () => false,
  );
  if (!hasManifests) {
    throw new InvalidInputError(`${manifestsDir} is missing or empty; nothing to put in a bundle image`, {
      hint: "Generate the bundle first (tsop bundle), or pass --dir <bundle dir>.",
    });
  }
  const labels = await readBundleLabels(dir);
  const entries: TarEntry[] = [];
  for (const name of BUNDLE_DIRS) {
    const sub = join(dir, name);
    const info = await lstat(sub).catch(() => undefined);
    if (info?.isDirectory()) await collect(dir, sub, entries);
  }
  entries.sort((a, b) => comparePaths(a.path.replace(/\/$/, ""), b.path.replace(/\/$/, "")));
  return singleLayerImage(entries, labels, epochFrom(options));
}

/**
 * A FROM-scratch image of one gzip layer holding `entries` (in the order given), with `labels` in
 * its OCI config; mtimes (and `created`, when given) from `epoch` seconds, else 0 and no `created`.
 * The same entries give the same digest.
 */
export async function singleLayerImage(
  entries: readonly TarEntry[],
  labels: Record<string, string>,
  epoch?: number,
): Promise<BuiltImage> {
  const tar = await writeDeterministicTar([...entries], new Date((epoch ?? 0) * 1000));
  const layer = gzipSync(tar, { level: 9 });
  const diffId = sha256Digest(tar);
  const layerDescriptor = {
    mediaType: MediaType.ociLayerGzip,
    digest: sha256Digest(layer),
    size: layer.length,
  };
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      config: { Labels: labels },
      ...(epoch !== undefined ? { created: new Date(epoch * 1000).toISOString().replace(".000Z", "Z") } : {}),
      os: "linux",
      rootfs: { type: "layers", diff_ids: [diffId] },
    }),
  );
  const configDescriptor = {
    mediaType: MediaType.ociConfig,
    digest: sha256Digest(config),
    size: config.length,
  };
  const manifestJson: ImageManifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: configDescriptor,
    layers: [layerDescriptor],
  };
  const manifest = Buffer.from(JSON.stringify(manifestJson));
  return {
    layer,
    diffId,
    config,
    manifest,
    manifestDescriptor: {
      mediaType: MediaType.ociManifest,
      digest: sha256Digest(manifest),
      size: manifest.length,
    },
    layerDescriptor,
    configDescriptor,
    labels,
    files: entries.map((e) => e.path),
  };
}
