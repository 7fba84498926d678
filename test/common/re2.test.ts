// tsop's RE2 translation against Go's own regexp package: fixtures/re2/go-verdicts.json holds
// Go's compile error or match results for every pattern of fixtures/re2/cases.txt.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileRe2, re2Error } from "../../src/common/re2.js";

interface Verdict {
  pattern: string;
  error: string;
  matches: Record<string, boolean>;
}

const verdicts = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../fixtures/re2/go-verdicts.json", import.meta.url)), "utf8"),
) as Verdict[];

describe("RE2 patterns as Go compiles and matches them", () => {
  it("has the corpus", () => {
    expect(verdicts.filter((v) => v.error === "").length).toBeGreaterThan(50);
    expect(verdicts.filter((v) => v.error !== "").length).toBeGreaterThan(40);
  });

  for (const v of verdicts.filter((x) => x.error !== "")) {
    it(`rejects ${JSON.stringify(v.pattern)} like Go`, () => {
      const error = re2Error(v.pattern);
      expect(error, `Go: ${v.error}`).toBeDefined();
      // Same problem, same offending text as Go's message (the part before the backquote).
      expect(error?.split(":").slice(0, 2).join(":"), `Go: ${v.error}`).toBe(
        v.error.split(":").slice(0, 2).join(":"),
      );
    });
  }

  for (const v of verdicts.filter((x) => x.error === "")) {
    it(`matches ${JSON.stringify(v.pattern)} like Go`, () => {
      const re = compileRe2(v.pattern);
      const got = Object.fromEntries(Object.keys(v.matches).map((input) => [input, re.test(input)]));
      expect(got).toEqual(v.matches);
    });
  }
});
