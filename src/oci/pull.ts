// Pulling a bundle image without a container engine, from a registry or an OCI layout
// (oci-layout-source.ts): manifest (an index picks the linux image for this machine's architecture,
// else amd64, else the first), config and layers, every blob verified against its digest, layers
// unpacked safely (extract.ts) into a staging directory next to the destination, which is renamed
// into place only when everything succeeded. pullBundleToTemp is the one "pull to read" helper.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import type { Progress, Reporter } from "../common/reporter.js";
import { BUNDLE_DIRS } from "./bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "./client.js";
import { RegistryError, UnsafeArchiveError } from "./errors.js";
import type { TreeLimits } from "../common/tree-limits.js";
import { DEFAULT_EXTRACT_LIMITS, extractLayer } from "./extract.js";
import { notABundleImage as notABundleMessage } from "./messages.js";
import {
  type Descriptor,
  type ImageIndex,
  type ImageManifest,
  isImageManifestMediaType,
  isIndexMediaType,
  layerCompression,
} from "./media-types.js";
import { type ImageSource, ociLayoutSource } from "./oci-layout-source.js";
import { familiarReference, type ImageReference, parseReference } from "./reference.js";

export interface PullOptions extends RegistryClientOptions {
  limits?: Partial<TreeLimits>;
  /** Compressed size limit per layer (default 64 MiB). */
  maxLayerBytes?: number;
  reporter?: Reporter;
  client?: RegistryClient;
}

export interface PullResult {
  /** Digest of the manifest the reference named (the index digest for multi-platform images). */
  digest: string;
  dir: string;
  labels: Record<string, string>;
}

const BUNDLE_LABEL_PREFIX = "operators.operatorframework.io.bundle.";

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64", ppc64: "ppc64le", s390x: "s390x" };

function pickPlatform(index: ImageIndex): Descriptor | undefined {
  const linux = index.manifests.filter((m) => (m.platform?.os ?? "linux") === "linux");
  const here = ARCH[process.arch];
  return (
    linux.find((m) => m.platform?.architecture === here) ??
    linux.find((m) => m.platform?.architecture === "amd64") ??
    linux[0] ??
    index.manifests[0]
  );
}

