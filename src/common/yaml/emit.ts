// A direct YAML writer for plain JSON data, giving exactly the text the yaml package writes for
// `new Document(value, { sortMapEntries: true, compat: "yaml-1.1" }).toString({ indentSeq: false,
// lineWidth: 0, minContentWidth: 0 })`, ~10x faster: the package builds a node tree of the whole
// document and stringifies it through generic, comment-aware code, which was a sixth of a cold
// 50-kind analysis. The layout (block maps and sequences, `key: {}`, `key: []`, unindented
// sequences under keys) is written here, mirroring the package's stringifyPair/stringifyCollection
// for nodes without comments, anchors or tags; every string goes through the package's own string
// stringifier (quoting, YAML 1.1-safe plain scalars, `|-` blocks), so scalar styles cannot drift.
// Anything outside plain JSON data (a class instance, a Date, undefined in an array, NaN, an object
// used twice, which the package would write as an anchor and alias, a key beyond 1024 characters)
// answers undefined, and the caller writes with the package itself. test/common/yaml-emit.test.ts
// compares both writers on generated documents.
import { Document } from "yaml";
import { stringTag } from "yaml/util";
import { YAML_11_SAFE } from "./yaml-11.js";

type StringifyContext = Parameters<NonNullable<typeof stringTag.stringify>>[1];

/** The document whose schema (tags, YAML 1.1 compat tags) decides which strings need quotes. */
let schemaDoc: Document | undefined;

/** The stringify options the package derives from the ones above (createStringifyContext). */
const OPTIONS = {
  blockQuote: true,
  defaultKeyType: null,
  defaultStringType: "PLAIN",
  directives: null,
  doubleQuotedAsJSON: false,
  doubleQuotedMinMultiLineLength: 40,
  falseStr: "false",
  flowCollectionPadding: true,
  indentSeq: false,
  lineWidth: 0,
  minContentWidth: 0,
  nullStr: "null",
  simpleKeys: false,
  singleQuote: null,
  trailingComma: false,
  trueStr: "true",
  verifyAliasOrder: true,
} as const;

const STEP = "  ";

/** The text of one-line strings already written, as keys and as values (they are quoted alike). */
const keyTexts = new Map<string, string>();
const valueTexts = new Map<string, string>();
const INDENT_DEPENDENT = /\n|^(%|---|\.\.\.)/m;

class NotPlainData extends Error {}

/** The YAML text of `value` (an object or array of plain JSON data), or undefined if it is not such data. */
export function emitYamlDocument(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  schemaDoc ??= new Document(null, { sortMapEntries: true, ...YAML_11_SAFE });
  try {
    return `${new Emitter(schemaDoc).node(value, "", true)}\n`;
  } catch (error) {
    if (error instanceof NotPlainData) return undefined;
    throw error;
  }
}

class Emitter {
  private readonly seen = new Set<object>();

  constructor(private readonly doc: Document) {}

  /** `value` as the package's stringify() writes it with ctx.indent = indent. */
  node(value: unknown, indent: string, implicitKey: boolean): string {
    switch (typeof value) {
      case "string":
        return this.string(value, indent, implicitKey);
      case "number":
        if (!Number.isFinite(value)) throw new NotPlainData();
        return Object.is(value, -0) ? "-0" : JSON.stringify(value);
      case "boolean":
        return value ? "true" : "false";
      case "object":
        if (value === null) return "null";
        if (this.seen.has(value)) throw new NotPlainData();
        this.seen.add(value);
        if (Array.isArray(value)) return this.seq(value, indent);
        if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
          throw new NotPlainData();
        return this.map(value as Record<string, unknown>, indent);
      default:
        throw new NotPlainData();
    }
  }

  private seq(items: unknown[], indent: string): string {
    if (items.length === 0) return "[]";
    const itemIndent = indent + STEP;
    let out = "";
    for (let i = 0; i < items.length; i++) {
      if (!(i in items) || items[i] === undefined) throw new NotPlainData();
      out += `${i === 0 ? "" : `\n${indent}`}- ${this.node(items[i], itemIndent, false)}`;
    }
    return out;
  }

  private map(object: Record<string, unknown>, indent: string): string {
    const keys = Object.keys(object).filter((key) => object[key] !== undefined);
    if (keys.length === 0) return "{}";
    keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let out = "";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      out += `${i === 0 ? "" : `\n${indent}`}${this.pair(key, object[key], indent)}`;
    }
    return out;
  }

  /** stringifyPair for a string key: `key: scalar`, `key: {}`, or the collection on the next lines. */
  private pair(key: string, value: unknown, indent: string): string {
    const keyText = this.string(key, indent + STEP, true);
    // The package writes longer keys as explicit `? key` entries.
    if (keyText.length > 1024) throw new NotPlainData();
    const isCollection = typeof value === "object" && value !== null;
    // Sequences under a key are not indented (indentSeq: false).
    const valueIndent = Array.isArray(value) ? indent : indent + STEP;
    const valueText = this.node(value, valueIndent, false);
    const empty = isCollection && (Array.isArray(value) ? value.length === 0 : valueText === "{}");
    return isCollection && !empty ? `${keyText}:\n${valueIndent}${valueText}` : `${keyText}: ${valueText}`;
  }

  private string(value: string, indent: string, implicitKey: boolean): string {
    // A one-line string is written the same at any indentation (only line breaks are indented),
    // unless a line of it starts like a document marker (after any line terminator, as the
    // package tests): then a key's quoting depends on its depth.
    const memo = INDENT_DEPENDENT.test(value) ? undefined : implicitKey ? keyTexts : valueTexts;
    const known = memo?.get(value);
    if (known !== undefined) return known;
    const text = this.stringify(value, indent, implicitKey);
    memo?.set(value, text);
    return text;
  }

  private stringify(value: string, indent: string, implicitKey: boolean): string {
    const ctx = {
      doc: this.doc,
      indent,
      indentStep: STEP,
      inFlow: null,
      implicitKey,
      options: OPTIONS,
    } as unknown as StringifyContext;
    return (stringTag.stringify as NonNullable<typeof stringTag.stringify>)(
      { value } as Parameters<NonNullable<typeof stringTag.stringify>>[0],
      ctx,
    );
  }
}
