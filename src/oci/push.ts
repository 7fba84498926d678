// Shipping a built image: to a registry (blobs first, each skipped when present, then the
// manifest under the tag) or into an OCI image layout directory (blobs/sha256/*, index.json with
// the tag as org.opencontainers.image.ref.name; other images in the layout are kept).
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { writeFileAtomic } from "../common/fs.js";
import { assertWritableDir } from "../common/output/commit.js";
import { assertOutputDir } from "../common/output/output-dir.js";
import { findProjectRoot } from "../project/index.js";
import type { Reporter } from "../common/reporter.js";
import { type BuiltImage, buildBundleImage } from "./bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "./client.js";
import { sha256Digest } from "./digest.js";
import type { ImageIndex } from "./media-types.js";
import { canonicalReference, familiarReference, type ImageReference, parseReference } from "./reference.js";

export interface PushResult {
  reference: string;
  digest: string;
  size: number;
  blobs: Array<{ digest: string; how: "exists" | "mounted" | "uploaded" }>;
}

export async function pushImage(
  client: RegistryClient,
  ref: ImageReference,
  image: BuiltImage,
  reporter: Reporter,
  options: { chunkSize?: number; mountFrom?: string } = {},
): Promise<PushResult> {
  const digest = image.manifestDescriptor.digest;
  if (ref.digest && ref.digest !== digest) {
    throw new InvalidInputError(`cannot push to ${ref.original}: the image's digest is ${digest}`, {
      hint: "Push to a tag; a digest reference must match the content.",
    });
  }
  const blobs: PushResult["blobs"] = [];
  for (const data of [image.layer, image.config]) {
    const result = await client.uploadBlob(ref.registry, ref.repository, data, options);
    reporter.debug(`blob ${result.digest}: ${result.how}`);
    blobs.push({ digest: result.digest, how: result.how });
  }
  await client.putManifest(
    ref.registry,
    ref.repository,
    ref.tag ?? (ref.digest ? digest : "latest"),
    image.manifest,
    image.manifestDescriptor.mediaType,
  );
  return { reference: familiarReference(ref), digest, size: image.manifestDescriptor.size, blobs };
}

const REF_NAME = "org.opencontainers.image.ref.name";

export async function writeOciLayout(dir: string, image: BuiltImage, refName: string): Promise<string> {
  const blobs = join(dir, "blobs", "sha256");
  // mkdir -p reports a read-only mount as ENOENT: check first, for a message that names the layout.
  await assertWritableDir(dir);
  await mkdir(blobs, { recursive: true });
  for (const data of [image.layer, image.config, image.manifest]) {
    const path = join(blobs, sha256Digest(data).slice("sha256:".length));
    const existing = await stat(path).catch(() => undefined);
    if (existing?.size !== data.length) await writeFile(path, data);
  }
  const layoutFile = join(dir, "oci-layout");
  let index: ImageIndex = { schemaVersion: 2, manifests: [] };
  const indexPath = join(dir, "index.json");
  const current = await readFile(indexPath, "utf8").catch(() => undefined);
  if (current !== undefined) {
    try {
      index = JSON.parse(current) as ImageIndex;
      if (!Array.isArray(index.manifests)) throw new Error("no manifests list");
    } catch (error) {
      throw new InvalidInputError(`${indexPath} is not an OCI image index: ${(error as Error).message}`, {
        hint: "Point --oci-layout at an empty directory or an existing OCI layout.",
      });
    }
  }
  index.manifests = [
    ...index.manifests.filter((m) => m.annotations?.[REF_NAME] !== refName),
    { ...image.manifestDescriptor, annotations: { [REF_NAME]: refName } },
  ];
  await writeFileAtomic(layoutFile, `${JSON.stringify({ imageLayoutVersion: "1.0.0" })}\n`);
  await writeFileAtomic(indexPath, `${JSON.stringify(index)}\n`);
  return image.manifestDescriptor.digest;
}

export interface BundlePushOptions extends RegistryClientOptions {
  /** The bundle directory (manifests/, metadata/, tests/). */
  dir: string;
  /** Write an OCI image layout here instead of pushing. */
  ociLayout?: string;
  sourceDateEpoch?: number;
  chunkSize?: number;
  reporter: Reporter;
}

export interface BundlePushResult {
  image: string;
  digest: string;
  labels: Record<string, string>;
  files: string[];
  /** Where it went: the registry reference, or the layout directory. */
  destination: string;
}

/** `tsop bundle push`: builds the bundle image and pushes it (or writes an OCI layout). */
/** --oci-layout: the output-dir rule (never the project, nothing but a layout in it), before any work. */
export async function checkLayoutDir(dir: string): Promise<void> {
  const root = await findProjectRoot(resolve(dir));
  await assertOutputDir(dir, {
    shown: `--oci-layout ${dir}`,
    ...(root === undefined ? {} : { root }),
    owned: ["oci-layout", "index.json", "blobs"],
    holds: "an OCI image layout holds only oci-layout, index.json and blobs/",
  });
}

export async function pushBundle(image: string, options: BundlePushOptions): Promise<BundlePushResult> {
  const { reporter } = options;
  const ref = parseReference(image);
  if (options.ociLayout) await checkLayoutDir(options.ociLayout);
  const built = await buildBundleImage(options.dir, {
    ...(options.sourceDateEpoch !== undefined ? { sourceDateEpoch: options.sourceDateEpoch } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  reporter.debug(
    `bundle image ${built.manifestDescriptor.digest}: ${built.files.length} entries, layer ${built.layer.length} bytes`,
  );
  const base = {
    image: familiarReference(ref),
    digest: built.manifestDescriptor.digest,
    labels: built.labels,
    files: built.files,
  };
  if (options.ociLayout) {
    const refName = ref.tag ?? "latest";
    await writeOciLayout(options.ociLayout, built, refName);
    reporter.success(
      `Wrote ${familiarReference(ref)} to the OCI layout ${options.ociLayout} (tag ${refName})`,
    );
    return { ...base, destination: `${options.ociLayout}:${refName}` };
  }
  const client = new RegistryClient({ ...options, reporter });
  try {
    const progress = reporter.progress(`Pushing ${familiarReference(ref)}`);
    try {
      const result = await pushImage(client, ref, built, reporter, {
        ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
      });
      progress.succeed(`Pushed ${result.reference}@${result.digest}`);
    } catch (error) {
      progress.fail(`Could not push ${familiarReference(ref)}`);
      throw error;
    }
    return { ...base, destination: canonicalReference(ref) };
  } finally {
    client.close();
  }
}
