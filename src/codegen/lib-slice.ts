// lib.es5.d.ts without its typed-array section (ArrayBuffer, DataView, Int8Array … Float64Array and
// their constructors): three fifths of the file's lines, which no CRD type can use. The section is
// self-contained: nothing else in the standard library files generate loads names it, and the
// checker of the TypeScript versions listed below never looks any of its names up by itself (only
// its error messages mention them). So when no other file of the program mentions one of its
// names (or globalThis, whose type lists every global), leaving it out cannot change what any type
// of the program means; program.ts checks that after building the program and builds it again
// with the whole file otherwise. The section is blanked with spaces, so every other declaration
// keeps its position.
import type TS from "typescript";

/** TypeScript versions whose checker was read for look-ups of these names (5.9: none). */
const CHECKED_VERSIONS = /^5\.9\./;

const FIRST = "\ninterface ArrayBuffer {";
const LAST = "declare var Float64Array: Float64ArrayConstructor;";
const ELEMENTS = [
  "Int8",
  "Uint8",
  "Uint8Clamped",
  "Int16",
  "Uint16",
  "Int32",
  "Uint32",
  "Float32",
  "Float64",
];
/** Every name the section may declare; a section declaring anything else is left in. */
const SECTION_NAMES = new Set([
  "ArrayBuffer",
  "ArrayBufferTypes",
  "ArrayBufferLike",
  "ArrayBufferConstructor",
  "ArrayBufferView",
  "DataView",
  "DataViewConstructor",
  ...ELEMENTS.flatMap((e) => [`${e}Array`, `${e}ArrayConstructor`]),
]);
const DECLARATION =
  /^(?:declare\s+)?(?:interface|var|let|const|type|function|namespace|module|class|enum)\s+([\w$]+)/gm;

export interface LibSlice {
  /** The file's text with the section blanked. */
  text: string;
  /** Matches a mention of a name the section declares, or of globalThis. */
  mentions: RegExp;
}

/** lib.es5.d.ts's text without the typed-array section, if this TypeScript's file is as expected. */
export function withoutTypedArrays(text: string, typescriptVersion: string): LibSlice | undefined {
  if (!CHECKED_VERSIONS.test(typescriptVersion)) return undefined;
  const start = text.indexOf(FIRST) + 1;
  const last = text.indexOf(LAST);
  if (start === 0 || last < start || text.indexOf(LAST, last + 1) !== -1) return undefined;
  const end = last + LAST.length;
  const section = text.slice(start, end);
  const names = [...section.matchAll(DECLARATION)].map((m) => m[1] as string);
  if (names.length === 0 || names.some((name) => !SECTION_NAMES.has(name))) return undefined;
  return {
    text: text.slice(0, start) + blanked(section) + text.slice(end),
    mentions: new RegExp(`\\b(?:${[...new Set(names), "globalThis"].join("|")})\\b`),
  };
}

/**
 * `text` with every character but line breaks made a space, so positions and line numbers stay
 * (a regular expression replacing each of ~80,000 characters cost an analysis ~5 ms).
 */
function blanked(text: string): string {
  const bytes = Buffer.alloc(text.length, " ");
  for (const [char, code] of [
    ["\n", 10],
    ["\r", 13],
  ] as const) {
    for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) bytes[i] = code;
  }
  return bytes.toString("latin1");
}

/**
 * lib.decorators.d.ts's one use of globalThis (5.9), left out of the search: it asks only whether
 * the globals have a `Symbol` with `metadata`, which the typed arrays do not change.
 */
const DECORATOR_METADATA =
  "type DecoratorMetadata = typeof globalThis extends { Symbol: { readonly metadata: symbol; }; } ? DecoratorMetadataObject : DecoratorMetadataObject | undefined;";

/** Whether a file of the program other than `sliced` mentions a name of the left-out section. */
export function mentionsSection(program: TS.Program, sliced: TS.SourceFile, slice: LibSlice): boolean {
  return program
    .getSourceFiles()
    .some((file) => file !== sliced && slice.mentions.test(file.text.replace(DECORATOR_METADATA, "")));
}
