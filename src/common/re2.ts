// Regular expressions as the Kubernetes API server reads them: Go's regexp (RE2 syntax, Perl
// flags), translated to an equivalent ECMAScript regex (`u` flag). What RE2 rejects
// (lookarounds, backreferences, possessive or nested repetition, unknown escapes) is an error
// worded like Go's; what RE2 accepts (POSIX classes, \pL, \Q…\E, inline flags, ASCII-only \d\s\w,
// a `.` that matches \r) gets a JS regex that matches the same strings.

export class Re2SyntaxError extends Error {}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

/** Code point ranges, inclusive. */
type Ranges = Array<[number, number]>;

const MAX_REPEAT = 1000;
const PERL_CLASSES: Record<string, Ranges> = {
  d: [[0x30, 0x39]],
  s: [
    [0x09, 0x0a],
    [0x0c, 0x0d],
    [0x20, 0x20],
  ],
  w: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
};
const POSIX_CLASSES: Record<string, Ranges> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: PERL_CLASSES.w as Ranges,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};
const GENERAL_CATEGORIES = new Set(
  "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs".split(
    " ",
  ),
);

/** Translates a Go (RE2) regular expression to ECMAScript source for `new RegExp(src, "u")`. */
export function re2ToJs(pattern: string): string {
  return new Translator(pattern).translate();
}

const compiled = new Map<string, RegExp | Re2SyntaxError>();

/** The JS RegExp matching what Go's regexp.MatchString matches; throws Re2SyntaxError when Go rejects the pattern. */
export function compileRe2(pattern: string): RegExp {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = new RegExp(re2ToJs(pattern), "u");
    } catch (error) {
      entry = error instanceof Re2SyntaxError ? error : new Re2SyntaxError((error as Error).message);
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(pattern, entry);
  }
  if (entry instanceof Re2SyntaxError) throw entry;
  return entry;
}

