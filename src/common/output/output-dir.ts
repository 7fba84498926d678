// The one rule for a directory tsop replaces or fills as a whole (bundle --output-dir, bundle push
// --oci-layout): it is refused, before anything is read for the output or moved, when it
//   - is the project directory, or contains it;
//   - is a symbolic link, or not a directory;
//   - holds anything tsop does not write there: a top-level entry other than the ones tsop owns,
//     or a symbolic link, FIFO, socket or device anywhere below (tsop would not carry it over).
// A missing or empty directory is always fine.
import type { Dirent } from "node:fs";
import { lstat, readdir, realpath } from "../fs.js";
import { isAbsolute, join, relative, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { specialFileKind } from "../file-kind.js";
import { isTsopTemp } from "./commit.js";

export interface OutputDirRule {
  /** The flag and value as the user gave them, e.g. "--output-dir ." (for messages). */
  shown: string;
  /** The project root: refused as the directory, as is any directory containing it. */
  root?: string;
  /** The top-level names tsop writes in this directory. */
  owned: readonly string[];
  /** What the directory is for, e.g. "a bundle directory holds only manifests/, metadata/ and tests/". */
  holds: string;
}

const MAX_LISTED = 5;

function entryKind(entry: Dirent): string | undefined {
  if (entry.isDirectory() || entry.isFile()) return undefined;
  return `a ${specialFileKind(entry)}`;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Entries below dir that tsop would not carry over (links, FIFOs, sockets, devices). */
async function specialEntries(dir: string, base: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const entry of entries) {
    if (out.length > MAX_LISTED) return;
    const path = join(dir, entry.name);
    const kind = entryKind(entry);
    if (kind) out.push(`${relative(base, path)} (${kind})`);
    else if (entry.isDirectory()) await specialEntries(path, base, out);
  }
}

function refuse(rule: OutputDirRule, dir: string, why: string, hint?: string): UsageError {
  return new UsageError(`${rule.shown}: ${dir} ${why}; nothing was changed`, {
    hint: hint ?? `choose a new or empty directory (${rule.holds})`,
  });
}

/** Throws (nothing changed) unless dir may be written as a whole by tsop; see the file comment. */
export async function assertOutputDir(dir: string, rule: OutputDirRule): Promise<void> {
  const real = await canonical(dir);
  if (rule.root !== undefined) {
    const root = await canonical(rule.root);
    if (real === root) throw refuse(rule, dir, "is the project directory itself");
    if (inside(root, real)) throw refuse(rule, dir, `contains the project ${rule.root}`);
  }
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return;
  if (info.isSymbolicLink())
    throw refuse(
      rule,
      dir,
      `is a symbolic link (to ${real}); tsop replaces the directory as a whole and does not write through links`,
      "point the flag at the real directory, or remove the link",
    );
  if (!info.isDirectory()) throw refuse(rule, dir, "is not a directory");
  const foreign: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (isTsopTemp(entry.name)) continue;
    const kind = entryKind(entry);
    if (!rule.owned.includes(entry.name) || kind) foreign.push(kind ? `${entry.name} (${kind})` : entry.name);
    else if (entry.isDirectory()) await specialEntries(join(dir, entry.name), dir, foreign);
  }
  if (foreign.length === 0) return;
  const listed = foreign.slice(0, MAX_LISTED).join(", ") + (foreign.length > MAX_LISTED ? ", …" : "");
  throw refuse(rule, dir, `holds files tsop did not write: ${listed}`);
}
