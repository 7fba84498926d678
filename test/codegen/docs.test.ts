// docs/generate.md stays true: it holds the marker reference exactly as --list-markers prints it,
// and a row for every diagnostic code messages.ts can produce.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { markerReference } from "../../src/codegen/index.js";

const DOC = readFileSync(new URL("../../docs/generate.md", import.meta.url), "utf8");
const MESSAGES = readFileSync(new URL("../../src/codegen/messages.ts", import.meta.url), "utf8");

describe("docs/generate.md", () => {
  it("contains the marker reference from the marker table", () => {
    expect(DOC).toContain(markerReference());
  });

  it("documents every diagnostic code", () => {
    const codes = [...new Set([...MESSAGES.matchAll(/code: "(TSOP\d+)"/g)].map((m) => m[1] as string))];
    expect(codes.length).toBeGreaterThan(40);
    for (const code of codes) expect(DOC, code).toContain(`| ${code} |`);
  });
});
