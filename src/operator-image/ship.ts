// Where a built image goes. To a registry: base layers mounted across repositories when base and
// target share a registry (copied otherwise, verified by digest), app layers and configs uploaded
// unless present, platform manifests by digest, then the top manifest (image or index) under the
// tag. Or into an OCI image layout: every blob written, index.json naming the top manifest.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { writeFileAtomic } from "../common/fs.js";
import type { Reporter } from "../common/reporter.js";
import type { RegistryClient } from "../oci/client.js";
import type { Descriptor, ImageIndex } from "../oci/media-types.js";
import { familiarReference, type ImageReference } from "../oci/reference.js";
import type { PlatformImage } from "./image-config.js";

/** The result of a build: one image per platform, and an index over them when there are several. */
export interface BuiltApp {
  images: PlatformImage[];
  index: { body: Buffer; descriptor: Descriptor } | undefined;
  /** The digest that names the whole build (the index's, or the one image's). */
  top: Descriptor;
  topBody: Buffer;
}

const MAX_BASE_LAYER_BYTES = 2 * 1024 * 1024 * 1024;

type BlobCounts = Record<"exists" | "mounted" | "copied" | "uploaded", number>;

/** Layers of the base this build did not make, keyed by digest. */
function baseLayers(app: BuiltApp): Descriptor[] {
  const own = new Set(app.images.flatMap((i) => i.appLayers.map((l) => l.digest)));
  const byDigest = new Map<string, Descriptor>();
  for (const image of app.images)
    for (const l of image.layers) if (!own.has(l.digest)) byDigest.set(l.digest, l);
  return [...byDigest.values()];
}

/** Buffers this build made (app layers, configs), keyed by digest. */
function ownBlobs(app: BuiltApp): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  for (const image of app.images) {
    for (const l of image.appLayers) blobs.set(l.digest, l.blob);
    blobs.set(image.configDescriptor.digest, image.config);
  }
  return blobs;
}

/** Pushes the build under the target's tag with a progress line; returns the image pinned by digest. */
export async function pushApp(
  client: RegistryClient,
  app: BuiltApp,
  target: ImageReference,
  base: ImageReference,
  reporter: Reporter,
): Promise<string> {
  const progress = reporter.progress(`Pushing ${familiarReference(target)}`);
  try {
    await pushBlobsAndManifests(client, app, target, base, reporter);
  } catch (error) {
    progress.fail(`Could not push ${familiarReference(target)}`);
    throw error;
  }
  const pinned = `${target.writtenName}@${app.top.digest}`;
  progress.succeed(`Pushed ${pinned}`);
  return pinned;
}

async function pushBlobsAndManifests(
  client: RegistryClient,
  app: BuiltApp,
  target: ImageReference,
  base: ImageReference,
  reporter: Reporter,
): Promise<BlobCounts> {
  const counts: BlobCounts = { exists: 0, mounted: 0, copied: 0, uploaded: 0 };
  const { registry, repository } = target;
  for (const layer of baseLayers(app)) {
    if (await client.hasBlob(registry, repository, layer.digest)) counts.exists++;
    else if (
      base.registry === registry &&
      (await client.mountBlob(registry, repository, layer.digest, base.repository))
    )
      counts.mounted++;
    else {
      const data = await client.getBlob(base.registry, base.repository, layer, MAX_BASE_LAYER_BYTES);
      await client.uploadBlob(registry, repository, data);
      counts.copied++;
    }
  }
  for (const data of ownBlobs(app).values()) {
    const result = await client.uploadBlob(registry, repository, data);
    counts[result.how === "exists" ? "exists" : "uploaded"]++;
  }
  if (app.index) {
    for (const image of app.images) {
      await client.putManifest(
        registry,
        repository,
        image.manifestDescriptor.digest,
        image.manifest,
        image.manifestDescriptor.mediaType,
      );
    }
  }
  await client.putManifest(
    registry,
    repository,
    target.tag ?? app.top.digest,
    app.topBody,
    app.top.mediaType,
  );
  reporter.debug(
    `blobs: ${counts.exists} present, ${counts.mounted} mounted, ${counts.copied} copied, ${counts.uploaded} uploaded`,
  );
  return counts;
}

const REF_NAME = "org.opencontainers.image.ref.name";

async function writeBlob(blobsDir: string, digest: string, data: Buffer): Promise<void> {
  const path = join(blobsDir, digest.slice("sha256:".length));
  if ((await stat(path).catch(() => undefined))?.size !== data.length) await writeFile(path, data);
}

async function readLayoutIndex(indexPath: string): Promise<ImageIndex> {
  const current = await readFile(indexPath, "utf8").catch(() => undefined);
  if (current === undefined) return { schemaVersion: 2, manifests: [] };
  try {
    const index = JSON.parse(current) as ImageIndex;
    if (!Array.isArray(index.manifests)) throw new Error("no manifests list");
    return index;
  } catch (error) {
    throw new InvalidInputError(`${indexPath} is not an OCI image index: ${(error as Error).message}`, {
      hint: "Point --oci-layout at an empty directory or an existing OCI layout.",
    });
  }
}

/** Writes the build into an OCI layout (base layers fetched from the base's registry). */
export async function writeAppLayout(
  client: RegistryClient,
  app: BuiltApp,
  dir: string,
  refName: string,
  base: ImageReference,
): Promise<void> {
  const blobsDir = join(dir, "blobs", "sha256");
  await mkdir(blobsDir, { recursive: true });
  for (const layer of baseLayers(app)) {
    const present = (await stat(join(blobsDir, layer.digest.slice("sha256:".length))).catch(() => undefined))
      ?.size;
    if (present === layer.size) continue;
    await writeBlob(
      blobsDir,
      layer.digest,
      await client.getBlob(base.registry, base.repository, layer, MAX_BASE_LAYER_BYTES),
    );
  }
  for (const [digest, data] of ownBlobs(app)) await writeBlob(blobsDir, digest, data);
  for (const image of app.images) await writeBlob(blobsDir, image.manifestDescriptor.digest, image.manifest);
  await writeBlob(blobsDir, app.top.digest, app.topBody);
  const indexPath = join(dir, "index.json");
  const index = await readLayoutIndex(indexPath);
  index.manifests = [
    ...index.manifests.filter((m) => m.annotations?.[REF_NAME] !== refName),
    { ...app.top, annotations: { [REF_NAME]: refName } },
  ];
  await writeFileAtomic(join(dir, "oci-layout"), `${JSON.stringify({ imageLayoutVersion: "1.0.0" })}\n`);
  await writeFileAtomic(indexPath, `${JSON.stringify(index)}\n`);
}
