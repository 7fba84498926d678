// The decorators must work (type-check and run) in both TypeScript decorator modes: TS 5 standard
// decorators and legacy experimentalDecorators. Each snippet is compiled with the real compiler.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import * as decorators from "../../src/runtime/decorators.js";
import { typeErrors } from "./support/typecheck.js";

// The declarations alone (index.ts re-exports them): keeps the check fast.
const declarations = resolve(import.meta.dirname, "../../src/runtime/decorators.js");
const schema = resolve(import.meta.dirname, "../../src/runtime/schema.js");
const dir = mkdtempSync(join(tmpdir(), "tsop-decorators-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const body = `
@CustomResource({ group: "cache.example.com", version: "v1alpha1", shortNames: ["mc"] })
@Status()
@Scale({ specReplicasPath: ".spec.size", statusReplicasPath: ".status.replicas" })
@PrinterColumn({ name: "Size", type: "integer", jsonPath: ".spec.size" })
@PrinterColumn({ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" })
@StorageVersion()
@Deprecated("use v1")
class Memcached extends KubeObject<{ size?: Int32 }, { replicas?: Int32; conditions?: Condition[] }> {
  hello(): string { return "still a class"; }
}

@CustomResource({ group: "", version: "v1", kind: "Thing", plural: "thingies", scope: "Cluster" })
class WeirdName extends KubeObject<{ any?: JSONValue }> {}

@Rbac({ groups: ["cache.example.com"], resources: ["memcacheds"], verbs: ["get", "list", "watch"] })
@Rbac({ groups: [""], resources: ["events"], verbs: ["create", "patch"] })
class MemcachedReconciler {}
`;
const imports = `import { CustomResource, Status, Scale, PrinterColumn, StorageVersion, Deprecated, Rbac } from ${JSON.stringify(declarations)};
import { KubeObject, type Int32, type Condition, type JSONValue } from ${JSON.stringify(schema)};\n`;

function errorsIn(experimentalDecorators: boolean): string[] {
  const file = join(dir, `snippet-${experimentalDecorators ? "legacy" : "standard"}.ts`);
  writeFileSync(file, `${imports}${body}\nexport { Memcached, WeirdName, MemcachedReconciler };\n`);
  return typeErrors(
    [file],
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      experimentalDecorators,
    },
    dir,
  );
}

/** Compiles the snippet in one mode and runs it with the real decorator functions. */
function run(experimentalDecorators: boolean): Record<string, Function> {
  const out = ts.transpileModule(`${body}\nreturn { Memcached, WeirdName, MemcachedReconciler };`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None, experimentalDecorators },
    reportDiagnostics: false,
  }).outputText;
  const names = ["KubeObject", ...Object.keys(decorators)];
  const values = names.map((n) =>
    n === "KubeObject" ? class KubeObject {} : (decorators as Record<string, unknown>)[n],
  );
  return new Function(...names, out)(...values) as Record<string, Function>;
}

describe.each([
  ["standard decorators", false],
  ["experimentalDecorators", true],
])("%s", (_label, legacy) => {
  it("type-checks", () => {
    expect(errorsIn(legacy)).toEqual([]);
  }, 120_000);

  it("records group/version/kind/plural and RBAC, leaving the class usable", () => {
    const { Memcached, WeirdName, MemcachedReconciler } = run(legacy) as Record<string, new () => unknown>;
    expect(decorators.resourceInfo(Memcached as Function)).toEqual({
      group: "cache.example.com",
      version: "v1alpha1",
      kind: "Memcached",
      plural: "memcacheds",
      namespaced: true,
      apiVersion: "cache.example.com/v1alpha1",
    });
    expect(new (Memcached as new () => { hello(): string })().hello()).toBe("still a class");
    expect(decorators.resourceInfo(WeirdName as Function)).toMatchObject({
      kind: "Thing",
      plural: "thingies",
      namespaced: false,
      apiVersion: "v1",
    });
    expect(
      decorators
        .rbacOf(MemcachedReconciler as Function)
        .map((r) => r.resources?.[0])
        .sort(),
    ).toEqual(["events", "memcacheds"]);
    expect(decorators.resourceInfo(MemcachedReconciler as Function)).toBeUndefined();
  });
});
