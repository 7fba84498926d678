// The app image's config and manifest, derived from a base platform image: the base's layers and
// settings kept, the app layers appended, and what runs set here: `node <OPERATOR_NODE_FLAGS>
// dist/main.js` from /app as
// the numeric non-root user 65532 (no name to resolve, admitted by Pod Security "restricted"),
// NODE_ENV=production, and the OCI labels. Nothing from the build machine (env, user, paths) enters.
import { posix } from "node:path";
import { sha256Digest } from "../oci/digest.js";
import { type Descriptor, type ImageManifest, MediaType } from "../oci/media-types.js";
import type { BasePlatformImage } from "./base.js";
import { OPERATOR_NODE_FLAGS } from "./defaults.js";
import type { BuiltLayer } from "./tree-layer.js";

export const APP_DIR = "/app";
export const APP_USER = "65532:65532";

export interface AppLayer {
  layer: BuiltLayer;
  /** What the layer holds, for the history ("dependencies", "app"). */
  what: string;
}

export interface PlatformImage {
  platform: BasePlatformImage["platform"];
  config: Buffer;
  configDescriptor: Descriptor;
  manifest: Buffer;
  manifestDescriptor: Descriptor;
  /** Every layer, base ones first. */
  layers: Descriptor[];
  /** The layers this build made (the rest come from the base). */
  appLayers: BuiltLayer[];
}

/** The node binary to run: the base's entrypoint when it is node (distroless: /nodejs/bin/node), else node on PATH. */
export function nodeCommand(baseConfig: Record<string, unknown>): string {
  const entrypoint = (baseConfig.config as { Entrypoint?: unknown } | undefined)?.Entrypoint;
  const first = Array.isArray(entrypoint) && entrypoint.length === 1 ? entrypoint[0] : undefined;
  return typeof first === "string" && /^node(js)?$/.test(posix.basename(first)) ? first : "node";
}

function withEnv(env: unknown, name: string, value: string): string[] {
  const list = Array.isArray(env) ? env.filter((e): e is string => typeof e === "string") : [];
  return [...list.filter((e) => !e.startsWith(`${name}=`)), `${name}=${value}`];
}

function isDockerManifest(mediaType: string): boolean {
  return mediaType === MediaType.dockerManifest;
}

export function buildPlatformImage(
  base: BasePlatformImage,
  appLayers: readonly AppLayer[],
  labels: Record<string, string>,
  created: string,
): PlatformImage {
  const runConfig = { ...((base.config.config as Record<string, unknown> | undefined) ?? {}) };
  delete runConfig.Cmd;
  runConfig.Entrypoint = [nodeCommand(base.config), ...OPERATOR_NODE_FLAGS, "dist/main.js"];
  runConfig.User = APP_USER;
  runConfig.WorkingDir = APP_DIR;
  runConfig.Env = withEnv(runConfig.Env, "NODE_ENV", "production");
  runConfig.Labels = { ...((runConfig.Labels as Record<string, string> | undefined) ?? {}), ...labels };
  return derivePlatformImage(base, appLayers, runConfig, created, "tsop image build");
}

/**
 * An image on a base platform image: the base's layers and config kept, `layers` appended (each
 * with a history entry `<createdBy>: <what>`), and `runConfig` as what runs (entrypoint, labels, ...).
 */
export function derivePlatformImage(
  base: BasePlatformImage,
  appLayers: readonly AppLayer[],
  runConfig: Record<string, unknown>,
  created: string,
  createdBy: string,
): PlatformImage {
  const docker = isDockerManifest(base.mediaType);
  const rootfs = base.config.rootfs as { diff_ids?: string[] } | undefined;
  const history = Array.isArray(base.config.history) ? base.config.history : [];
  const configJson = {
    ...base.config,
    created,
    config: runConfig,
    rootfs: {
      type: "layers",
      diff_ids: [...(rootfs?.diff_ids ?? []), ...appLayers.map((l) => l.layer.diffId)],
    },
    history: [
      ...history,
      ...appLayers.map((l) => ({
        created,
        created_by: `${createdBy}: ${l.what}`,
        comment: createdBy,
      })),
    ],
  };
  const config = Buffer.from(JSON.stringify(configJson));
  const configDescriptor: Descriptor = {
    mediaType: docker ? MediaType.dockerConfig : MediaType.ociConfig,
    digest: sha256Digest(config),
    size: config.length,
  };
  const layerType = docker ? MediaType.dockerLayerGzip : MediaType.ociLayerGzip;
  const layers: Descriptor[] = [
    ...base.manifest.layers,
    ...appLayers.map((l) => ({ mediaType: layerType, digest: l.layer.digest, size: l.layer.blob.length })),
  ];
  const manifestMediaType = docker ? MediaType.dockerManifest : MediaType.ociManifest;
  const manifestJson: ImageManifest = {
    schemaVersion: 2,
    mediaType: manifestMediaType,
    config: configDescriptor,
    layers,
  };
  const manifest = Buffer.from(JSON.stringify(manifestJson));
  return {
    platform: base.platform,
    config,
    configDescriptor,
    manifest,
    manifestDescriptor: {
      mediaType: manifestMediaType,
      digest: sha256Digest(manifest),
      size: manifest.length,
    },
    layers,
    appLayers: appLayers.map((l) => l.layer),
  };
}

/** The index over several platform images, in the same format family as the base. */
export function buildIndex(
  images: readonly PlatformImage[],
  docker: boolean,
): { body: Buffer; descriptor: Descriptor } {
  const mediaType = docker ? MediaType.dockerManifestList : MediaType.ociIndex;
  const body = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      manifests: images.map((i) => ({ ...i.manifestDescriptor, platform: i.platform })),
    }),
  );
  return { body, descriptor: { mediaType, digest: sha256Digest(body), size: body.length } };
}
