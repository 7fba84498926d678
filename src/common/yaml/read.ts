// Reading YAML documents with origins and error positions: manifests and config files. Plain
// Kubernetes YAML is read by the quick reader (quick.ts), anything it is not sure of by the yaml
// package, alias-capped (read-values.ts), whose errors name file:line:column.
import { parseAllDocuments, parseDocument } from "yaml";
import { quickYamlDocuments } from "./quick.js";
import { lineColumn, plainYaml, yamlSyntaxError } from "./read-values.js";

/** Parses one YAML document (a config file); a syntax error names file:line:column. */
export function parseYaml(text: string, file: string): unknown {
  const quick = quickYamlDocuments(text);
  if (quick?.length === 1) return quick[0];
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) throw yamlSyntaxError(error, file, text);
  return plainYaml(doc, `${file}:1`);
}

export interface YamlDocument {
  value: unknown;
}

/**
 * Every document of a YAML stream as plain values (empty ones included, as null or undefined). A
 * syntax error names file:line:column; an alias bomb is refused naming file:line.
 */
export function parseYamlDocuments(text: string, file: string): YamlDocument[] {
  const quick = quickYamlDocuments(text);
  if (quick) return quick.map((value) => ({ value }));
  return parseAllDocuments(text, { prettyErrors: false }).map((doc) => {
    const error = doc.errors[0];
    if (error) throw yamlSyntaxError(error, file, text);
    const line = doc.range ? lineColumn(text, doc.range[0]).line : 1;
    return { value: plainYaml(doc, `${file}:${line}`) };
  });
}
