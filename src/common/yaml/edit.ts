// Reading a YAML file tsop edits in place: the yaml package's Document, so comments, key order and
// formatting elsewhere in the file are kept, and its toString() is YAML 1.1-safe. The node checks
// editors need (isMap, isSeq, isScalar, isCollection, visit) come from here too.
import {
  type Document,
  type DocumentOptions,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  parseDocument,
  type ParseOptions,
  type YAMLError,
  type YAMLMap,
  visit,
} from "yaml";
import { YAML_11_SAFE } from "./yaml-11.js";

export { type Document, isCollection, isMap, isScalar, isSeq, visit, type YAMLError, type YAMLMap };

export interface EditOptions extends ParseOptions, DocumentOptions {
  /** false: write strings as the yaml package does by default (files whose style predates the rule). */
  quoteForYaml11?: boolean;
}

function withSchema({ quoteForYaml11 = true, ...options }: EditOptions): ParseOptions & DocumentOptions {
  return quoteForYaml11 ? { ...options, ...YAML_11_SAFE } : options;
}

/** Parses a file tsop edits in place (comments kept); its toString() is YAML 1.1-safe. */
export function parseEditableDocument(text: string, options: EditOptions = {}) {
  return parseDocument(text, withSchema(options));
}

/** Every document of a stream tsop edits in place; their toString() is YAML 1.1-safe. */
export function parseEditableDocuments(text: string, options: EditOptions = {}) {
  return parseAllDocuments(text, withSchema(options));
}

/** The editable document of `text`, or the caller's error for its first syntax error. */
export function editableDocument(text: string, invalid: (error: YAMLError) => Error) {
  const doc = parseEditableDocument(text);
  if (doc.errors.length > 0) throw invalid(doc.errors[0]!);
  return doc;
}
