// The base image, always by digest: a reference given by tag is resolved once, and every platform
// image (one for a plain manifest, one per linux platform of an index) is read with its config, so
// the app image records exactly which base it was built on.
import { InvalidInputError, UsageError } from "../common/errors.js";
import type { RegistryClient } from "../oci/client.js";
import { RegistryError } from "../oci/errors.js";
import {
  type Descriptor,
  type ImageIndex,
  type ImageManifest,
  isImageManifestMediaType,
  isIndexMediaType,
} from "../oci/media-types.js";
import { familiarReference, type ImageReference } from "../oci/reference.js";

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface BasePlatformImage {
  platform: Platform;
  manifestDigest: string;
  manifest: ImageManifest;
  mediaType: string;
  config: Record<string, unknown>;
}

export interface BaseImage {
  ref: ImageReference;
  /** The digest the reference resolved to (the index digest for a multi-platform base). */
  digest: string;
  /** The media type of the top manifest (index or image). */
  mediaType: string;
  images: BasePlatformImage[];
}

const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export function platformName(p: Platform): string {
  return `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ""}`;
}

/** "linux/amd64,linux/arm64/v8" → platforms; a usage error names the bad item. */
export function parsePlatforms(list: string): Platform[] {
  return list.split(",").map((item) => {
    const [os, architecture, variant, extra] = item.trim().split("/");
    if (!os || !architecture || extra !== undefined) {
      throw new UsageError(`--platform "${item.trim()}" is not os/arch[/variant] (e.g. linux/amd64)`);
    }
    return { os, architecture, ...(variant ? { variant } : {}) };
  });
}

function matches(p: Platform, wanted: Platform): boolean {
  return (
    p.os === wanted.os &&
    p.architecture === wanted.architecture &&
    (!wanted.variant || p.variant === wanted.variant)
  );
}

async function readPlatformImage(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  fallback: Platform | undefined,
): Promise<BasePlatformImage> {
  const fetched = await client.getManifest(ref, digest);
  if (!isImageManifestMediaType(fetched.mediaType)) {
    throw new RegistryError(
      "protocol",
      `${familiarReference(ref)}: ${digest} is a ${fetched.mediaType}, not an image`,
    );
  }
  const manifest = fetched.json as unknown as ImageManifest;
  const configBlob = await client.getBlob(ref.registry, ref.repository, manifest.config, MAX_CONFIG_BYTES);
  const config = JSON.parse(configBlob.toString("utf8")) as Record<string, unknown>;
  const platform: Platform = {
    os: typeof config.os === "string" ? config.os : (fallback?.os ?? "linux"),
    architecture:
      typeof config.architecture === "string" ? config.architecture : (fallback?.architecture ?? "amd64"),
    ...(typeof config.variant === "string" ? { variant: config.variant } : {}),
  };
  return { platform, manifestDigest: fetched.digest, manifest, mediaType: fetched.mediaType, config };
}

/** Reads the base (by digest) and the platform images to build on (all linux ones, or `wanted`). */
export async function readBaseImage(
  client: RegistryClient,
  ref: ImageReference,
  wanted: Platform[] | undefined,
): Promise<BaseImage> {
  const top = await client.getManifest(ref);
  const pinned = { ...ref, digest: top.digest };
  let available: string[] = [];
  let chosen: Array<{ digest: string; platform?: Platform }>;
  if (isIndexMediaType(top.mediaType)) {
    const platforms = (top.json as unknown as ImageIndex).manifests.filter(
      (m: Descriptor) => m.platform?.os === "linux" && m.platform.architecture !== "unknown",
    );
    available = platforms.map((m) => platformName(m.platform as Platform));
    chosen = platforms
      .filter((m) => !wanted || wanted.some((w) => matches(m.platform as Platform, w)))
      .map((m) => ({ digest: m.digest, platform: m.platform as Platform }));
  } else {
    chosen = [{ digest: top.digest }];
  }
  const images = await Promise.all(
    chosen.map((c) => readPlatformImage(client, pinned, c.digest, c.platform)),
  );
  const kept = images.filter((image) => !wanted || wanted.some((w) => matches(image.platform, w)));
  if (kept.length === 0) {
    const has = [...available, ...images.map((i) => platformName(i.platform))].join(", ") || "none";
    throw new InvalidInputError(
      `the base image ${familiarReference(ref)} has no platform among ${wanted?.map(platformName).join(", ")} (it has ${has})`,
      { hint: "Pick platforms the base provides with --platform, or another --base." },
    );
  }
  return { ref, digest: top.digest, mediaType: top.mediaType, images: kept };
}
