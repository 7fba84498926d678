// Manifest files as Kubernetes objects: a multi-document stream read within a size limit (file,
// FIFO or stdin), each document an object that remembers the file it came from. The YAML itself is
// read by common/yaml/.
import { createReadStream } from "node:fs";
import { readFile, stat } from "../common/fs.js";
import { InvalidInputError } from "../common/errors.js";
import { parseYamlDocuments, type YamlDocument } from "../common/yaml/read.js";
import { isRecord, type ManifestObject, type LoadedObject } from "./object.js";

/** Parses every non-empty document of a YAML stream into Kubernetes objects; errors name file:line:column. */
export function parseDocuments(text: string, file: string): LoadedObject[] {
  return loadedObjects(parseYamlDocuments(text, file), file);
}

/** The non-empty documents as Kubernetes objects (each must be a mapping). */
export function loadedObjects(documents: YamlDocument[], file: string): LoadedObject[] {
  const out: LoadedObject[] = [];
  documents.forEach(({ value }, index) => {
    if (value === null || value === undefined) return;
    if (!isRecord(value)) {
      throw new InvalidInputError(`document ${index + 1} is not a mapping (a Kubernetes object)`, {
        location: { file },
      });
    }
    out.push({ object: value as ManifestObject, origin: { file, doc: index } });
  });
  return out;
}

/** The largest manifest file (-f, stdin) tsop reads; larger ones are refused while streaming. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

export function tooLargeError(displayName: string, bytes: number | undefined): InvalidInputError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const size = bytes === undefined ? `more than ${mib(MAX_MANIFEST_BYTES)}` : mib(bytes);
  return new InvalidInputError(
    `the file is too large (${size}); tsop reads manifests of up to ${mib(MAX_MANIFEST_BYTES)}`,
    {
      location: { file: displayName },
      hint: "check that this is the right file (rendered manifests), or split it into smaller files",
    },
  );
}

/** Reads text from a stream, refusing it as soon as it passes the limit (never holding more). */
export async function readCapped(
  stream: AsyncIterable<Buffer | string>,
  displayName: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    total += buffer.byteLength;
    if (total > MAX_MANIFEST_BYTES) throw tooLargeError(displayName, undefined);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function readManifestFile(path: string, displayName: string): Promise<string> {
  const info = await stat(path);
  // A FIFO or device is streamed, refused as soon as it passes the limit.
  if (!info.isFile()) return readCapped(createReadStream(path), displayName);
  // The size is known for a regular file: refuse before reading a byte.
  if (info.size > MAX_MANIFEST_BYTES) throw tooLargeError(displayName, info.size);
  const bytes = await readFile(path);
  if (bytes.byteLength > MAX_MANIFEST_BYTES) throw tooLargeError(displayName, bytes.byteLength);
  return bytes.toString("utf8");
}

export async function readDocuments(path: string, displayName = path): Promise<LoadedObject[]> {
  let text: string;
  try {
    text = await readManifestFile(path, displayName);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(`cannot read the file: ${(error as Error).message}`, {
      location: { file: displayName },
      cause: error,
    });
  }
  return parseDocuments(text, displayName);
}
