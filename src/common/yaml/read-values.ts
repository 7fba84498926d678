// Reading YAML as plain values with the yaml package: every document's expansion is alias-capped
// (a "billion laughs" is refused naming the file), and a syntax error names file:line:column or is
// worded by the caller. read.ts adds the quick reader for manifests and config files.
import { parse, parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import { InvalidInputError } from "../errors.js";
export type { YAMLError };

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

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: before.length - lastBreak };
}

/** How a reader names its text and words syntax errors. */
export interface YamlValuesOptions {
  /** Names the text (or its document `index`) when an alias bomb is refused. */
  where: string | ((index: number) => string);
  /**
   * The error to throw for a document with a syntax error, or undefined to leave that document out.
   * Without it, a document is read as the package recovered it (text tsop wrote itself).
   */
  onSyntaxError?: (error: YAMLError, index: number) => Error | undefined;
}

/**
 * Every document of `text` as plain values (empty ones as null), with the caller's words for a
 * syntax error; an alias bomb is refused. Lazy: each document is checked as the caller reaches it,
 * so the caller's own checks of earlier documents come first.
 */
export function* readYamlValues(text: string, options: YamlValuesOptions): Generator<unknown> {
  for (const [index, doc] of parseAllDocuments(text).entries()) {
    const value = checkedValue(doc, index, options);
    if (value !== SKIPPED) yield value;
  }
}

/** The one document of `text` as plain values, checked like readYamlValues's. */
export function readYamlValue(text: string, options: YamlValuesOptions): unknown {
  const value = checkedValue(parseDocument(text), 0, options);
  return value === SKIPPED ? undefined : value;
}

const SKIPPED = Symbol("skipped");

function checkedValue(
  doc: Parameters<typeof plainYaml>[0] & { errors: YAMLError[] },
  index: number,
  { where, onSyntaxError }: YamlValuesOptions,
): unknown {
  const error = doc.errors[0];
  if (error && onSyntaxError) {
    const refused = onSyntaxError(error, index);
    if (refused) throw refused;
    return SKIPPED;
  }
  return plainYaml(doc, typeof where === "string" ? where : where(index));
}

/** The yaml package's `parse` (its own error messages), alias-capped. */
export function parseYamlText(text: string): unknown {
  return parse(text, { maxAliasCount: MAX_YAML_ALIASES });
}