/** Go's compile error for the pattern ("error parsing regexp: …"), or undefined when RE2 accepts it. */
export function re2Error(pattern: string): string | undefined {
  try {
    compileRe2(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

class Translator {
  private pos = 0;
  private readonly chars: string[];

  constructor(private readonly source: string) {
    this.chars = [...source];
  }

  translate(): string {
    const out = this.alternation({ i: false, m: false, s: false, U: false }, 0);
    if (this.pos < this.chars.length) throw this.error("unexpected )", this.source);
    return out;
  }

  private error(what: string, text: string): Re2SyntaxError {
    return new Re2SyntaxError(`error parsing regexp: ${what}: \`${text}\``);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.pos + offset];
  }

  private rest(): string {
    return this.chars.slice(this.pos).join("");
  }

  /** alternatives separated by `|`, up to a `)` (not consumed) or the end. */
  private alternation(outer: Flags, depth: number): string {
    const flags = { ...outer };
    const branches: string[] = [];
    let current = "";
    while (this.pos < this.chars.length) {
      const c = this.peek() as string;
      if (c === ")") {
        if (depth === 0) throw this.error("unexpected )", this.source);
        break;
      }
      if (c === "|") {
        this.pos++;
        branches.push(current);
        current = "";
        continue;
      }
      const atom = this.atom(flags, depth);
      if (atom === undefined) continue; // a flag group changed `flags`
      current += this.quantified(atom, flags);
    }
    branches.push(current);
    return branches.join("|");
  }

  private quantified(atom: { js: string; repeatable: boolean; text: string }, flags: Flags): string {
    let js = atom.js;
    let count = 0;
    let previous = "";
    for (;;) {
      const start = this.pos;
      const q = this.quantifier();
      if (q === undefined) return js;
      const text = this.chars.slice(start, this.pos).join("");
      if (count > 0) throw this.error("invalid nested repetition operator", previous + text);
      if (!atom.repeatable) throw this.error("missing argument to repetition operator", text);
      let lazy = false;
      if (this.peek() === "?") {
        this.pos++;
        lazy = true;
      }
      if (flags.U) lazy = !lazy;
      js = `(?:${js})${q}${lazy ? "?" : ""}`;
      previous = text + (lazy !== flags.U ? "?" : "");
      count++;
    }
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (as JS text), or undefined (`{` that is not a repeat is a literal). */
  private quantifier(): string | undefined {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.pos++;
      return c;
    }
    if (c !== "{") return undefined;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.rest());
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[3] === undefined || m[3] === "" ? undefined : Number(m[3]);
    if (min > MAX_REPEAT || (max !== undefined && (max > MAX_REPEAT || max < min)))
      throw this.error("invalid repeat count", m[0]);
    this.pos += [...m[0]].length;
    return m[2] === undefined ? `{${min}}` : `{${min},${max ?? ""}}`;
  }

  private atom(flags: Flags, depth: number): { js: string; repeatable: boolean; text: string } | undefined {
    const c = this.peek() as string;
    if (c === "*" || c === "+" || c === "?") throw this.error("missing argument to repetition operator", c);
    if (c === "{" && this.quantifierAhead()) {
      const q = /^\{\d+(,\d*)?\}/.exec(this.rest());
      throw this.error("missing argument to repetition operator", q ? q[0] : c);
    }
    this.pos++;
    switch (c) {
      case "(":
        return this.group(flags, depth);
      case "[":
        return { js: this.charClass(flags), repeatable: true, text: "[" };
      case ".":
        return { js: flags.s ? "[\\s\\S]" : "[^\\n]", repeatable: true, text: c };
      case "^":
        return { js: flags.m ? "(?:^|(?<=\\n))" : "^", repeatable: true, text: c };
      case "$":
        return { js: flags.m ? "(?:$|(?=\\n))" : "$", repeatable: true, text: c };
      case "\\":
        return this.escape(flags);
      default:
        return { js: literal(c.codePointAt(0) as number, flags), repeatable: true, text: c };
    }
  }

  private quantifierAhead(): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.rest());
  }

  private group(flags: Flags, depth: number): { js: string; repeatable: boolean; text: string } | undefined {
    if (this.peek() === "?") {
      const rest = this.rest();
      if (rest.startsWith("?P<") || rest.startsWith("?<")) {
        const end = rest.indexOf(">");
        if (end < 0) throw this.error("invalid named capture", `(${rest}`);
        const capture = rest.slice(0, end + 1);
        const name = capture.slice(capture.indexOf("<") + 1, -1);
        if (!/^[A-Za-z0-9_]+$/.test(name)) throw this.error("invalid named capture", `(${capture}`);
        this.pos += [...capture].length;
        return this.groupBody(flags, depth);
      }
      const flagGroup = /^\?([imsU]*)(-([imsU]*))?([:)])/.exec(rest);
      if (!flagGroup || (flagGroup[2] !== undefined && flagGroup[3] === "")) {
        const shown = /^\?[^)]{0,2}/.exec(rest)?.[0] ?? "?";
        throw this.error("invalid or unsupported Perl syntax", `(${shown.slice(0, 2)}`);
      }
      this.pos += flagGroup[0].length;
      const set = flagGroup[1] ?? "";
      const clear = flagGroup[3] ?? "";
      const next = { ...flags };
      for (const f of set) next[f as keyof Flags] = true;
      for (const f of clear) next[f as keyof Flags] = false;
      if (flagGroup[4] === ")") {
        Object.assign(flags, next); // (?i) applies to the rest of the enclosing group
        return undefined;
      }
      return this.groupBody(next, depth);
    }
    return this.groupBody(flags, depth);
  }

  private groupBody(flags: Flags, depth: number): { js: string; repeatable: boolean; text: string } {
    const inner = this.alternation(flags, depth + 1);
    if (this.peek() !== ")") throw this.error("missing closing )", this.source);
    this.pos++;
    return { js: `(?:${inner})`, repeatable: true, text: "(" };
  }

  private escape(flags: Flags): { js: string; repeatable: boolean; text: string } {
    const c = this.peek();
    if (c === undefined) throw this.error("trailing backslash at end of expression", "");
    switch (c) {
      case "A":
        this.pos++;
        return { js: "(?<![\\s\\S])", repeatable: true, text: "\\A" };
      case "z":
        this.pos++;
        return { js: "(?![\\s\\S])", repeatable: true, text: "\\z" };
      case "b":
        this.pos++;
        return { js: "\\b", repeatable: true, text: "\\b" };
      case "B":
        this.pos++;
        return { js: "\\B", repeatable: true, text: "\\B" };
      case "Q": {
        this.pos++;
        const rest = this.rest();
        const end = rest.indexOf("\\E");
        const text = end < 0 ? rest : rest.slice(0, end);
        this.pos += [...text].length + (end < 0 ? 0 : 2);
        const js = [...text].map((ch) => literal(ch.codePointAt(0) as number, flags)).join("");
        return { js: js === "" ? "(?:)" : `(?:${js})`, repeatable: true, text: "\\Q" };
      }
    }
    const ranges = this.classEscape(flags, false);
    return { js: rangesToJs(ranges, flags), repeatable: true, text: "\\" };
  }

  /** An escape that denotes a set of characters (also a single one), after the backslash. */
  private classEscape(flags: Flags, inClass: boolean): Ranges {
    const c = this.peek() as string;
    this.pos++;
    const perl = PERL_CLASSES[c.toLowerCase()];
    if (perl && (c === "d" || c === "s" || c === "w")) return perl;
    if (perl && (c === "D" || c === "S" || c === "W")) return negate(perl);
    if (c === "p" || c === "P") return this.unicodeClass(c === "P", flags);
    const single = this.escapedChar(c, inClass);
    return [[single, single]];
  }

  private escapedChar(c: string, inClass: boolean): number {
    const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (simple[c] !== undefined) return simple[c];
    if (c >= "0" && c <= "7") {
      const digits = /^[0-7]{0,2}/.exec(this.rest())?.[0] ?? "";
      if (c !== "0" && digits === "") throw this.error("invalid escape sequence", `\\${c}`);
      this.pos += digits.length;
      return parseInt(c + digits, 8);
    }
    if (c === "x") {
      const rest = this.rest();
      const braced = /^\{([0-9A-Fa-f]+)\}/.exec(rest);
      const short = /^[0-9A-Fa-f]{2}/.exec(rest);
      const hex = braced ? braced[1] : short?.[0];
      const cp = hex === undefined ? NaN : parseInt(hex, 16);
      if (hex === undefined || cp > 0x10ffff)
        throw this.error("invalid escape sequence", `\\x${rest.slice(0, braced ? braced[0].length : 2)}`);
      this.pos += (braced ? braced[0] : (short as RegExpExecArray)[0]).length;
      return cp;
    }
    const cp = c.codePointAt(0) as number;
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(c)) return cp; // escaped punctuation is itself
    void inClass;
    throw this.error("invalid escape sequence", `\\${c}`);
  }

  /** `\pL`, `\p{Greek}`, `\p{^Lu}`, `\PN` after the p/P. */
  private unicodeClass(negated: boolean, flags: Flags): Ranges {
    const letter = negated ? "P" : "p";
    let name: string;
    if (this.peek() === "{") {
      const m = /^\{([^}]*)\}/.exec(this.rest());
      if (!m) throw this.error("invalid character class range", `\\${letter}${this.rest()}`);
      name = m[1] as string;
      this.pos += m[0].length;
    } else {
      const next = this.peek();
      if (next === undefined) throw this.error("invalid character class range", `\\${letter}`);
      name = next;
      this.pos++;
    }
    let neg = negated;
    if (name.startsWith("^")) {
      neg = !neg;
      name = name.slice(1);
    }
    const js = unicodePropertyJs(name);
    if (js === undefined) throw this.error("invalid character class range", `\\${letter}{${name}}`);
    void flags;
    return markProperty(js, neg);
  }

  /** A bracket expression after its `[`, as JS. */
  private charClass(flags: Flags): string {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    const items: Ranges = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw this.error("missing closing ]", `[${this.source}`);
      if (c === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === "[" && this.peek(1) === ":") {
        const m = /^\[:(\^?)([a-z]*):\]/.exec(this.rest());
        if (m) {
          const cls = POSIX_CLASSES[m[2] as string];
          if (!cls) throw this.error("invalid character class range", m[0]);
          this.pos += m[0].length;
          items.push(...(m[1] ? negate(cls) : cls));
          continue;
        }
      }
      const lo = this.classAtom(flags);
      if (lo.length !== 1 || (lo[0] as [number, number])[0] !== (lo[0] as [number, number])[1]) {
        items.push(...lo);
        continue;
      }
      const loCp = (lo[0] as [number, number])[0];
      if (this.peek() === "-" && this.peek(1) !== undefined && this.peek(1) !== "]") {
        const save = this.pos;
        this.pos++;
        const hi = this.classAtom(flags);
        if (hi.length !== 1 || (hi[0] as [number, number])[0] !== (hi[0] as [number, number])[1]) {
          this.pos = save; // `[a-\d]`: Go reads the `-` as a literal
          items.push([loCp, loCp]);
          continue;
        }
        const hiCp = (hi[0] as [number, number])[0];
        if (hiCp < loCp) {
          const text = this.chars.slice(save - 1, this.pos).join("");
          throw this.error("invalid character class range", text);
        }
        items.push([loCp, hiCp]);
        continue;
      }
      items.push([loCp, loCp]);
    }
    return classToJs(items, negated, flags);
  }

  private classAtom(flags: Flags): Ranges {
    const c = this.peek() as string;
    this.pos++;
    if (c !== "\\") {
      const cp = c.codePointAt(0) as number;
      return [[cp, cp]];
    }
    if (this.peek() === undefined) throw this.error("trailing backslash at end of expression", "");
    return this.classEscape(flags, true);
  }
}

