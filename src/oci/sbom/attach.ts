// Attaching an SBOM to a pushed image, readable three ways from one manifest: an OCI 1.1 artifact
// manifest (artifactType application/vnd.cyclonedx+json, empty config, the SBOM as its one layer,
// `subject` = the image) pushed by digest, which registries with the referrers API index by itself;
// the referrers tag schema for registries without that API (an image index under the tag
// `sha256-<hex>` listing the artifact; Debian's docker-registry 2.8 has no referrers API); and
// cosign's own tag `sha256-<hex>.sbom`, which `cosign download sbom` reads.
import type { RegistryClient } from "../client.js";
import { sha256Digest } from "../digest.js";
import { RegistryError } from "../errors.js";
import { type Descriptor, type ImageIndex, MediaType } from "../media-types.js";
import type { ImageReference } from "../reference.js";
import { attachmentTag } from "../sign/layout.js";

const EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json";
const EMPTY = Buffer.from("{}");

export interface AttachedSbom {
  /** The artifact manifest's digest. */
  digest: string;
  /** The tags written: the referrers fallback index and cosign's .sbom tag. */
  tags: string[];
}

export async function attachSbom(
  client: RegistryClient,
  ref: ImageReference,
  subject: Descriptor,
  sbom: Buffer,
  mediaType: string,
): Promise<AttachedSbom> {
  const { registry, repository } = ref;
  await client.uploadBlob(registry, repository, EMPTY);
  await client.uploadBlob(registry, repository, sbom);
  const manifest = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    artifactType: mediaType,
    config: {
      mediaType: EMPTY_MEDIA_TYPE,
      digest: sha256Digest(EMPTY),
      size: EMPTY.length,
      data: EMPTY.toString("base64"),
    },
    layers: [{ mediaType, digest: sha256Digest(sbom), size: sbom.length }],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
  };
  const body = Buffer.from(JSON.stringify(manifest));
  const digest = sha256Digest(body);
  await client.putManifest(registry, repository, digest, body, MediaType.ociManifest);
  const fallbackTag = subject.digest.replace(":", "-");
  await addToReferrersIndex(client, ref, fallbackTag, {
    mediaType: MediaType.ociManifest,
    digest,
    size: body.length,
    artifactType: mediaType,
  });
  const cosignTag = attachmentTag(subject.digest, "sbom");
  await client.putManifest(registry, repository, cosignTag, body, MediaType.ociManifest);
  return { digest, tags: [fallbackTag, cosignTag] };
}

/** The referrers tag schema: read the index under the tag (if any), add the descriptor once, put it back. */
async function addToReferrersIndex(
  client: RegistryClient,
  ref: ImageReference,
  tag: string,
  descriptor: Descriptor & { artifactType: string },
): Promise<void> {
  let index: ImageIndex = { schemaVersion: 2, mediaType: MediaType.ociIndex, manifests: [] };
  try {
    const found = await client.getManifest({ ...ref, tag, digest: undefined }, tag);
    if (found.mediaType === MediaType.ociIndex) index = found.json as unknown as ImageIndex;
  } catch (error) {
    if (!(error instanceof RegistryError && error.kind === "not-found")) throw error;
  }
  if (index.manifests.some((m) => m.digest === descriptor.digest)) return;
  index = { ...index, manifests: [...index.manifests, descriptor] };
  await client.putManifest(
    ref.registry,
    ref.repository,
    tag,
    Buffer.from(JSON.stringify(index)),
    MediaType.ociIndex,
  );
}
