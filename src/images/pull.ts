// Pulling a bundle image without a container engine: manifest (an index picks the linux image for
// this machine's architecture, else amd64, else the first), config and layers, every blob verified
// against its digest, layers unpacked safely (extract.ts) into a staging directory next to the
// destination, which is renamed into place only when everything succeeded.
import { mkdir, mkdtemp, readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import { BUNDLE_DIRS } from "./bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "./client.js";
import { RegistryError } from "./errors.js";
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits, extractLayer } from "./extract.js";
import {
  type Descriptor,
  type ImageIndex,
  type ImageManifest,
  isImageManifestMediaType,
  isIndexMediaType,
  layerCompression,
} from "./media-types.js";
import { familiarReference, parseReference } from "./reference.js";

export interface PullOptions extends RegistryClientOptions {
  limits?: Partial<ExtractLimits>;
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

export async function pullBundleImage(
  reference: string,
  destDir: string,
  options: PullOptions = {},
): Promise<PullResult> {
  const ref = parseReference(reference);
  const dest = resolve(destDir);
  const client = options.client ?? new RegistryClient(options);
  const limits = { ...DEFAULT_EXTRACT_LIMITS, ...options.limits };
  const maxLayerBytes = options.maxLayerBytes ?? 64 * 1024 * 1024;
  const progress = options.reporter?.progress(`Pulling ${familiarReference(ref)}`);
  let staging: string | undefined;
  let removedEmpty = false;
  try {
    const top = await client.getManifest(ref);
    let manifest = top;
    if (isIndexMediaType(top.mediaType)) {
      const chosen = pickPlatform(top.json as unknown as ImageIndex);
      if (!chosen) throw new RegistryError("protocol", `${familiarReference(ref)} is an empty image index`);
      manifest = await client.getManifest(ref, chosen.digest);
    }
    if (!isImageManifestMediaType(manifest.mediaType)) {
      throw new RegistryError(
        "protocol",
        `${familiarReference(ref)} has an unsupported manifest type "${manifest.mediaType}"`,
        {
          hint: "tsop reads OCI and Docker v2 schema 2 images.",
        },
      );
    }
    const image = manifest.json as unknown as ImageManifest;
    if (!image.config || !Array.isArray(image.layers)) {
      throw new RegistryError("protocol", `${familiarReference(ref)}: the manifest has no config or layers`);
    }
    const configBlob = await client.getBlob(ref.registry, ref.repository, image.config, 1024 * 1024);
    let labels: Record<string, string> = {};
    try {
      const config = JSON.parse(configBlob.toString("utf8")) as {
        config?: { Labels?: Record<string, string> };
      };
      labels = config.config?.Labels ?? {};
    } catch {
      throw new RegistryError("protocol", `${familiarReference(ref)}: the image config is not valid JSON`);
    }
    removedEmpty = await prepareDestination(dest);
    await mkdir(dirname(dest), { recursive: true });
    staging = await mkdtemp(join(dirname(dest), `.${basename(dest)}.pull-`));
    const state = { entries: 0, bytes: 0 };
    for (const layer of image.layers) {
      const compression = layerCompression(layer.mediaType);
      if (!compression) {
        throw new RegistryError(
          "protocol",
          `${familiarReference(ref)}: layer type "${layer.mediaType}" is not supported`,
          {
            hint: "tsop unpacks tar and tar+gzip layers.",
          },
        );
      }
      progress?.update(`Pulling ${familiarReference(ref)}: layer ${layer.digest.slice(0, 19)}`);
      const blob = await client.getBlob(ref.registry, ref.repository, layer, maxLayerBytes);
      await extractLayer(blob, compression, staging, {
        limits,
        state,
        include: BUNDLE_DIRS,
        label: `layer ${layer.digest}`,
      });
    }
    await rename(staging, dest);
    staging = undefined;
    progress?.succeed(`Pulled ${familiarReference(ref)}@${top.digest}`);
    return { digest: top.digest, dir: dest, labels };
  } catch (error) {
    progress?.fail(`Could not pull ${familiarReference(ref)}`);
    if (removedEmpty) await mkdir(dest, { recursive: true }).catch(() => undefined);
    throw error;
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true });
    if (!options.client) client.close();
  }
}
