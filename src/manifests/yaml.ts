// YAML in and out. Reading splits multi-document streams and remembers each document's file;
// writing follows the Kubernetes tooling style (sorted keys, sequences flush with their key) so
// output is byte-stable.
import { readFile } from "node:fs/promises";
import { parseAllDocuments, parseDocument, stringify, type YAMLError } from "yaml";
import { InvalidInputError } from "../common/errors.js";
import { isRecord, type KubeObject, type LoadedObject } from "./object.js";

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

/** Parses one YAML document (a config file); a syntax error names file:line:column. */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) throw yamlSyntaxError(error, file, text);
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}

/** Parses every non-empty document of a YAML stream; a syntax error names file:line:column. */
export function parseDocuments(text: string, file: string): LoadedObject[] {
  const out: LoadedObject[] = [];
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    const error = doc.errors[0];
    if (error) throw yamlSyntaxError(error, file, text);
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) return;
    if (!isRecord(value)) {
      throw new InvalidInputError(`${file}: document ${index + 1} is not a mapping (a Kubernetes object)`, {
        location: { file },
      });
    }
    out.push({ object: value as KubeObject, origin: { file, doc: index } });
  });
  return out;
}

export async function readDocuments(path: string, displayName = path): Promise<LoadedObject[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(`cannot read ${displayName}: ${(error as Error).message}`, {
      location: { file: displayName },
      cause: error,
    });
  }
  return parseDocuments(text, displayName);
}

/** One YAML document in the Kubernetes tooling style: sorted keys, 2-space indent. */
export function toYaml(value: unknown): string {
  return stringify(value, {
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
  });
}
