// Helpers for codegen tests: a throw-away project whose "tsop" import maps to this repository's
// runtime, and a runner that captures the result or the CodegenError.
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import {
  CodegenError,
  type Diagnostic,
  type GenerateOptions,
  type GenerateResult,
  generate,
} from "../../src/codegen/index.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { readTree, testdir } from "../support/testdir.js";

export const RUNTIME = fileURLToPath(new URL("../../src/runtime/index.ts", import.meta.url));

export function tsconfig(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      paths: { tsop: [RUNTIME] },
      ...extra,
    },
    include: ["api", "controllers"],
  });
}

/** A project with one resource whose spec body and decorators are given. */
export function resource(
  specBody: string,
  options: { prelude?: string; decorators?: string; crd?: string } = {},
): string {
  return [
    'import { CustomResource, KubeObject, Rbac, Status, Scale, PrinterColumn, StorageVersion, Unserved, SkipVersion, type Int32, type Int64, type IntOrString } from "tsop";',
    options.prelude ?? "",
    "export interface ThingSpec {",
    specBody,
    "}",
    `@CustomResource(${options.crd ?? '{ group: "things.tsop.dev", version: "v1" }'})`,
    options.decorators ?? "",
    "export class Thing extends KubeObject<ThingSpec> {}",
    "",
  ].join("\n");
}

export interface Outcome {
  dir: string;
  result?: GenerateResult;
  error?: CodegenError;
  diagnostics: Diagnostic[];
  reporter: MemoryReporter;
  before: Record<string, string>;
  after: Record<string, string>;
}

export async function runGenerate(
  files: Record<string, string>,
  options: Partial<GenerateOptions> = {},
): Promise<Outcome> {
  const dir = await testdir({ "tsconfig.json": tsconfig(), ...files });
  const before = await readTree(dir);
  const reporter = new MemoryReporter();
  let result: GenerateResult | undefined;
  let error: CodegenError | undefined;
  try {
    result = await generate({ cwd: dir, ...options }, reporter);
  } catch (e) {
    if (!(e instanceof CodegenError)) throw e;
    error = e;
  }
  const after = await readTree(dir);
  return {
    dir,
    reporter,
    before,
    after,
    diagnostics: [...(error?.diagnostics ?? result?.diagnostics ?? [])],
    ...(result ? { result } : {}),
    ...(error ? { error } : {}),
  };
}

/** 1-based line and column of the first occurrence of `needle` in `text`. */
export function positionOf(text: string, needle: string): { line: number; column: number } {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`'${needle}' not found in the source`);
  const before = text.slice(0, index).split("\n");
  return { line: before.length, column: (before[before.length - 1] as string).length + 1 };
}

/** Asserts one diagnostic with this code at the position of `at` in file, whose message contains `message`. */
export function expectDiagnostic(
  outcome: Outcome,
  file: string,
  source: string,
  code: string,
  at: string,
  message: string,
): void {
  const { line, column } = positionOf(source, at);
  const found = outcome.diagnostics.filter((d) => d.code === code);
  expect(found.map((d) => `${d.file}:${d.line}:${d.column} ${d.message}`)).toContainEqual(
    expect.stringMatching(new RegExp(`^${escapeRegExp(file)}:${line}:${column} .*${escapeRegExp(message)}`)),
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
