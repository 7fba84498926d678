// Golden tests: each fixtures/codegen/<case>/ holds TypeScript input (with a tsconfig mapping "tsop"
// to this repository's runtime) and expected/ YAML. Outputs are compared as parsed YAML, ignoring
// the tsop version annotation. UPDATE_GOLDEN=1 rewrites expected/ (review the diff!).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { generate } from "../../src/codegen/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { readTree, testdir } from "../support/testdir.js";
import { expectYaml11Safe } from "../support/yaml11.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/codegen/", import.meta.url));

interface CaseOptions {
  maxDescLen?: number;
  deriveRbac?: boolean;
  /** Warning codes the case must produce (sorted). */
  warnings?: string[];
}

const cases = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, "tsconfig.json")));

function parseYaml(text: string): unknown[] {
  return parseAllDocuments(text).map((d) => {
    const value = d.toJS() as { metadata?: { annotations?: Record<string, string> } };
    if (value?.metadata?.annotations) {
      delete value.metadata.annotations["tsop.dev/version"];
      if (Object.keys(value.metadata.annotations).length === 0) delete value.metadata.annotations;
    }
    return value;
  });
}

describe("golden CRD and RBAC outputs", () => {
  it("has the cases this suite promises", () => {
    for (const name of ["memcached", "cronjob", "enums", "oneof", "immutable", "aliases", "plural", "rbac"]) {
      expect(cases).toContain(name);
    }
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = join(FIXTURES, name);
      const optionsFile = join(dir, "case.json");
      const options: CaseOptions = existsSync(optionsFile)
        ? JSON.parse(readFileSync(optionsFile, "utf8"))
        : {};
      const out = await testdir();
      const reporter = new MemoryReporter();
      const result = await generate(
        {
          cwd: dir,
          crdOut: join(out, "crd"),
          rbacOut: join(out, "rbac"),
          ...(options.maxDescLen === undefined ? {} : { maxDescLen: options.maxDescLen }),
          ...(options.deriveRbac ? { deriveRbac: true } : {}),
        },
        reporter,
      );
      await expectYaml11Safe(out);
      const produced = await readTree(out);
      const expectedDir = join(dir, "expected");
      if (process.env.UPDATE_GOLDEN) {
        await rm(expectedDir, { recursive: true, force: true });
        for (const [path, text] of Object.entries(produced)) {
          await mkdir(dirname(join(expectedDir, path)), { recursive: true });
          await writeFile(join(expectedDir, path), text);
        }
      }
      const expected = await readTree(expectedDir);
      expect(Object.keys(produced)).toEqual(Object.keys(expected));
      for (const [path, text] of Object.entries(produced)) {
        expect(parseYaml(text), `${name}/${path}`).toEqual(parseYaml(expected[path] as string));
      }
      const warnings = result.diagnostics.map((d) => d.code).sort();
      expect(warnings).toEqual(options.warnings ?? []);
    });
  }
});
