// Generated manifests' YAML (common/yaml/write.ts toYamlDocuments: sorted keys, `---` before every
// document), reused: writing YAML is a good part of an analysis's cost, and after a one-file edit
// most documents are unchanged, so yamlWriter reuses the text of a document set the last analysis
// rendered from the same objects.
import { createHash } from "node:crypto";
import { toYamlDocuments } from "../../common/yaml/write.js";

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
