// Deterministic YAML for generated manifests: sorted keys, `---` before every document,
// non-indented sequences, no line folding, `|-` blocks for multi-line text.
import { Document } from "yaml";
import { YAML_11_SAFE } from "../../common/yaml.js";

export function toYamlDocuments(objects: readonly unknown[]): string {
  return objects
    .map((o) => {
      const doc = new Document(o, { sortMapEntries: true, ...YAML_11_SAFE });
      return `---\n${doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0 })}`;
    })
    .join("");
}
