// Diagnostics: every problem found in one run, positioned at file:line:col with a stable code and a
// hint. Stages add to one Diagnostics collection; nothing throws on the first problem. At the end the
// run fails if any error remains (warnings become errors with --strict) and writes nothing.
import { relative } from "node:path";
import type TS from "typescript";
import { AggregateTsopError } from "../common/errors.js";

export type Severity = "error" | "warning";

export interface Diagnostic {
  code: string;
  severity: Severity;
  /** Path relative to the project directory (forward slashes). */
  file: string;
  line: number;
  column: number;
  message: string;
  hint?: string;
}

/** A message with its hint, as produced by messages.ts. */
export interface Message {
  code: string;
  message: string;
  hint?: string;
  severity?: Severity;
}

export class Diagnostics {
  readonly items: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(readonly root: string) {}

  /** A path as diagnostics show it: relative to the project directory, forward slashes. */
  shown(path: string): string {
    return relative(this.root, path).split("\\").join("/") || path;
  }

  /** Records a message at a node (its first token, JSDoc excluded). */
  at(node: TS.Node, msg: Message): void {
    const sf = node.getSourceFile();
    this.atPosition(sf, node.getStart(sf, false), msg);
  }

  atPosition(sf: TS.SourceFile, pos: number, msg: Message): void {
    const { line, character } = sf.getLineAndCharacterOfPosition(pos);
    this.add({
      code: msg.code,
      severity: msg.severity ?? "error",
      file: relative(this.root, sf.fileName).split("\\").join("/") || sf.fileName,
      line: line + 1,
      column: character + 1,
      message: msg.message,
      ...(msg.hint === undefined ? {} : { hint: msg.hint }),
    });
  }

  /** `file:line:col` of a node, relative to the project directory. */
  locate(node: TS.Node): string {
    const sf = node.getSourceFile();
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf, false));
    return `${relative(this.root, sf.fileName).split("\\").join("/")}:${line + 1}:${character + 1}`;
  }

  /** A problem with no source position (e.g. output size); file names the output file. */
  general(file: string, msg: Message): void {
    this.add({
      code: msg.code,
      severity: msg.severity ?? "error",
      file,
      line: 0,
      column: 0,
      message: msg.message,
      ...(msg.hint === undefined ? {} : { hint: msg.hint }),
    });
  }

  private add(d: Diagnostic): void {
    // The same type reached through several fields must not repeat its diagnostics.
    const key = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(d);
  }

  sorted(): Diagnostic[] {
    return [...this.items].sort(compareDiagnostics);
  }

  errors(strict: boolean): Diagnostic[] {
    return this.sorted().filter((d) => d.severity === "error" || strict);
  }
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.column}` : d.file;
  const hint = d.hint ? `\n      hint: ${d.hint}` : "";
  return `${where}: ${d.severity} ${d.code}: ${d.message}${hint}`;
}

/** Thrown when error-level diagnostics exist; nothing has been written. */
export class CodegenError extends AggregateTsopError {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    super(
      `tsop generate found ${errors} error${errors === 1 ? "" : "s"}; nothing was written`,
      diagnostics.map(formatDiagnostic),
      {
        hint: "fix the problems above and run tsop generate again (tsop generate --list-markers lists every tag)",
      },
    );
    this.diagnostics = diagnostics;
  }
}
