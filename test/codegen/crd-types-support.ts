// Helpers of the `tsop generate types` tests: a CRD object from a version's schema, and a strict
// type check of generated files (with the TypeScript package, "tsop" mapped to the built runtime's
// declarations) that returns the diagnostics as `file:line: message` lines.
import { join } from "node:path";
import ts from "typescript";
import { REPO_ROOT } from "../support/cli.js";

/** The built runtime's declarations: what a project importing "tsop" compiles against. */
export const RUNTIME_TYPES = join(REPO_ROOT, "dist/runtime/index.d.ts");

export function crdOf(
  versions: Array<{ name: string; schema: object; served?: boolean; deprecated?: boolean }>,
  { kind = "Widget", group = "example.com", scope = "Namespaced" } = {},
): Record<string, unknown> {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope,
      versions: versions.map((v, i) => ({
        name: v.name,
        served: v.served ?? true,
        storage: i === 0,
        ...(v.deprecated ? { deprecated: true } : {}),
        schema: { openAPIV3Schema: v.schema },
      })),
    },
  };
}

export const STRICT: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitAny: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
  // The ES library only (no DOM): what a Node operator compiles against, and half the parse time.
  lib: ["lib.es2023.d.ts"],
  baseUrl: "/",
  paths: { tsop: [RUNTIME_TYPES] },
};

/** Type-checks `files` (absolute paths) under STRICT (plus `extra`); "" when clean. */
export function typecheck(files: string[], extra: ts.CompilerOptions = {}): string {
  const program = ts.createProgram(files, { ...STRICT, ...extra });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
      if (!d.file || d.start === undefined) return text;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${d.file.fileName}:${line + 1}: ${text}`;
    })
    .join("\n");
}
