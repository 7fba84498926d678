// The manifest, config and layer media types tsop reads and writes (Docker v2 schema 2 and OCI).
export const MediaType = {
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  ociConfig: "application/vnd.oci.image.config.v1+json",
  ociLayer: "application/vnd.oci.image.layer.v1.tar",
  ociLayerGzip: "application/vnd.oci.image.layer.v1.tar+gzip",
  ociLayerZstd: "application/vnd.oci.image.layer.v1.tar+zstd",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerManifestList: "application/vnd.docker.distribution.manifest.list.v2+json",
  dockerConfig: "application/vnd.docker.container.image.v1+json",
  dockerLayerGzip: "application/vnd.docker.image.rootfs.diff.tar.gzip",
  dockerLayer: "application/vnd.docker.image.rootfs.diff.tar",
} as const;

/** Accept header for manifest requests: every type tsop understands, indexes included. */
export const MANIFEST_ACCEPT = [
  MediaType.ociIndex,
  MediaType.dockerManifestList,
  MediaType.ociManifest,
  MediaType.dockerManifest,
].join(", ");

export function isIndexMediaType(mediaType: string | undefined): boolean {
  return mediaType === MediaType.ociIndex || mediaType === MediaType.dockerManifestList;
}

export function isImageManifestMediaType(mediaType: string | undefined): boolean {
  return mediaType === MediaType.ociManifest || mediaType === MediaType.dockerManifest;
}

export type LayerCompression = "gzip" | "none";

/** How a layer is compressed, or undefined for a layer type tsop cannot unpack. */
export function layerCompression(mediaType: string): LayerCompression | undefined {
  switch (mediaType) {
    case MediaType.ociLayerGzip:
    case MediaType.dockerLayerGzip:
      return "gzip";
    case MediaType.ociLayer:
    case MediaType.dockerLayer:
      return "none";
    default:
      return undefined;
  }
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: { architecture?: string; os?: string; variant?: string };
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}
