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
import { tsopVersion } from "../common/version.js";
import { type BuiltImage, buildBundleImage, epochFrom } from "./bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "./client.js";
import { sha256Digest } from "./digest.js";
import type { ImageIndex } from "./media-types.js";
import { type ResourceDescriptor, resource } from "./provenance/statement.js";
import { attachSbom, bundleSbom, CYCLONEDX_MEDIA_TYPE, hashFiles } from "./sbom/index.js";
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
  /** false: do not attach the SBOM to the pushed image (--no-sbom). */
  sbom?: boolean;
  reporter: Reporter;
}

export interface BundlePushResult {
  image: string;
  digest: string;
  labels: Record<string, string>;
  files: string[];
  /** Where it went: the registry reference, or the layout directory. */
  destination: string;
  /** The CycloneDX SBOM: its sha256 digest, and when attached, the artifact manifest's digest. */
  sbom: { digest: string; attached?: string };
  /** What the image was built from, for its provenance: each file by digest. */
  resolvedDependencies: ResourceDescriptor[];
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
  const files = await hashFiles(options.dir, built.files);
  const sbom = await bundleSbom({
    dir: options.dir,
    files,
    subject: { repository: `${ref.registry}/${ref.repository}`, tag: ref.tag ?? "latest" },
    tool: { version: tsopVersion() },
    ...withEpoch(epochFrom(options)),
  });
  const base = {
    image: familiarReference(ref),
    digest: built.manifestDescriptor.digest,
    labels: built.labels,
    files: built.files,
    sbom: { digest: sha256Digest(sbom) },
    resolvedDependencies: files.map((f) => resource(f.path, f.digest)),
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
    const pushed = { ...base, destination: canonicalReference(ref) };
    if (options.sbom === false) return pushed;
    const attached = await attachSbom(client, ref, built.manifestDescriptor, sbom, CYCLONEDX_MEDIA_TYPE);
    reporter.debug(`SBOM ${attached.digest} attached (tags ${attached.tags.join(", ")})`);
    return { ...pushed, sbom: { ...pushed.sbom, attached: attached.digest } };
  } finally {
    client.close();
  }
}

function withEpoch(epoch: number | undefined): { epoch?: number } {
  return epoch === undefined ? {} : { epoch };
}
