// The output stage: compares the rendered files with the disk, then either reports the drift
// (--check, writes nothing) or turns them into one output set for the sink, removing CRD files of kinds
// that no longer exist (only files tsop generated: they carry the tsop.dev/version annotation).
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
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

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Generated CRD files in dir that the current run does not produce. */
async function staleCrds(dir: string, keep: ReadonlySet<string>): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    if (!name.endsWith(".yaml") || keep.has(path)) continue;
    const text = await readIfExists(path);
    if (text?.includes("tsop.dev/version:") && /kind: CustomResourceDefinition/.test(text)) out.push(path);
  }
  return out;
}

export async function planFiles(
  files: readonly RenderedFile[],
  crdDir: string | undefined,
): Promise<FilePlan[]> {
  const plans: FilePlan[] = [];
  for (const f of files) {
    const before = await readIfExists(f.path);
    const status: FileStatus =
      before === undefined ? "created" : before === f.content ? "unchanged" : "updated";
    plans.push({ path: f.path, status, content: f.content, ...(before === undefined ? {} : { before }) });
  }
  if (crdDir) {
    const keep = new Set(files.map((f) => f.path));
    for (const path of await staleCrds(crdDir, keep)) {
      const before = await readIfExists(path);
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
