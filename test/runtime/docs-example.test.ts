// The complete example in docs/runtime.md (API type, controller, main.ts) must compile against the
// real public API: the scaffold templates and users copy it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { afterAll, expect, it } from "vitest";
import { typeErrors } from "./support/typecheck.js";

const root = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "tsop-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the docs/runtime.md operator example type-checks in both decorator modes", () => {
  const doc = readFileSync(join(root, "docs/runtime.md"), "utf8");
  const files: string[] = [];
  for (const m of doc.matchAll(/^`(src\/[\w/.-]+\.ts)`:\n\n```ts\n([\s\S]*?)```/gm)) {
    const file = join(dir, m[1] as string);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, m[2] as string);
    files.push(file);
  }
  expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
    "src/api/v1alpha1/memcached.ts",
    "src/controllers/memcached.ts",
    "src/main.ts",
  ]);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  for (const experimentalDecorators of [false, true]) {
    const errors = typeErrors(
      files,
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(root, "node_modules/@types")],
        experimentalDecorators,
        paths: {
          tsop: [join(root, "src/runtime/index.ts")],
          "@kubernetes/client-node": [join(root, "node_modules/@kubernetes/client-node/dist/index.d.ts")],
        },
      },
      dir,
    );
    expect(errors).toEqual([]);
  }
}, 180_000);
