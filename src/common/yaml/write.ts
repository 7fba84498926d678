// Writing YAML. Everything is YAML 1.2, and every string that a YAML 1.1 reader (kubectl's and many
// CI tools' parsers) would take for something else — on/off/yes/no/y/n, true/false, null/~, 012,
// 1_000, 12:30, 2024-01-01 — is quoted, so both readers agree. Plain data in the Kubernetes tooling
// style goes through the direct writer (emit.ts), which gives the yaml package's bytes faster.
import {
  type CreateNodeOptions,
  Document,
  type DocumentOptions,
  type SchemaOptions,
  stringify,
  type ToStringOptions,
} from "yaml";
import { emitYamlDocument } from "./emit.js";
import { YAML_11_SAFE } from "./yaml-11.js";

export { YAML_11_SAFE };

export type YamlWriteOptions = DocumentOptions & SchemaOptions & CreateNodeOptions & ToStringOptions;

/** A YAML document for `value`, safe for YAML 1.1 and 1.2 readers. */
export function stringifyYaml(value: unknown, options: YamlWriteOptions = {}): string {
  return stringify(value, { ...options, ...YAML_11_SAFE });
}

/** One scalar or flow value as YAML text (for templates that place a value after `key: `). */
export function yamlScalar(value: unknown): string {
  return stringifyYaml(value, { lineWidth: 0 }).trimEnd();
}

/**
 * One YAML document in the Kubernetes tooling style: sorted keys, 2-space indent. Plain data is
 * written by the direct writer (emit.ts, the same bytes), anything else by the package.
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

/**
 * Generated manifests as one stream: `---` before every document, sorted keys, non-indented
 * sequences, no line folding, `|-` blocks for multi-line text.
 */
export function toYamlDocuments(objects: readonly unknown[]): string {
  return objects.map((o) => `---\n${emitYamlDocument(o) ?? packageYaml(o)}`).join("");
}

/** The yaml package's text for `o`, which emitYamlDocument reproduces for plain JSON data. */
function packageYaml(o: unknown): string {
  const doc = new Document(o, { sortMapEntries: true, ...YAML_11_SAFE });
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0 });
}