/** Checks the destination is absent or empty; removes an empty one (returns true) so a rename can replace it. */
async function prepareDestination(destDir: string): Promise<boolean> {
  const entries = await readdir(destDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (entries === undefined) return false;
  if (entries.length > 0) {
    throw new InvalidInputError(
      `${destDir} already exists and is not empty; refusing to unpack a bundle over it`,
      {
        hint: "Choose a new directory or remove the existing one.",
      },
    );
  }
  await rmdir(destDir);
  return true;
}

/** A registry image as an ImageSource for unpackImage. */
function registrySource(client: RegistryClient, ref: ImageReference): ImageSource {
  return {
    label: familiarReference(ref),
    manifest: (descriptor) => client.getManifest(ref, descriptor?.digest),
    blob: (descriptor, maxBytes) => client.getBlob(ref.registry, ref.repository, descriptor, maxBytes),
  };
}

export async function pullBundleImage(
  reference: string,
  destDir: string,
  options: PullOptions = {},
): Promise<PullResult> {
  const ref = parseReference(reference);
  const client = options.client ?? new RegistryClient(options);
  try {
    return await unpackImage(registrySource(client, ref), destDir, options);
  } finally {
    if (!options.client) client.close();
  }
}

/**
 * Unpacks the bundle directories of an image (registry or OCI layout) into `destDir`: the manifest
 * (an index picks a platform), the config's labels, then every layer through the safe extractor into
 * a staging directory that is renamed into place only when everything succeeded.
 */
export async function unpackImage(
  source: ImageSource,
  destDir: string,
  options: Omit<PullOptions, keyof RegistryClientOptions> & { reporter?: Reporter } = {},
): Promise<PullResult> {
  const dest = resolve(destDir);
  const limits = { ...DEFAULT_EXTRACT_LIMITS, ...options.limits };
  const maxLayerBytes = options.maxLayerBytes ?? 64 * 1024 * 1024;
  const name = source.label;
  const progress: Progress | undefined = options.reporter?.progress(`Pulling ${name}`);
  let staging: string | undefined;
  let removedEmpty = false;
  try {
    const top = await source.manifest();
    let manifest = top;
    if (isIndexMediaType(top.mediaType)) {
      const chosen = pickPlatform(top.json as unknown as ImageIndex);
      if (!chosen) throw new RegistryError("protocol", `${name} is an empty image index`);
      manifest = await source.manifest(chosen);
    }
    if (!isImageManifestMediaType(manifest.mediaType)) {
      throw new RegistryError(
        "protocol",
        `${name} has an unsupported manifest type "${manifest.mediaType}"`,
        {
          hint: "tsop reads OCI and Docker v2 schema 2 images.",
        },
      );
    }
    const image = manifest.json as unknown as ImageManifest;
    if (!image.config || !Array.isArray(image.layers)) {
      throw new RegistryError("protocol", `${name}: the manifest has no config or layers`);
    }
    const labels = configLabels(await source.blob(image.config, 1024 * 1024), name);
    removedEmpty = await prepareDestination(dest);
    await mkdir(dirname(dest), { recursive: true });
    staging = await mkdtemp(join(dirname(dest), `.${basename(dest)}.pull-`));
    const unpack = unpackLayers(source, image, staging, { limits, maxLayerBytes, progress });
    // Without the bundle labels, an image that cannot be unpacked as a bundle or holds no manifests/
    // is most likely the operator image given in place of its bundle: say that, not what broke.
    if (!hasBundleLabels(labels)) {
      const failure = await unpack.then(
        () => undefined,
        (error: unknown) => error,
      );
      if (failure !== undefined && !isUnbundleable(failure)) throw failure;
      if (failure !== undefined || !existsSync(join(staging, "manifests")))
        throw notABundleImage(name, failure);
    } else await unpack;
    await rename(staging, dest);
    staging = undefined;
    progress?.succeed(`Pulled ${name}@${top.digest}`);
    return { digest: top.digest, dir: dest, labels };
  } catch (error) {
    progress?.fail(`Could not pull ${name}`);
    if (removedEmpty) await mkdir(dest, { recursive: true }).catch(() => undefined);
    throw error;
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
  }
}

/** The image's layers through the safe extractor into `staging`, bundle directories only. */
async function unpackLayers(
  source: ImageSource,
  image: ImageManifest,
  staging: string,
  options: { limits: TreeLimits; maxLayerBytes: number; progress: Progress | undefined },
): Promise<void> {
  const name = source.label;
  const state = { entries: 0, bytes: 0 };
  for (const layer of image.layers) {
    const compression = layerCompression(layer.mediaType);
    if (!compression) {
      throw new RegistryError("protocol", `${name}: layer type "${layer.mediaType}" is not supported`, {
        hint: "tsop unpacks tar and tar+gzip layers.",
      });
    }
    options.progress?.update(`Pulling ${name}: layer ${layer.digest.slice(0, 19)}`);
    const blob = await source.blob(layer, options.maxLayerBytes);
    await extractLayer(blob, compression, staging, {
      limits: options.limits,
      state,
      include: BUNDLE_DIRS,
      label: `layer ${layer.digest}`,
    });
  }
}

/** Whether the image carries the labels of a bundle image (bundle.Dockerfile's LABELs). */
function hasBundleLabels(labels: Record<string, string>): boolean {
  return Object.keys(labels).some((key) => key.startsWith(BUNDLE_LABEL_PREFIX));
}

/**
 * A failure that says the content is not a bundle's, not that the pull broke: an entry refused
 * outside the bundle directories (an operator image's node binary is over the size limit), or a
 * layer too large. Refusals inside manifests/ or metadata/ keep their own message.
 */
function isUnbundleable(error: unknown): boolean {
  if (error instanceof RegistryError) return error.kind === "too-large";
  if (!(error instanceof UnsafeArchiveError) || error.entry === undefined) return false;
  // An entry that reaches outside the image's root is an attack whatever the image is meant to be:
  // that refusal stands as it is.
  const parts = error.entry.split("/");
  if (error.entry.startsWith("/") || parts.includes("..")) return false;
  const top = parts.find((part) => part !== "" && part !== ".");
  return !(BUNDLE_DIRS as readonly string[]).includes(top ?? "");
}

function notABundleImage(name: string, cause: unknown): InvalidInputError {
  const m = notABundleMessage(name, BUNDLE_LABEL_PREFIX);
  return new InvalidInputError(m.message, { hint: m.hint, ...(cause === undefined ? {} : { cause }) });
}

function configLabels(configBlob: Buffer, name: string): Record<string, string> {
  try {
    const config = JSON.parse(configBlob.toString("utf8")) as {
      config?: { Labels?: Record<string, string> };
    };
    return config.config?.Labels ?? {};
  } catch {
    throw new RegistryError("protocol", `${name}: the image config is not valid JSON`);
  }
}

/** Where a bundle image comes from: a registry reference, or an OCI layout directory (and tag). */
export type BundleImageSource = { image: string } | { layout: string; tag?: string };

/** Pulls an image into a directory (pullBundleImage, or a test's stand-in). */
export type PullInto = (
  image: string,
  destDir: string,
  options: PullOptions,
) => Promise<{ digest: string; dir: string; labels?: Record<string, string> }>;

export interface TempPull extends PullResult {
  /** Removes the temporary directory. */
  remove(): Promise<void>;
}

/**
 * The one way tsop pulls a bundle image to read it: into a fresh directory under the system temp
 * dir (never the working directory), removed by `remove()` or at once when the pull fails.
 */
export async function pullBundleToTemp(
  source: BundleImageSource,
  options: PullOptions & { pull?: PullInto } = {},
): Promise<TempPull> {
  const parent = await mkdtemp(join(tmpdir(), "tsop-bundle-"));
  const remove = () => rm(parent, { recursive: true, force: true });
  try {
    const dest = join(parent, "bundle");
    const pull = options.pull ?? pullBundleImage;
    const pulled =
      "image" in source
        ? await pull(source.image, dest, options)
        : await unpackImage(ociLayoutSource(source.layout, source.tag), dest, options);
    return { labels: {}, ...pulled, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
