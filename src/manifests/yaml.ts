// YAML in and out. Reading splits multi-document streams and remembers each document's file;
// writing follows the Kubernetes tooling style (sorted keys, sequences flush with their key) so
// output is byte-stable.
import { createReadStream } from "node:fs";
import { readFile, stat } from "../common/local-fs.js";
import { parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import { InvalidInputError } from "../common/errors.js";
import { isRecord, type ManifestObject, type LoadedObject } from "./object.js";
import { plainYaml, stringifyYaml } from "../common/yaml.js";
import { emitYamlDocument } from "../common/yaml-emit.js";
import { quickYamlDocuments } from "../common/yaml-quick.js";

/**
 * A YAML syntax error as a clean error naming file:line:column (the position is in the message,
 * like a compiler's, so the CLI prints it once).
 */
export function yamlSyntaxError(error: YAMLError, file: string, text: string): InvalidInputError {
  const { line, column } = lineColumn(text, error.pos[0]);
  return new InvalidInputError(`invalid YAML in ${file}:${line}:${column}: ${error.message.split("\n")[0]}`, {
    hint: "fix the YAML syntax and run again",
  });
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: before.length - lastBreak };
}

export { MAX_YAML_ALIASES } from "../common/yaml.js";

/** A parsed document as plain values; an alias bomb is refused by name instead of being expanded. */
function plainValue(doc: Parameters<typeof plainYaml>[0], file: string, line: number): unknown {
  return plainYaml(doc, `${file}:${line}`);
}

/** Parses one YAML document (a config file); a syntax error names file:line:column. */
export function parseYaml(text: string, file: string): unknown {
  const quick = quickYamlDocuments(text);
  if (quick?.length === 1) return quick[0];
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) throw yamlSyntaxError(error, file, text);
  return plainValue(doc, file, 1);
}

export interface YamlDocument {
  value: unknown;
}

/**
 * Every document of a YAML stream as plain values (empty ones included, as null or undefined). A
 * syntax error names file:line:column; an alias bomb is refused. Plain Kubernetes YAML is read by
 * the quick reader (common/yaml-quick.ts), anything it is not sure of by the yaml package.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const quick = quickYamlDocuments(text);
  if (quick) return quick.map((value) => ({ value }));
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((doc) => {
    const error = doc.errors[0];
    if (error) throw yamlSyntaxError(error, file, text);
    const line = doc.range ? lineColumn(text, doc.range[0]).line : 1;
    return { value: plainValue(doc, file, line) };
  });
}

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

/**
 * One YAML document in the Kubernetes tooling style: sorted keys, 2-space indent. Plain data is
 * written by the direct writer (common/yaml-emit.ts, the same bytes), anything else by the package.
 */
export function toYaml(value: unknown): string {
  return (
    emitYamlDocument(value) ??
    stringifyYaml(value, {
      sortMapEntries: true,
      indentSeq: false,
      lineWidth: 0,
      minContentWidth: 0,
      aliasDuplicateObjects: false,
    })
  );
}
