// The catalog image `run bundle --olm v1` pushes beside the bundle: the served bundles as a
// file-based catalog at /configs/<package>/catalog.json, labelled with the configs directory, in a
// FROM-scratch image built without a container engine (as `tsop bundle push` builds bundle images).
// catalogd only unpacks a catalog image and never runs it, so no opm base is needed (and none
// pulled). The same catalog gives the same digest.
import { gzipSync } from "node:zlib";
import type { Reporter } from "../../../common/reporter.js";
import type { InstallableBundle } from "../../../bundle/load/index.js";
import type { BuiltImage } from "../../../oci/bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "../../../oci/client.js";
import { writeDeterministicTar } from "../../../oci/deterministic-tar.js";
import { sha256Digest } from "../../../oci/digest.js";
import { MediaType } from "../../../oci/media-types.js";
import { pushImage } from "../../../oci/push.js";
import { fullName, parseReference } from "../../../oci/reference.js";
import { type Blob, type CatalogContent, catalogDocuments, csvVersion } from "../catalog.js";

export const CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1";

/** The catalog's blobs for OLM v1: operator-controller pulls each bundle image, so the manifests
 * (olm.bundle.object properties, v0's in-cluster catalog) are left out. */
export function v1CatalogBlobs(content: CatalogContent): Blob[] {
  return catalogDocuments(content).map((blob) =>
    blob.schema === "olm.bundle"
      ? {
          ...blob,
          properties: ((blob.properties as Array<{ type: string }> | undefined) ?? []).filter(
            (p) => p.type !== "olm.bundle.object",
          ),
        }
      : blob,
  );
}

/** JSON lines, one blob each (as `opm render -o json` would stream them, keys sorted). */
export function catalogJson(content: CatalogContent): string {
  return v1CatalogBlobs(content)
    .map((b) => JSON.stringify(b))
    .join("\n")
    .concat("\n");
}

/** `--catalog-image`, else `<bundle-repository>-catalog:<bundle tag, or v<version>>`. */
export function catalogImageFor(bundle: InstallableBundle, override?: string): string {
  if (override) return override;
  const ref = parseReference(bundle.image);
  return `${fullName(ref)}-catalog:${ref.tag ?? `v${csvVersion(bundle.csv)}`}`;
}

export async function buildCatalogImage(content: CatalogContent): Promise<BuiltImage> {
  const pkg = content.packageName;
  const json = Buffer.from(catalogJson(content));
  const tar = await writeDeterministicTar(
    [
      { path: "configs/", type: "directory", mode: 0o755 },
      { path: `configs/${pkg}/`, type: "directory", mode: 0o755 },
      { path: `configs/${pkg}/catalog.json`, type: "file", mode: 0o644, content: json },
    ],
    new Date(0),
  );
  const layer = gzipSync(tar, { level: 9 });
  const labels = { [CONFIGS_LABEL]: "/configs" };
  const layerDescriptor = {
    mediaType: MediaType.ociLayerGzip,
    digest: sha256Digest(layer),
    size: layer.length,
  };
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      config: { Labels: labels },
      os: "linux",
      rootfs: { type: "layers", diff_ids: [sha256Digest(tar)] },
    }),
  );
  const configDescriptor = {
    mediaType: MediaType.ociConfig,
    digest: sha256Digest(config),
    size: config.length,
  };
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaType.ociManifest,
      config: configDescriptor,
      layers: [layerDescriptor],
    }),
  );
  return {
    layer,
    diffId: sha256Digest(tar),
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
    files: ["configs/", `configs/${pkg}/`, `configs/${pkg}/catalog.json`],
  };
}

/** Builds and pushes the catalog image; returns it pinned (repository@digest), what the ClusterCatalog names. */
export async function pushCatalogImage(
  content: CatalogContent,
  target: string,
  options: RegistryClientOptions & { reporter: Reporter },
): Promise<string> {
  const image = await buildCatalogImage(content);
  const ref = parseReference(target);
  const client = new RegistryClient(options);
  try {
    const pushed = await pushImage(client, ref, image, options.reporter);
    return `${fullName(ref)}@${pushed.digest}`;
  } finally {
    client.close();
  }
}
