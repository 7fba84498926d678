// The broken-bundle corpus (corpus.ts): each case breaks the valid memcached bundle in one way and
// expects its check to fire with the stable id, the message, and the file and field path.
import { describe, expect, test } from "vitest";
import { CHECKS } from "../../src/bundle/validate/registry.js";
import { validateBundleDir } from "../../src/bundle/validate/index.js";
import { CASES, CSV, validBundle } from "./corpus.js";
import { tsop } from "./helpers.js";

describe("bundle validate: broken-bundle corpus", () => {
  test("the corpus covers every check in the table", () => {
    expect(new Set(CASES.map((c) => c.id))).toEqual(new Set(CHECKS.map((c) => c.id)));
  });

  test("the unbroken bundle passes every suite except the known findings of the sample", async () => {
    const b = await validBundle();
    const report = await validateBundleDir(b.dir, {
      selectOptional: ["suite=operatorframework", "community"],
    });
    expect(report.findings.map((f) => f.id)).toEqual(["OH-05", "GP-04"]);
  });

  for (const c of CASES) {
    test(`${c.id}: ${c.what}`, async () => {
      const b = await validBundle();
      await c.breakIt(b);
      const report = await validateBundleDir(b.dir, {
        ...(c.optional ? { selectOptional: c.optional } : {}),
        ...(c.k8sVersion ? { k8sVersion: c.k8sVersion } : {}),
      });
      const hits = report.findings.filter((f) => f.id === c.id);
      expect(hits.length, JSON.stringify(report.findings, null, 1)).toBeGreaterThan(0);
      const hit = hits.find((f) =>
        typeof c.message === "string" ? f.message === c.message : c.message.test(f.message),
      );
      expect(hit, JSON.stringify(hits, null, 1)).toBeDefined();
      expect(hit!.level).toBe(c.level ?? "error");
      if (c.file) expect(hit!.file).toBe(c.file);
      if (c.path) expect(hit!.path).toBe(c.path);
      expect(report.passed).toBe((c.level ?? "error") !== "error");
    });
  }

  test("through the CLI: text names file and path, json carries ids, exit 1 on errors", async () => {
    const b = await validBundle();
    await b.csv((c) => {
      c.metadata.name = "Bad_Name";
      delete c.spec.minKubeVersion;
    });
    const text = await tsop(b.dir, ["bundle", "validate", "."]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(`ERROR CSV-01  ${CSV}: metadata.name: CSV name "Bad_Name" is not usable`);
    expect(text.stdout).toContain(`WARN  CSV-10  ${CSV}: spec.minKubeVersion:`);
    expect(text.stderr).toContain("bundle . is not valid: 1 error(s), 1 warning(s)");
    const json = await tsop(b.dir, ["bundle", "validate", ".", "-o", "json"]);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ passed: false, errors: 1, warnings: 1 });
    expect(report.findings[0]).toMatchObject({
      id: "CSV-01",
      level: "error",
      file: CSV,
      path: "metadata.name",
    });
  });
});
