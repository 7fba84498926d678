// Every ```ts block of docs/runtime.md and docs/testing.md compiles as shown (issue 42, item 6):
// each block is one module, typechecked against tsop's runtime and test kit (as `tsop` and
// `tsop/testing`) under the compiler options of the scaffolded project's tsconfig, strict and
// noUncheckedIndexedAccess included. A block that is deliberately a fragment is marked
// ```ts fragment and skipped; keep those few.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url);
const DOCS = ["docs/runtime.md", "docs/testing.md"];

interface Block {
  doc: string;
  line: number;
  code: string;
  /** The project file the doc names just above the block (`src/main.ts`:), so blocks can import each other. */
  file?: string;
}

/** The ```ts blocks of a Markdown file (not ```ts fragment), with the line each starts on. */
export function tsBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (fence[1] === "ts" && !/\bfragment\b/.test(fence[2]!)) {
      const named =
        /^`([\w./-]+\.ts)`:$/.exec(lines[i - 2] ?? "") ?? /^`([\w./-]+\.ts)`:$/.exec(lines[i - 1] ?? "");
      const code = lines.slice(i + 1, end).join("\n");
      blocks.push({ doc, line: i + 2, code, ...(named ? { file: named[1] } : {}) });
    }
    i = end;
  }
  return blocks;
}

/** The scaffold's tsconfig compilerOptions, with `tsop` and `tsop/testing` mapped to this repository's sources. */
function compilerOptions(): ts.CompilerOptions {
  const template = readFileSync(new URL("templates/init/tsconfig.json.hbs", ROOT), "utf8");
  const raw = (JSON.parse(template) as { compilerOptions: Record<string, unknown> }).compilerOptions;
  const { options, errors } = ts.convertCompilerOptionsFromJson(raw, fileURLToPath(ROOT));
  if (errors.length) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, "\n"));
  return {
    ...options,
    rootDir: undefined,
    baseUrl: fileURLToPath(ROOT),
    paths: { tsop: ["src/runtime/index.ts"], "tsop/testing": ["src/testing/index.ts"] },
  };
}

/** Typechecks the blocks in one program; each problem as `doc:line: message`. */
function typecheck(blocks: readonly Block[]): string[] {
  const dir = fileURLToPath(new URL("test/docs/", ROOT));
  const files = new Map(blocks.map((b, i) => [`${dir}__doc_blocks__/${b.file ?? `src/block_${i}.ts`}`, b]));
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => files.has(f) || exists(f);
  host.directoryExists = (d) =>
    [...files.keys()].some((f) => f.startsWith(`${d}/`)) || ts.sys.directoryExists(d);
  host.readFile = (f) => {
    const b = files.get(f);
    return b ? `${b.code}\nexport {};\n` : read(f);
  };
  host.getSourceFile = (f, v, onError, create) => {
    const b = files.get(f);
    return b
      ? ts.createSourceFile(f, `${b.code}\nexport {};\n`, v, true)
      : getSourceFile(f, v, onError, create);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const problems: string[] = [];
  for (const [file, block] of files) {
    const sf = program.getSourceFile(file)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const { line } = sf.getLineAndCharacterOfPosition(d.start ?? 0);
      problems.push(
        `${block.doc}:${block.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`,
      );
    }
  }
  return problems;
}

describe("the TypeScript examples of the docs", () => {
  it("compile as shown under the scaffold's tsconfig", () => {
    const blocks = DOCS.flatMap((doc) => tsBlocks(doc, readFileSync(new URL(doc, ROOT), "utf8")));
    expect(blocks.length).toBeGreaterThan(5);
    expect(typecheck(blocks)).toEqual([]);
  }, 30_000);

  it("finds the blocks a fence opens, not the fragments", () => {
    const text = ["```ts", "const a = 1;", "```", "```ts fragment", "x", "```", "```sh", "ls", "```"].join(
      "\n",
    );
    expect(tsBlocks("d.md", text)).toEqual([{ doc: "d.md", line: 2, code: "const a = 1;" }]);
  });
});
