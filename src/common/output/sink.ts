// Where a command's rendered output goes. Commands (scaffold, generate, bundle) render their whole
// output set in memory, then hand it to one sink:
//   directorySink — commits it to disk as one unit (commit.ts);
//   stdoutSink    — --dry-run: prints what would be created, updated or removed, as unified diffs;
//   memorySink    — tests: keeps the files, touches no disk.
import { readFile } from "../fs.js";
import { relative } from "node:path";
import { readTreeFiles, textOrBytes } from "../tree.js";
import { commitOutputSet, type OutputChange } from "./commit.js";
import { unifiedDiff } from "./diff.js";

export type { OutputChange } from "./commit.js";

export interface OutputSink {
  readonly kind: "directory" | "stdout" | "memory";
  /** Writes (or shows) the whole set; nothing of it is written when this throws. */
  commit(changes: readonly OutputChange[]): Promise<void>;
}

/** Writes to disk; `anchor` (the project root) holds the journal of an unfinished commit. */
export function directorySink(anchor: string): OutputSink {
  return { kind: "directory", commit: (changes) => commitOutputSet(changes, { anchor }) };
}

function text(content: string | Uint8Array): string {
  return typeof content === "string" ? content : `<${content.byteLength} bytes of binary data>\n`;
}

/** Each file the change set creates, updates or removes, with its content before and after. */
export async function fileChanges(
  changes: readonly OutputChange[],
): Promise<Array<{ path: string; before?: string; after?: string }>> {
  const out: Array<{ path: string; before?: string; after?: string }> = [];
  // Bytes first: a binary file is shown as its size, never decoded into text.
  const read = (path: string) =>
    readFile(path).then(
      (bytes) => text(textOrBytes(bytes)),
      () => undefined,
    );
  for (const change of changes) {
    if (change.op === "write") out.push(withBoth(change.path, await read(change.path), text(change.content)));
    else if (change.op === "remove") out.push(withBoth(change.path, await read(change.path), undefined));
    else {
      const before = await readTreeFiles(change.path);
      const paths = new Set([...before.keys(), ...change.files.keys()]);
      for (const rel of [...paths].sort()) {
        const after = change.files.get(rel);
        const old = before.get(rel);
        out.push(
          withBoth(
            `${change.path}/${rel}`,
            old === undefined ? undefined : text(old),
            after === undefined ? undefined : text(after),
          ),
        );
      }
    }
  }
  return out.filter((f) => f.before !== f.after);
}

function withBoth(path: string, before: string | undefined, after: string | undefined) {
  return { path, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

/** --dry-run: prints a summary line and a unified diff per changed file; writes nothing. */
export function stdoutSink(print: (text: string) => void, cwd: string): OutputSink {
  return {
    kind: "stdout",
    async commit(changes) {
      const files = await fileChanges(changes);
      const shown = (path: string) => relative(cwd, path).split("\\").join("/") || path;
      if (files.length === 0) {
        print("dry run: nothing would change\n");
        return;
      }
      const verb = (f: (typeof files)[number]) =>
        f.before === undefined ? "create" : f.after === undefined ? "remove" : "update";
      const summary = files.map((f) => `  would ${verb(f)} ${shown(f.path)}`).join("\n");
      const diffs = files.map((f) => unifiedDiff(shown(f.path), f.before, f.after)).join("");
      print(`dry run: ${files.length} file(s) would change, nothing was written\n${summary}\n${diffs}`);
    },
  };
}

export interface MemorySink extends OutputSink {
  /** Absolute path → content of everything committed (trees expanded to their files). */
  readonly files: Map<string, string | Uint8Array>;
  readonly removed: Set<string>;
}

export function memorySink(): MemorySink {
  const files = new Map<string, string | Uint8Array>();
  const removed = new Set<string>();
  return {
    kind: "memory",
    files,
    removed,
    async commit(changes) {
      for (const change of changes) {
        if (change.op === "write") files.set(change.path, change.content);
        else if (change.op === "remove") removed.add(change.path);
        else for (const [rel, content] of change.files) files.set(`${change.path}/${rel}`, content);
      }
    },
  };
}
