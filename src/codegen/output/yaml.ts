// Deterministic YAML for generated manifests: sorted keys, `---` before every document,
// non-indented sequences, no line folding, `|-` blocks for multi-line text. Writing YAML is a good
// part of an analysis's cost, and after a one-file edit most documents are unchanged: yamlWriter
// reuses the text of a document set the last analysis rendered from the same objects.
import { createHash } from "node:crypto";
import { Document } from "yaml";
import { YAML_11_SAFE } from "../../common/yaml.js";
import { emitYamlDocument } from "../../common/yaml-emit.js";

export function toYamlDocuments(objects: readonly unknown[]): string {
  return objects.map((o) => `---\n${emitYamlDocument(o) ?? packageYaml(o)}`).join("");
}

/** The yaml package's text for `o`, which emitYamlDocument reproduces for plain JSON data. */
function packageYaml(o: unknown): string {
  const doc = new Document(o, { sortMapEntries: true, ...YAML_11_SAFE });
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0 });
}

/** YAML text and the digest of the objects it was rendered from. */
export interface RenderedYaml {
  content: string;
  digest: string;
}

export type YamlWriter = (objects: readonly unknown[]) => RenderedYaml;

/** A writer that reuses `previous` texts (from the last analysis) rendered from identical objects. */
export function yamlWriter(previous: ReadonlyArray<{ content: string; digest?: string }> = []): YamlWriter {
  const known = new Map(previous.flatMap((f) => (f.digest === undefined ? [] : [[f.digest, f.content]])));
  return (objects) => {
    const digest = digestOf(objects);
    return { content: known.get(digest) ?? toYamlDocuments(objects), digest };
  };
}

/** A digest of JSON data; numbers JSON cannot write (NaN, Infinity) are told apart from null. */
function digestOf(objects: readonly unknown[]): string {
  const json = JSON.stringify(objects, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? { "\u0000number": String(value) } : value,
  );
  return createHash("sha256").update(json).digest("base64url");
}