// Unicode properties cannot be expanded to ranges here; they travel as markers (negative code
// points) carrying the JS property escape, and are emitted as `\p{…}` inside the class.
const propertyMarkers: string[] = [];

function markProperty(js: string, negated: boolean): Ranges {
  let index = propertyMarkers.indexOf(js);
  if (index < 0) {
    propertyMarkers.push(js);
    index = propertyMarkers.length - 1;
  }
  return [[-1 - index, negated ? 1 : 0]];
}

function unicodePropertyJs(name: string): string | undefined {
  let js: string;
  if (name === "Any") js = "\\s\\S";
  else if (GENERAL_CATEGORIES.has(name)) js = `\\p{${name}}`;
  else if (/^[A-Z][A-Za-z_]*$/.test(name)) js = `\\p{Script=${name}}`;
  else return undefined;
  try {
    new RegExp(`[${js}]`, "u");
  } catch {
    return undefined;
  }
  return js;
}

function negate(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** Adds the simple case variants of each code point (Go's (?i) folds by Unicode case orbits). */
function foldCase(ranges: Ranges): Ranges {
  const out: Ranges = [...ranges];
  for (const [lo, hi] of ranges) {
    if (lo < 0 || hi - lo > 0x3000) continue;
    for (let cp = lo; cp <= hi; cp++) {
      for (const v of caseVariants(cp)) if (v !== cp) out.push([v, v]);
    }
  }
  return out;
}

function caseVariants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = new Set<number>([cp]);
  for (const v of [ch.toLowerCase(), ch.toUpperCase()]) {
    if ([...v].length === 1) out.add(v.codePointAt(0) as number);
  }
  if (cp === 0x6b || cp === 0x4b) out.add(0x212a); // k, K, Kelvin sign
  if (cp === 0x73 || cp === 0x53) out.add(0x17f); // s, S, long s
  return [...out];
}

function literal(cp: number, flags: Flags): string {
  if (!flags.i) return escapeCp(cp);
  const variants = caseVariants(cp);
  return variants.length === 1 ? escapeCp(cp) : `[${variants.map(escapeCp).join("")}]`;
}

function escapeCp(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /[0-9A-Za-z_ ]/.test(ch) ? ch : `\\u{${cp.toString(16)}}`;
}

function rangesToJs(ranges: Ranges, flags: Flags): string {
  return classToJs(ranges, false, flags);
}

function classToJs(items: Ranges, negated: boolean, flags: Flags): string {
  const plain = flags.i ? foldCase(items.filter(([lo]) => lo >= 0)) : items.filter(([lo]) => lo >= 0);
  const props = items.filter(([lo]) => lo < 0);
  const parts = plain.map(([lo, hi]) => (lo === hi ? escapeCp(lo) : `${escapeCp(lo)}-${escapeCp(hi)}`));
  const positive = props.filter(([, neg]) => neg === 0).map(([lo]) => propertyMarkers[-1 - lo] as string);
  const negatives = props.filter(([, neg]) => neg === 1).map(([lo]) => propertyMarkers[-1 - lo] as string);
  // A negated property inside a class: \P{…} for \p{…}; `Any` negated matches nothing.
  const negParts = negatives.map((js) => (js === "\\s\\S" ? "" : js.replace("\\p{", "\\P{")));
  const body = [...parts, ...positive, ...negParts].join("");
  if (body === "") return negated ? "[\\s\\S]" : "[]";
  return `[${negated ? "^" : ""}${body}]`;
}
