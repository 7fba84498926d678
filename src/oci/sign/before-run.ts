// `--verify-key` of `run bundle`, `run bundle-upgrade` and `deploy`: before anything is created in the cluster,
// the bundle image and every image its ClusterServiceVersion names (install deployments' containers
// and init containers, RELATED_IMAGE_* env, relatedImages) must carry a valid signature made with
// the key (verify.ts). Fails closed on the first image that does not, naming it and why; the bundle
// is read at the digest that verified, so a tag moved in between cannot slip another bundle in.
import type { KeyObject } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Reporter } from "../../common/reporter.js";
import { RegistryClient, type RegistryClientOptions } from "../client.js";
import { csvImagesIn } from "../csv-images.js";
import { pullBundleToTemp } from "../pull.js";
import { type ImageReference, parseReference, pinnedReference } from "../reference.js";
import { readPublicKeyFile } from "./key-files.js";
import { ImageVerificationError, verifyImage } from "./verify.js";

export interface VerifyBeforeRunOptions extends RegistryClientOptions {
  /** The bundle image as given to the command. */
  bundleImage: string;
  /** The public key file (cosign.pub). */
  verifyKey: string;
  /** Who named the key (policy.ts: `--verify-key`, `$TSOP_VERIFY_KEY`, a PROJECT field), for errors. */
  verifyKeyOrigin?: string;
  reporter: Reporter;
}

/** A key and where it came from, as refusals name it. */
interface Verifier {
  key: KeyObject;
  /** `key.pub` or `key.pub (from $TSOP_VERIFY_KEY)`. */
  named: string;
}

async function verifier(file: string, origin: string | undefined, reporter: Reporter): Promise<Verifier> {
  const named = origin ? `${file} (from ${origin})` : file;
  const key = await readPublicKeyFile(file, origin);
  reporter.info(`Verifying signatures with the public key ${named}`);
  return { key, named };
}

/** verifyImage, its refusal naming the key it was checked against. */
async function verifyWith(client: RegistryClient, ref: ImageReference, verifier: Verifier) {
  try {
    return await verifyImage(client, ref, verifier.key);
  } catch (error) {
    if (!(error instanceof ImageVerificationError)) throw error;
    throw new ImageVerificationError(
      error.image,
      error.failure,
      `${error.reason}; checked with the public key ${verifier.named}`,
    );
  }
}

/** `deploy --verify-key`: each of `images` must carry a valid signature made with the key in `verifyKey`. */
export async function verifyImages(
  images: readonly string[],
  options: RegistryClientOptions & { verifyKey: string; verifyKeyOrigin?: string; reporter: Reporter },
): Promise<VerifiedImages> {
  const key = await verifier(options.verifyKey, options.verifyKeyOrigin, options.reporter);
  const client = new RegistryClient(options);
  try {
    const verified: string[] = [];
    for (const image of new Set(images)) {
      const result = await verifyWith(client, parseReference(image), key);
      options.reporter.info(`Signature verified: ${image} (${result.image})`);
      verified.push(result.image);
    }
    return { images: verified };
  } finally {
    client.close();
  }
}

export interface VerifiedImages {
  /** Every image checked, pinned, the bundle first. */
  images: string[];
}

export async function verifyBundleImages(options: VerifyBeforeRunOptions): Promise<VerifiedImages> {
  const key = await verifier(options.verifyKey, options.verifyKeyOrigin, options.reporter);
  const client = new RegistryClient(options);
  try {
    const bundleRef = parseReference(options.bundleImage);
    const bundle = await verifyWith(client, bundleRef, key);
    options.reporter.info(`Signature verified: bundle ${bundle.image}`);
    const verified = [bundle.image];
    for (const image of await csvImages(pinnedReference(bundleRef, bundle.digest), options, client)) {
      const result = await verifyWith(client, parseReference(image), key);
      options.reporter.info(`Signature verified: ${image} (${result.image})`);
      verified.push(result.image);
    }
    return { images: verified };
  } finally {
    client.close();
  }
}

/** The distinct images the bundle's CSV names, in the order they appear. */
async function csvImages(
  pinned: string,
  options: VerifyBeforeRunOptions,
  client: RegistryClient,
): Promise<string[]> {
  const pulled = await pullBundleToTemp({ image: pinned }, { ...options, client });
  try {
    const names = (await readdir(join(pulled.dir, "manifests"))).sort();
    return await csvImagesIn(
      pulled.dir,
      names.map((name) => `manifests/${name}`),
    );
  } finally {
    await pulled.remove();
  }
}
