// Reading the bundle images a catalog names, through tsop's own bundle loader (src/bundle/load:
// pulled from the registry without a container engine into a temp dir, read, removed). Each image
// is read once per command, however often the template names it.
import type { RegistryAccess } from "../bundle/load/index.js";
import type { Reporter } from "../common/reporter.js";
import { isRecord, str } from "../manifests/index.js";
import { ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL, bundleBlob, bundleParts } from "./bundle-blob.js";
import type { BundleBlob } from "./fbc.js";

export interface BundleInfo {
  blob: BundleBlob;
  version: string;
  /** The bundle's channels annotation, and its default channel annotation. */
  channels: string[];
  defaultChannel: string | undefined;
  /** The CSV's own upgrade edges (spec.replaces, spec.skips, the olm.skipRange annotation). */
  replaces: string | undefined;
  skips: string[];
  skipRange: string | undefined;
}

export type BundleReader = (image: string) => Promise<BundleInfo>;

export interface ReaderOptions extends RegistryAccess {
  reporter?: Reporter;
}

/** A reader that pulls each image with tsop's bundle loader, once. */
export function registryBundleReader(options: ReaderOptions): BundleReader {
  const seen = new Map<string, Promise<BundleInfo>>();
  return (image) => {
    let info = seen.get(image);
    if (!info) {
      info = (async () => {
        const { loadBundle } = await import("../bundle/load/index.js");
        const loaded = await loadBundle({ image }, options);
        return bundleInfo(loaded, image);
      })();
      seen.set(image, info);
    }
    return info;
  };
}

export function bundleInfo(loaded: Parameters<typeof bundleBlob>[0], image: string): BundleInfo {
  const { csv } = bundleParts(loaded, image);
  const spec = isRecord(csv.spec) ? csv.spec : {};
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  const channels = str(loaded.annotations?.[ANNOTATION_CHANNELS])
    .split(",")
    .map((c) => c.trim())
    .filter(Boolean);
  return {
    blob: bundleBlob(loaded, image),
    version: str(spec.version),
    channels,
    defaultChannel: str(loaded.annotations?.[ANNOTATION_DEFAULT_CHANNEL]) || undefined,
    replaces: str(spec.replaces) || undefined,
    skips: Array.isArray(spec.skips) ? spec.skips.map(String) : [],
    skipRange: str(annotations["olm.skipRange"]) || undefined,
  };
}
