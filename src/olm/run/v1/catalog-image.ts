// The catalog image `run bundle --olm v1` pushes beside the bundle: the served bundles as a
// file-based catalog at /configs/<package>/catalog.json, labelled with the configs directory, in a
// FROM-scratch image built without a container engine (as `tsop bundle push` builds bundle images).
// catalogd only unpacks a catalog image and never runs it, so no opm base is needed (and none
// pulled). The same catalog gives the same digest.
import type { Reporter } from "../../../common/reporter.js";
import type { InstallableBundle } from "../../../bundle/load/index.js";
import { type BuiltImage, singleLayerImage } from "../../../oci/bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "../../../oci/client.js";
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
  return singleLayerImage(
    [
      { path: "configs/", type: "directory", mode: 0o755 },
      { path: `configs/${pkg}/`, type: "directory", mode: 0o755 },
      {
        path: `configs/${pkg}/catalog.json`,
        type: "file",
        mode: 0o644,
        content: Buffer.from(catalogJson(content)),
      },
    ],
    { [CONFIGS_LABEL]: "/configs" },
  );
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
