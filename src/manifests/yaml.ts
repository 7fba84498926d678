// YAML in and out. Reading splits multi-document streams and remembers each document's file;
// writing follows the Kubernetes tooling style (sorted keys, sequences flush with their key) so
// output is byte-stable.
import { readFile } from "node:fs/promises";
import { parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import { InvalidInputError } from "../common/errors.js";
import { isRecord, type KubeObject, type LoadedObject } from "./object.js";
import { stringifyYaml } from "../common/yaml.js";

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

/** Alias expansions allowed per document: enough for real manifests, far below a "billion laughs". */
export const MAX_YAML_ALIASES = 100;

/** A parsed document as plain values; an alias bomb is refused by name instead of being expanded. */
function plainValue(
  doc: { toJS(options: { maxAliasCount: number }): unknown },
  file: string,
  line: number,
): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof ReferenceError || error instanceof RangeError) {
      throw new InvalidInputError(
        `${file}:${line}: the YAML aliases (*name references) expand too much; refusing a possible YAML bomb`,
        { hint: "write the values out instead of nesting aliases" },
      );
    }
    throw error;
  }
}

/** Parses one YAML document (a config file); a syntax error names file:line:column. */
export function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) throw yamlSyntaxError(error, file, text);
  return plainValue(doc, file, 1);
}

export interface YamlDocument {
  value: unknown;
  /** 1-based line where the document starts. */
  line: number;
}

/**
 * Every document of a YAML stream as plain values (empty ones included, as null or undefined). A
 * syntax error names file:line:column; an alias bomb is refused.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((doc) => {
    const error = doc.errors[0];
    if (error) throw yamlSyntaxError(error, file, text);
    const line = doc.range ? lineColumn(text, doc.range[0]).line : 1;
    return { value: plainValue(doc, file, line), line };
  });
}

/** Parses every non-empty document of a YAML stream into Kubernetes objects; errors name file:line:column. */
export function parseDocuments(text: string, file: string): LoadedObject[] {
  const out: LoadedObject[] = [];
  parseYamlDocuments(text, file).forEach(({ value }, index) => {
    if (value === null || value === undefined) return;
    if (!isRecord(value)) {
      throw new InvalidInputError(`document ${index + 1} is not a mapping (a Kubernetes object)`, {
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
    throw new InvalidInputError(`cannot read the file: ${(error as Error).message}`, {
      location: { file: displayName },
      cause: error,
    });
  }
  return parseDocuments(text, displayName);
}

/** One YAML document in the Kubernetes tooling style: sorted keys, 2-space indent. */
export function toYaml(value: unknown): string {
  return stringifyYaml(value, {
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
    minContentWidth: 0,
    aliasDuplicateObjects: false,
  });
}
