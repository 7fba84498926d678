// The scaffolding machinery, kept apart from what is scaffolded: a plan is a list of file actions
// (whole-file templates, marker insertions, edits of existing files), each with its collision
// policy. `executePlan` renders and applies every action in memory, checks every collision, and
// only then writes the changed files, atomically and in sorted path order. A failure anywhere
// leaves the tree as it was.
import { readFile } from "../common/fs.js";
import { join } from "node:path";
import { AggregateTsopError, TsopError } from "../common/errors.js";
import { insertAtMarker } from "./markers.js";
import { renderTemplate } from "./templates.js";

/** What happens when a template's target already exists with different content. */
export type IfExists = "skip" | "error" | "overwrite";
/** What happens when an edited file does not exist. */
export type IfMissing = "skip" | "error";

/** A whole new file: rendered from templates/<template>, or given as content (e.g. JSON built as data). */
export type TemplateAction = {
  kind: "template";
  path: string;
  ifExists: IfExists;
} & ({ template: string; content?: undefined } | { content: string; template?: undefined });

/** Adds fragments at a `+tsop:scaffold:<marker>` comment of an existing file (idempotent). */
export interface InsertAction {
  kind: "insert";
  path: string;
  marker: string;
  fragments: string[];
  ifMissing: IfMissing;
}

/** Changes an existing file through a function of its text (e.g. the yaml Document API). */
export interface EditAction {
  kind: "edit";
  path: string;
  edit: (current: string, file: string) => string;
  ifMissing: IfMissing;
}

export type FileAction = TemplateAction | InsertAction | EditAction;

export type FileStatus = "created" | "updated" | "overwritten" | "unchanged" | "skipped";

export interface FileResult {
  path: string;
  status: FileStatus;
  /** Why a file was skipped or overwritten. */
  note?: string;
}

export interface PlanOptions {
  /** The directory the action paths are relative to. */
  root: string;
  /** Values for the templates. */
  data: object;
  /** Turns the `error` collision policy into `overwrite` (reported as overwritten). */
  force?: boolean;
  /** Plan only: compute results, write nothing. */
  dryRun?: boolean;
}

export interface PlanResult {
  files: FileResult[];
  /** Final text of every touched file, by relative path (for tests and dry runs). */
  contents: Map<string, string>;
}

/** The file's text; undefined when absent; "blocked" when a directory (or a file where a directory must go) is in the way. */
async function readIfExists(path: string): Promise<string | undefined | "blocked"> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ENOTDIR" || code === "EISDIR") return "blocked";
    throw new TsopError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

interface Entry {
  original: string | undefined;
  current: string | undefined;
  status?: FileStatus;
  note?: string;
}

export async function executePlan(actions: readonly FileAction[], options: PlanOptions): Promise<PlanResult> {
  const entries = new Map<string, Entry>();
  const collisions: string[] = [];
  const missing: string[] = [];
  const blocked: string[] = [];

  async function entryFor(path: string): Promise<Entry | undefined> {
    let entry = entries.get(path);
    if (!entry) {
      const original = await readIfExists(join(options.root, path));
      if (original === "blocked") {
        if (!blocked.includes(path)) blocked.push(path);
        return undefined;
      }
      entry = { original, current: original };
      entries.set(path, entry);
    }
    return entry;
  }

  for (const action of actions) {
    const entry = await entryFor(action.path);
    if (!entry) continue;
    if (action.kind === "template") {
      const rendered =
        action.template !== undefined ? await renderTemplate(action.template, options.data) : action.content;
      if (entry.current === undefined || entry.current === rendered) {
        entry.current = rendered;
        continue;
      }
      const policy = action.ifExists === "error" && options.force ? "overwrite" : action.ifExists;
      if (policy === "skip") {
        entry.status = "skipped";
        entry.note = "exists; kept as is";
      } else if (policy === "error") {
        collisions.push(action.path);
      } else {
        entry.current = rendered;
        entry.status = "overwritten";
        entry.note = "--force";
      }
      continue;
    }
    if (entry.current === undefined) {
      if (action.ifMissing === "error") missing.push(action.path);
      else {
        entry.status = "skipped";
        entry.note = "missing; not edited";
      }
      continue;
    }
    entry.current =
      action.kind === "insert"
        ? insertAtMarker(entry.current, action.path, action.marker, action.fragments)
        : action.edit(entry.current, join(options.root, action.path));
  }

  if (blocked.length > 0) {
    throw new AggregateTsopError(
      "a directory, or a file where a directory must be, is in the way of these files; nothing was written:",
      blocked,
      { hint: "move what is in the way, then run the command again" },
    );
  }
  if (missing.length > 0) {
    throw new AggregateTsopError("these files must exist to be edited, but are missing:", missing, {
      hint: "restore them (e.g. from version control) or recreate the project with `tsop init`",
    });
  }
  if (collisions.length > 0) {
    throw new AggregateTsopError(
      "these files already exist with different content; nothing was written:",
      collisions,
      { hint: "move them away, or pass --force to overwrite them" },
    );
  }

  const files: FileResult[] = [];
  const contents = new Map<string, string>();
  const writes: Array<{ path: string; data: string }> = [];
  for (const [path, entry] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (entry.current !== undefined) contents.set(path, entry.current);
    let status = entry.status;
    if (status === undefined) {
      if (entry.current === entry.original) status = "unchanged";
      else status = entry.original === undefined ? "created" : "updated";
    }
    if (status === "created" || status === "updated" || status === "overwritten") {
      writes.push({ path: join(options.root, path), data: entry.current! });
    }
    files.push(entry.note ? { path, status, note: entry.note } : { path, status });
  }
  if (!options.dryRun) {
    const { directorySink } = await import("../common/output/sink.js");
    await directorySink(options.root).commit(
      writes.map((w) => ({ op: "write", path: w.path, content: w.data })),
    );
  }
  return { files, contents };
}
