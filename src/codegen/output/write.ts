// The output stage: compares the rendered files with the disk, then either reports the drift
// (--check, writes nothing) or turns them into one output set for the sink, removing CRD files of kinds
// that no longer exist (only files tsop generated: they carry the tsop.dev/version annotation).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { OutputChange } from "../../common/output/sink.js";
import { unifiedDiff } from "../../common/output/diff.js";

export interface RenderedFile {
  /** Absolute path. */
  path: string;
  content: string;
  /** Digest of the objects the content was rendered from (output/yaml.ts reuses unchanged texts). */
  digest?: string;
}

export type FileStatus = "created" | "updated" | "unchanged" | "removed";

export interface FilePlan {
  path: string;
  status: FileStatus;
  before?: string;
  content?: string;
}

// Synchronous reads: the command only waits for them, and each asynchronous one is several
// thread-pool round trips (open, stat, read, close), per file, twice for a CRD directory.
function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Generated CRD files in dir that the current run does not produce. */
function staleCrds(dir: string, keep: ReadonlySet<string>): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (!name.endsWith(".yaml") || keep.has(path)) continue;
    const text = readIfExists(path);
    if (text?.includes("tsop.dev/version:") && /kind: CustomResourceDefinition/.test(text)) out.push(path);
  }
  return out;
}

export function planFiles(files: readonly RenderedFile[], crdDir: string | undefined): FilePlan[] {
  const plans: FilePlan[] = [];
  for (const f of files) {
    const before = readIfExists(f.path);
    const status: FileStatus =
      before === undefined ? "created" : before === f.content ? "unchanged" : "updated";
    plans.push({ path: f.path, status, content: f.content, ...(before === undefined ? {} : { before }) });
  }
  if (crdDir) {
    const keep = new Set(files.map((f) => f.path));
    for (const path of staleCrds(crdDir, keep)) {
      const before = readIfExists(path);
      plans.push({ path, status: "removed", ...(before === undefined ? {} : { before }) });
    }
  }
  return plans.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function driftOf(plans: readonly FilePlan[], root: string): string {
  return plans
    .filter((p) => p.status !== "unchanged")
    .map((p) =>
      unifiedDiff(
        relative(root, p.path).split("\\").join("/"),
        p.before,
        p.status === "removed" ? undefined : p.content,
      ),
    )
    .join("");
}

/** The plans as one output set for the sink (unchanged files are left alone). */
export function planChanges(plans: readonly FilePlan[]): OutputChange[] {
  const changes: OutputChange[] = [];
  for (const p of plans) {
    if (p.status === "created" || p.status === "updated")
      changes.push({ op: "write", path: p.path, content: p.content as string });
    else if (p.status === "removed") changes.push({ op: "remove", path: p.path });
  }
  return changes;
}
