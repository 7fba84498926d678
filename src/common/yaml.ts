// The one way tsop writes YAML. Everything is YAML 1.2, and every string that a YAML 1.1 reader
// (kubectl's and many CI tools' parsers) would take for something else — on/off/yes/no/y/n,
// true/false, null/~, 012, 1_000, 12:30, 2024-01-01 — is quoted, so both readers agree.
import {
  type CreateNodeOptions,
  type DocumentOptions,
  type ParseOptions,
  parseAllDocuments,
  parseDocument,
  type SchemaOptions,
  stringify,
  type ToStringOptions,
} from "yaml";
import { InvalidInputError } from "./errors.js";

/** Alias expansions allowed per document: enough for real files, far below a "billion laughs". */
export const MAX_YAML_ALIASES = 100;

/**
 * A parsed document as plain values; an alias bomb is refused naming `where` (file, or file:line)
 * instead of being expanded or ending in a stack trace.
 */
export function plainYaml(
  doc: { toJS(options: { maxAliasCount: number }): unknown },
  where: string,
): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof ReferenceError || error instanceof RangeError) {
      throw new InvalidInputError(
        `${where}: the YAML aliases (*name references) expand too much; refusing a possible YAML bomb`,
        { hint: "write the values out instead of nesting aliases" },
      );
    }
    throw error;
  }
}

/** Schema option that makes the yaml package quote strings a YAML 1.1 reader would misread. */
export const YAML_11_SAFE = { compat: "yaml-1.1" } as const satisfies SchemaOptions;

export type YamlWriteOptions = DocumentOptions & SchemaOptions & CreateNodeOptions & ToStringOptions;

/** A YAML document for `value`, safe for YAML 1.1 and 1.2 readers. */
export function stringifyYaml(value: unknown, options: YamlWriteOptions = {}): string {
  return stringify(value, { ...options, ...YAML_11_SAFE });
}

/** One scalar or flow value as YAML text (for templates that place a value after `key: `). */
export function yamlScalar(value: unknown): string {
  return stringifyYaml(value, { lineWidth: 0 }).trimEnd();
}

/** Parses a file tsop edits in place (comments kept); its toString() is YAML 1.1-safe. */
export function parseEditableDocument(text: string, options: ParseOptions & DocumentOptions = {}) {
  return parseDocument(text, { ...options, ...YAML_11_SAFE });
}

/** Every document of a stream tsop edits in place; their toString() is YAML 1.1-safe. */
export function parseEditableDocuments(text: string, options: ParseOptions & DocumentOptions = {}) {
  return parseAllDocuments(text, { ...options, ...YAML_11_SAFE });
}
