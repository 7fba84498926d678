// The direct YAML writer (src/common/yaml/emit.ts) against its oracle, the yaml package
// with the options generate used before it: byte for byte, on thousands of generated documents
// whose strings are built from the characters and words YAML treats specially, and on the CRDs of
// the fixtures. What it does not cover it must decline (undefined), never write differently.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Document, parseAllDocuments } from "yaml";
import { YAML_11_SAFE } from "../../src/common/yaml/write.js";
import { emitYamlDocument } from "../../src/common/yaml/emit.js";
import { seededRandom } from "../support/random.js";

function oracle(value: unknown): string {
  const doc = new Document(value, { sortMapEntries: true, ...YAML_11_SAFE });
  return doc.toString({ indentSeq: false, lineWidth: 0, minContentWidth: 0 });
}

const PIECES = [
  ...["a", "b", "Z", "0", "1", "9", " ", "  ", "\n", "\n\n", "\t", ":", ": ", " #", "#", "-", "- ", "?"],
  ...["'", '"', "\\", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", ".", "_", "~"],
  ...["---", "...", "é", "\u00a0", "\u2028", "\u0007", "\u{1F600}", "\r"],
  ...["yes", "No", "on", "OFF", "y", "n", "true", "False", "null", "NULL", "~", ".inf", ".NaN"],
  ...[
    "0x1F",
    "0o17",
    "012",
    "1_000",
    "1e3",
    "12:30",
    "190:20:30",
    "2024-01-01",
    "2001-12-14t21:59:43.10-05:00",
  ],
  ...["+1", "-1.5", "<<", "=", "description", "x-kubernetes-int-or-string", "e.g. a: b"],
];

function randomString(next: () => number): string {
  const parts = Math.floor(next() * 5);
  let text = "";
  for (let i = 0; i < parts; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 4 || roll < 0.45) {
    const scalar = next();
    if (scalar < 0.6) return randomString(next);
    if (scalar < 0.75) return Math.floor(next() * 2000) - 1000;
    if (scalar < 0.82) return (next() - 0.5) * 10 ** Math.floor(next() * 30 - 10);
    if (scalar < 0.9) return next() < 0.5;
    if (scalar < 0.95) return null;
    return -0;
  }
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  const size = Math.floor(next() * 5);
  for (let i = 0; i < size; i++)
    object[randomString(next)] = next() < 0.05 ? undefined : randomValue(next, depth + 1);
  return object;
}

/** The CRDs of every fixture's expected output, as plain data. */
function fixtureDocuments(): unknown[] {
  const root = fileURLToPath(new URL("../../fixtures/codegen/", import.meta.url));
  const out: unknown[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".yaml"))
        for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
          if (!("errors" in doc) || doc.errors.length === 0) out.push(doc.toJS());
        }
    }
  };
  walk(root);
  return out.filter((doc) => typeof doc === "object" && doc !== null);
}

describe("emitYamlDocument", () => {
  it("writes what the yaml package writes, byte for byte, for generated documents", () => {
    let compared = 0;
    for (let seed = 1; seed <= 20000; seed++) {
      const next = seededRandom(seed);
      const value = next() < 0.5 ? randomValue(next, 0) : { [randomString(next)]: randomValue(next, 0) };
      if (typeof value !== "object" || value === null) continue;
      const emitted = emitYamlDocument(value);
      expect(emitted, `seed ${seed}`).toBe(oracle(value));
      compared++;
    }
    expect(compared).toBeGreaterThan(10000);
  });

  it("writes what the yaml package writes for every fixture's manifests", () => {
    const documents = fixtureDocuments();
    expect(documents.length).toBeGreaterThan(20);
    for (const doc of documents) expect(emitYamlDocument(doc)).toBe(oracle(doc));
  });

  it("declines what is not plain JSON data, and an object used twice (the package writes an alias)", () => {
    const shared = { type: "string" };
    const declined: unknown[] = [
      { a: shared, b: shared },
      { when: new Date(0) },
      { list: [1, undefined] },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { big: 1n },
      { ["k".repeat(1100)]: 1 },
      new (class Widget {
        size = 1;
      })(),
      "a string",
      null,
    ];
    for (const value of declined) expect(emitYamlDocument(value)).toBeUndefined();
  });
});
