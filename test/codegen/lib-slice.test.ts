// lib.es5.d.ts without its typed-array section (src/codegen/lib-slice.ts): the analysis must give
// the same files and diagnostics as with the whole file, and must take the whole file as soon as
// any file of the program names a typed array or globalThis. The whole-file run of each fixture is
// forced the way a user's project would force it: one more file that mentions Uint8Array.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/codegen/index.js";
import { loadProgram } from "../../src/codegen/program.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { readTree, testdir } from "../support/testdir.js";
import { tsconfig } from "./support.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/codegen/", import.meta.url));
const cases = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, "tsconfig.json")));

/** Whether the program of `tsconfigPath` got lib.es5.d.ts without the typed arrays. */
function sliced(tsconfigPath: string): boolean {
  const { program } = loadProgram(tsconfigPath);
  const es5 = program.getSourceFiles().find((file) => /lib\.es5\.d\.ts$/.test(file.fileName));
  expect(es5).toBeDefined();
  return !es5!.text.includes("interface Uint8Array");
}

async function run(dir: string, project?: string) {
  const out = await testdir();
  const options = existsSync(join(dir, "case.json"))
    ? (JSON.parse(readFileSync(join(dir, "case.json"), "utf8")) as {
        maxDescLen?: number;
        deriveRbac?: boolean;
      })
    : {};
  const result = await generate(
    {
      cwd: dir,
      ...(project ? { project } : {}),
      crdOut: join(out, "crd"),
      rbacOut: join(out, "rbac"),
      webhookOut: join(out, "webhook"),
      cache: false,
      ...(options.maxDescLen === undefined ? {} : { maxDescLen: options.maxDescLen }),
      ...(options.deriveRbac ? { deriveRbac: true } : {}),
    },
    new MemoryReporter(),
  );
  return { files: await readTree(out), diagnostics: result.diagnostics };
}

describe("lib.es5.d.ts without typed arrays", () => {
  for (const name of cases) {
    it(`${name}: the same files and diagnostics as with the whole file`, async () => {
      const dir = join(FIXTURES, name);
      const base = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")) as { include: string[] };
      const extra = await testdir({ "whole-lib.ts": "// Uint8Array: names a typed array.\nexport {};\n" });
      const whole = join(extra, "tsconfig.json");
      await writeFile(
        whole,
        JSON.stringify({
          extends: join(dir, "tsconfig.json"),
          include: [...base.include.map((entry) => join(dir, entry)), join(extra, "whole-lib.ts")],
        }),
      );
      expect(sliced(join(dir, "tsconfig.json"))).toBe(true);
      expect(sliced(whole)).toBe(false);
      const [withSlice, withWhole] = [await run(dir), await run(dir, whole)];
      expect(Object.keys(withSlice.files).length).toBeGreaterThan(0);
      expect(withSlice).toEqual(withWhole);
    });
  }

  it("takes the whole file when a program's file names a typed array or globalThis", async () => {
    const api = (body: string) =>
      `import { CustomResource, KubeObject } from "tsop";\n${body}\n@CustomResource({ group: "x.tsop.dev", version: "v1" })\nexport class Thing extends KubeObject<{ size?: string }> {}\n`;
    for (const body of [
      "export interface Raw { data?: Uint8Array }",
      "export type Globals = keyof typeof globalThis;",
      "/** Mentioned only in a comment: DataView. */\nexport interface Plain { a?: string }",
    ]) {
      const dir = await testdir({ "tsconfig.json": tsconfig(), "api/thing.ts": api(body) });
      expect(sliced(join(dir, "tsconfig.json")), body).toBe(false);
    }
    const plain = await testdir({
      "tsconfig.json": tsconfig(),
      "api/thing.ts": api("export interface Plain {}"),
    });
    expect(sliced(join(plain, "tsconfig.json"))).toBe(true);
  });
});
