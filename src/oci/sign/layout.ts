// Where cosign keeps an image's signatures, without the referrers API: an OCI image manifest under
// the tag `sha256-<hex>.sig` in the image's repository, one layer per signature. Each layer is the
// simple-signing payload (media type application/vnd.dev.cosign.simplesigning.v1+json) with the
// base64 ECDSA signature in its `dev.cosignproject.cosign/signature` annotation; signing again
// appends a layer, so signatures of several keys accumulate as they do with `cosign sign`.
// Attestations (oci/provenance) live the same way under `sha256-<hex>.att` (appendAttachmentLayer).
import type { RegistryClient } from "../client.js";
import { sha256Digest } from "../digest.js";
import { RegistryError } from "../errors.js";
import { type Descriptor, type ImageManifest, MediaType } from "../media-types.js";
import type { ImageReference } from "../reference.js";

export const SIMPLE_SIGNING_MEDIA_TYPE = "application/vnd.dev.cosign.simplesigning.v1+json";
export const SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
/** A signature manifest holds at most this many layers' payloads worth reading (each is ~250 bytes). */
const MAX_PAYLOAD_BYTES = 64 * 1024;

/** `sha256:<hex>` → `sha256-<hex>.<suffix>`, cosign's tag for what it attaches to that digest. */
export function attachmentTag(digest: string, suffix: "sig" | "sbom" | "att"): string {
  return `${digest.replace(":", "-")}.${suffix}`;
}

export interface StoredSignature {
  payload: Buffer;
  /** base64 DER ECDSA signature, as the annotation holds it. */
  signature: string;
}

/** The manifest under cosign's tag `tag` (sha256-<hex>.sig or .att), or undefined when there is none. */
async function attachmentManifest(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
): Promise<ImageManifest | undefined> {
  try {
    const found = await client.getManifest({ ...ref, tag, digest: undefined }, tag);
    return found.json as unknown as ImageManifest;
  } catch (error) {
    if (error instanceof RegistryError && error.kind === "not-found") return undefined;
    throw error;
  }
}

/** Every signature stored for `digest` (empty when none), payloads fetched and digest-checked. */
export async function readSignatures(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
): Promise<StoredSignature[]> {
  const manifest = await attachmentManifest(client, ref, attachmentTag(digest, "sig"));
  const result: StoredSignature[] = [];
  for (const layer of manifest?.layers ?? []) {
    const signature = layer.annotations?.[SIGNATURE_ANNOTATION];
    if (layer.mediaType !== SIMPLE_SIGNING_MEDIA_TYPE || !signature) continue;
    const payload = await client.getBlob(ref.registry, ref.repository, layer, MAX_PAYLOAD_BYTES);
    result.push({ payload, signature });
  }
  return result;
}

/**
 * Adds a signature to `digest`'s signature manifest (creating it), as cosign does: the payload blob,
 * a config listing the layers, the manifest under the `.sig` tag. An identical signature is not added twice.
 */
export async function appendSignature(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  signature: StoredSignature,
): Promise<{ tag: string; signatures: number }> {
  const stored = await appendAttachmentLayer(client, ref, digest, "sig", {
    payload: signature.payload,
    mediaType: SIMPLE_SIGNING_MEDIA_TYPE,
    annotations: { [SIGNATURE_ANNOTATION]: signature.signature },
  });
  return { tag: stored.tag, signatures: stored.layers };
}

export interface AttachmentLayer {
  payload: Buffer;
  mediaType: string;
  annotations: Record<string, string>;
}

/**
 * Adds a layer to the manifest cosign keeps under `sha256-<hex>.<suffix>` (signatures: .sig,
 * attestations: .att), creating it: the payload blob, a config listing the layers, the manifest
 * under the tag. A layer with the same payload and annotations is not added twice.
 */
export async function appendAttachmentLayer(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  suffix: "sig" | "att",
  layer: AttachmentLayer,
): Promise<{ tag: string; layers: number }> {
  const tag = attachmentTag(digest, suffix);
  const existing = (await attachmentManifest(client, ref, tag))?.layers ?? [];
  const payloadDigest = sha256Digest(layer.payload);
  const same = (annotations: Record<string, string> | undefined) =>
    JSON.stringify(annotations ?? {}) === JSON.stringify(layer.annotations);
  const duplicate = existing.some((l) => l.digest === payloadDigest && same(l.annotations));
  const layers: Descriptor[] = duplicate
    ? existing
    : [
        ...existing,
        {
          mediaType: layer.mediaType,
          size: layer.payload.length,
          digest: payloadDigest,
          annotations: layer.annotations,
        },
      ];
  await client.uploadBlob(ref.registry, ref.repository, layer.payload);
  const config = Buffer.from(JSON.stringify(signatureConfig(layers)));
  await client.uploadBlob(ref.registry, ref.repository, config);
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: { mediaType: MediaType.ociConfig, size: config.length, digest: sha256Digest(config) },
    layers,
  };
  await client.putManifest(
    ref.registry,
    ref.repository,
    tag,
    Buffer.from(JSON.stringify(manifest)),
    MediaType.ociManifest,
  );
  return { tag, layers: layers.length };
}

/** The config go-containerregistry gives an image built from empty.Image plus these layers (no timestamps). */
function signatureConfig(layers: Descriptor[]): Record<string, unknown> {
  return {
    architecture: "",
    created: "0001-01-01T00:00:00Z",
    history: layers.map(() => ({ created: "0001-01-01T00:00:00Z" })),
    os: "",
    rootfs: { type: "layers", diff_ids: layers.map((l) => l.digest) },
    config: {},
  };
}
