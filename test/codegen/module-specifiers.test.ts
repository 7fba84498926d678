// moduleSpecifiers (src/codegen/module-specifiers.ts) against the compiler's own import scanner,
// ts.preProcessFile: every import it finds in this repository's TypeScript, and in forms written
// to be awkward, must be found too (extra names are allowed: they only keep more of a program).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { moduleSpecifiers } from "../../src/codegen/module-specifiers.js";
import { REPO_ROOT } from "../support/cli.js";

function typescriptFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(ts|mts|cts|tsx)$/.test(name) && !name.includes("node_modules"))
    .map((name) => join(REPO_ROOT, dir, name));
}

function expectAllFound(text: string, where: string): number {
  const found = new Set(moduleSpecifiers(text));
  const compiler = ts.preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName);
  expect(
    compiler.filter((name) => !found.has(name)),
    where,
  ).toEqual([]);
  return compiler.length;
}

describe("moduleSpecifiers", () => {
  it("finds every import the compiler's scanner finds in this repository's TypeScript", () => {
    let imports = 0;
    const files = ["src", "test", "bench", "fixtures", "templates"].flatMap(typescriptFiles);
    for (const file of files) imports += expectAllFound(readFileSync(file, "utf8"), file);
    expect(files.length).toBeGreaterThan(300);
    expect(imports).toBeGreaterThan(2000);
  });

  it("finds awkward forms: comments between tokens, line breaks, require, import types, augmentations", () => {
    const text = `import {
  a,
  b,
} from
  "./multi-line.js";
import c from /* why */ "./commented.js";
import d = require(
  // a comment
  "./require.js");
export * as e from './single-quoted.js';
export { f } from "pkg/sub";
import "./side-effect.js";
const g = await import( "./dynamic.js" );
type H = import("./import-type.js").H;
/** @type {import("./jsdoc-type.js").I} */
const j = require("cjs-package");
declare module "./augmented.js" {
  interface K {}
}
`;
    expect(expectAllFound(text, "the awkward forms")).toBe(9);
    expect(moduleSpecifiers(text)).toEqual([
      "./multi-line.js",
      "./commented.js",
      "./require.js",
      "./single-quoted.js",
      "pkg/sub",
      "./side-effect.js",
      "./dynamic.js",
      "./import-type.js",
      "./jsdoc-type.js",
      "cjs-package",
      "./augmented.js",
    ]);
  });
});
