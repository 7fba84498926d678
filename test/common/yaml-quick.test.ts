// The quick YAML reader (src/common/yaml/quick.ts) against its oracle, the yaml package that read
// every plain value before it: on every YAML file of the repository and on seeded mutations of each
// (characters deleted, YAML indicators and scalars inserted), the quick reader either gives up or
// gives exactly the yaml package's values, and never accepts a text the yaml package refuses.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { quickYamlDocuments } from "../../src/common/yaml/quick.js";
import { MAX_YAML_ALIASES } from "../../src/common/yaml/read-values.js";
import { parseYaml, parseYamlDocuments } from "../../src/common/yaml/read.js";
import { seededRandom } from "../support/random.js";

const ROOT = join(import.meta.dirname, "../..");

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : yamlFiles(path);
    return /\.ya?ml(\.hbs)?$/.test(entry.name) ? [path] : [];
  });
}

/** The yaml package's reading, as tsop did it before the quick reader: values, or refused. */
function oracle(text: string): { values: unknown[] } | "refused" {
  try {
    const docs = parseAllDocuments(text, { prettyErrors: false });
    const list = Array.isArray(docs) ? docs : [docs];
    if (list.some((doc) => doc.errors.length > 0)) return "refused";
    return { values: list.map((doc) => doc.toJS({ maxAliasCount: MAX_YAML_ALIASES })) };
  } catch {
    return "refused";
  }
}

/** "" when the readers agree (or the quick one gives up), else what differs. */
function disagreement(text: string): string {
  const quick = quickYamlDocuments(text);
  if (quick === undefined) return "";
  const expected = oracle(text);
  if (expected === "refused") return "the quick reader accepts a text the yaml package refuses";
  return isDeepStrictEqual(quick, expected.values)
    ? ""
    : `values differ: ${JSON.stringify(quick)} vs ${JSON.stringify(expected.values)}`;
}

const INSERTS = [
  "\t",
  ":",
  " ",
  "-",
  "'",
  '"',
  "#",
  "\n",
  "  ",
  "[",
  "]",
  "{",
  "}",
  ",",
  "?",
  "|",
  ">",
  "&a ",
  "*a",
  "!",
  "%",
  "@",
  "`",
  "0x1F",
  "1_000",
  "0o7",
  ".5",
  "1e3",
  "~",
  "null",
  "True",
  "yes",
  "\\",
  "---\n",
  "...\n",
  "<<: ",
  "\r\n",
  "\u00a0",
  "0b1",
  ": ",
  "- ",
  "!!str ",
  "\ufeff",
];

function mutate(text: string, next: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(next() * 3);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * (out.length + 1));
    out =
      next() < 0.3
        ? out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 3))
        : out.slice(0, at) + INSERTS[Math.floor(next() * INSERTS.length)] + out.slice(at);
  }
  return out;
}

describe("the quick YAML reader", () => {
  const files = ["fixtures", "templates", "test", "olm-releases"]
    .flatMap((dir) => yamlFiles(join(ROOT, dir)))
    .map((path) => ({ name: relative(ROOT, path), text: readFileSync(path, "utf8") }))
    .filter(({ text }) => !text.includes("{{"));

  // 60 mutations of each file, fewer of the few large ones (CRDs of 0.7-1.1 MB): they are most of the
  // bytes, and the time, without adding kinds of text the small files lack.
  const mutationsOf = (text: string) => Math.max(4, Math.min(60, Math.floor((60 * 50_000) / text.length)));

  it("agrees with the yaml package on every YAML file of the repository and up to 60 mutations of each", () => {
    expect(files.length).toBeGreaterThan(100);
    const next = seededRandom(31);
    const problems: string[] = [];
    let answered = 0;
    let samples = 0;
    for (const { name, text } of files) {
      const texts = [text, ...Array.from({ length: mutationsOf(text) }, () => mutate(text, next))];
      texts.forEach((sample, index) => {
        samples++;
        if (quickYamlDocuments(sample) !== undefined) answered++;
        const problem = disagreement(sample);
        if (problem) problems.push(`${name} (${index === 0 ? "as is" : `mutation ${index}`}): ${problem}`);
      });
    }
    expect(problems).toEqual([]);
    // The quick reader must really answer (most real files and many mutations), not just give up.
    expect(answered).toBeGreaterThan(samples / 3);
  });

  it("answers the repository's plain Kubernetes files itself", () => {
    const config = files.filter(({ name }) => name.startsWith("fixtures/bundle/memcached/project/config/"));
    expect(config.length).toBeGreaterThan(20);
    expect(
      config.filter(({ text }) => quickYamlDocuments(text) === undefined).map(({ name }) => name),
    ).toEqual([]);
  });

  it.each([
    ["a YAML 1.1 directive", "%YAML 1.1\n---\na: yes\n"],
    ["an anchor and alias", "a: &x [1]\nb: *x\n"],
    ["an explicit tag", "a: !!str 1\n"],
    ["a non-specific tag", "a: ! 1\n"],
    ["a local tag", "a: !thing 1\n"],
    ["a complex key", "? [a, b]\n: c\n"],
    ["a flow collection key", "[a, b]: c\n"],
    ["a null key", "~: 1\nnull: 2\n"],
    ["an empty key in a flow sequence", "a: [b,: c]\n"],
    ["an empty sequence entry with a comment", "a:\n  - # note\nb: 1\n"],
    ["a comment touching a flow collection", "a: []#\n"],
    ["a tab in indentation", "a:\n\tb: 1\n"],
    ["a quoted scalar over two lines", 'a: "one\ntwo"\n'],
    ["a flow sequence over two lines", "a: [one,\ntwo]\n"],
    ["a trailing document marker", "a: 1\n---\n"],
    ["only comments", "# nothing\n"],
    ["__proto__", "__proto__: {a: 1}\n"],
  ])("leaves %s to the yaml package", (_, text) => {
    expect(quickYamlDocuments(text)).toBeUndefined();
  });

  it("resolves scalars as the yaml package's YAML 1.2 core schema does", () => {
    const text = [
      "a: yes",
      "b: on",
      "c: 012",
      "d: 0o12",
      "e: 0x1F",
      "f: 1_000",
      "g: 0b11",
      "h: -0",
      "i: .5",
      "j: 1.",
      "k: 1e3",
      "l: .inf",
      "m: -.Inf",
      "n: .NaN",
      "o: ~",
      "p: Null",
      "q: TRUE",
      "r: 2024-01-01",
      "s: 12:30",
      "t: +12",
      "u: '1'",
      "v:",
      "w: 12345678901234567890",
      "x: 1.0",
      "1: one",
      "true: t",
    ].join("\n");
    expect(quickYamlDocuments(text)).toBeDefined();
    expect(disagreement(text)).toBe("");
  });

  it("is what parseYaml and parseYamlDocuments answer with, and the yaml package names the error", () => {
    expect(parseYaml("a: 1\nb: [x, y]\n", "f.yaml")).toEqual({ a: 1, b: ["x", "y"] });
    expect(parseYamlDocuments("a: 1\n---\nb: 2\n", "f.yaml")).toEqual([
      { value: { a: 1 } },
      { value: { b: 2 } },
    ]);
    expect(() => parseYaml("a: [1\n", "f.yaml")).toThrow(/^invalid YAML in f\.yaml:\d+:\d+: /);
    expect(() => parseYaml("a: 1\na: 2\n", "f.yaml")).toThrow(/f\.yaml:2:1: Map keys must be unique/);
  });
});
