// Reading an image out of a local OCI image layout (oci-layout, index.json, blobs/<alg>/<hex>), the
// same checks as a registry pull: digests verified, sizes bounded, and blob paths built only from
// well-formed digests, never followed through symlinks.
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { digestOf } from "./digest.js";
import type { Descriptor } from "./media-types.js";
import { digestProblem } from "./reference.js";

const MAX_INDEX_BYTES = 4 * 1024 * 1024;
const REF_NAME = "org.opencontainers.image.ref.name";

export interface FetchedManifest {
  digest: string;
  mediaType: string;
  json: Record<string, unknown>;
}

/** Where unpackImage reads manifests and blobs from: a registry or a local OCI layout. */
export interface ImageSource {
  /** Names the image in messages. */
  label: string;
  /** The top manifest (no descriptor) or the one a descriptor of the top index names. */
  manifest(descriptor?: Descriptor): Promise<FetchedManifest>;
  blob(descriptor: Descriptor, maxBytes: number): Promise<Buffer>;
}

function layoutError(dir: string, problem: string): InvalidInputError {
  return new InvalidInputError(`OCI layout ${dir}: ${problem}`, {
    location: { file: dir },
    hint: "Write the layout with `tsop bundle push <ref> --oci-layout <dir>` or `skopeo copy … oci:<dir>:<tag>`.",
  });
}

/** Reads a file of the layout that must be a regular file of at most maxBytes. */
async function readBounded(dir: string, path: string, maxBytes: number, what: string): Promise<Buffer> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) throw layoutError(dir, `${what} is missing`);
  if (!info.isFile()) throw layoutError(dir, `${what} is not a regular file`);
  if (info.size > maxBytes) throw layoutError(dir, `${what} is ${info.size} bytes, more than ${maxBytes}`);
  return readFile(path);
}

function parseJson(dir: string, data: Buffer, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(data.toString("utf8")) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw layoutError(dir, `${what} is not a JSON object`);
}

/** True when `dir` holds an `oci-layout` file (an OCI image layout rather than a bundle directory). */
export async function isOciLayout(dir: string): Promise<boolean> {
  return (await lstat(join(dir, "oci-layout")).catch(() => undefined))?.isFile() === true;
}

export function ociLayoutSource(dir: string, tag: string | undefined): ImageSource {
  const label = `${dir}${tag ? `:${tag}` : ""}`;
  const blob = async (descriptor: Descriptor, maxBytes: number): Promise<Buffer> => {
    const problem = digestProblem(descriptor.digest);
    if (problem) throw layoutError(dir, `descriptor digest "${descriptor.digest}" ${problem}`);
    const [algorithm, hex] = descriptor.digest.split(":") as [string, string];
    const data = await readBounded(
      dir,
      join(dir, "blobs", algorithm, hex),
      maxBytes,
      `blob ${descriptor.digest}`,
    );
    if (digestOf(data, descriptor.digest) !== descriptor.digest || data.length !== descriptor.size)
      throw layoutError(dir, `blob ${descriptor.digest} does not match its digest or size`);
    return data;
  };
  const top = async (): Promise<Descriptor> => {
    const marker = parseJson(
      dir,
      await readBounded(dir, join(dir, "oci-layout"), 4096, "oci-layout"),
      "oci-layout",
    );
    if (marker.imageLayoutVersion !== "1.0.0")
      throw layoutError(dir, "oci-layout is not imageLayoutVersion 1.0.0");
    const index = parseJson(
      dir,
      await readBounded(dir, join(dir, "index.json"), MAX_INDEX_BYTES, "index.json"),
      "index.json",
    );
    const manifests = (Array.isArray(index.manifests) ? index.manifests : []) as Descriptor[];
    const tags = manifests.map((m) => m.annotations?.[REF_NAME]).filter((t): t is string => Boolean(t));
    const chosen = tag ? manifests.filter((m) => m.annotations?.[REF_NAME] === tag) : manifests;
    if (chosen.length === 1) return chosen[0]!;
    if (tag) throw layoutError(dir, `has no image tagged "${tag}" (tags: ${tags.join(", ") || "none"})`);
    throw layoutError(
      dir,
      `holds ${manifests.length} images; name one as oci:${dir}:<tag> (tags: ${tags.join(", ") || "none"})`,
    );
  };
  return {
    label,
    async manifest(chosen) {
      const descriptor = chosen ?? (await top());
      const json = parseJson(dir, await blob(descriptor, MAX_INDEX_BYTES), `manifest ${descriptor.digest}`);
      const mediaType = typeof json.mediaType === "string" ? json.mediaType : descriptor.mediaType;
      return { digest: descriptor.digest, mediaType, json };
    },
    blob,
  };
}
