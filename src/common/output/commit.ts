// Commits a command's output set to disk as one unit, as far as a file system allows, holding the
// project lock (lock.ts) so that the recovery and the sweep below never touch another run's write:
//   1. recover: finish a commit an earlier run was killed in (its journal says what was left),
//      and delete stale temp files of tsop's own naming beside the targets;
//   2. preflight: every target's directory must be writable (nothing is touched otherwise);
//   3. stage: write every file and directory tree to a hidden sibling temp;
//   4. journal: record the renames to do in <anchor>/.tsop-commit-<tag>.json;
//   5. swap: rename every temp over its target (a few syscalls), remove what is no longer produced;
//   6. drop the journal and the replaced directories.
// A kill -9 before 4 leaves the old set (plus temps the next run deletes); after 4 the next run
// rolls the swap forward before it reads anything, so a set is never seen half old, half new by tsop.
import { randomBytes } from "node:crypto";
import { constants, type Dirent } from "node:fs";
import {
  access,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
  writeFileAtomic,
} from "../fs.js";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { TsopError } from "../errors.js";
import { withProjectLock } from "./lock.js";
import { writeError } from "./write-error.js";

/** One entry of an output set; every path is absolute. */
export type OutputChange =
  | { op: "write"; path: string; content: string | Uint8Array }
  | { op: "remove"; path: string }
  /** Replace the directory at path by exactly these files (relative paths with "/"). */
  | { op: "tree"; path: string; files: ReadonlyMap<string, string | Uint8Array> };

type Step =
  | { op: "write"; path: string; temp: string }
  | { op: "remove"; path: string }
  | { op: "tree"; path: string; temp: string; old: string };

interface Journal {
  tsopCommit: 1;
  steps: Step[];
}

const JOURNAL = /^\.tsop-commit-[0-9a-f]{12}\.json$/;
/** Temp names tsop gives: `.<name>.<12 hex>.tmp` (files) and `.<name>.tmp-<12 hex>` / `.old-` (trees). */
const STALE = [/^\..+\.[0-9a-f]{12}\.tmp$/, /^\..+\.(tmp|old)-[0-9a-f]{12}$/];

export function isTsopTemp(name: string): boolean {
  return STALE.some((re) => re.test(name));
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

async function applyStep(step: Step, recovering: boolean): Promise<void> {
  if (step.op === "remove") return rm(step.path, { force: true });
  if (recovering && !(await exists(step.temp))) return;
  if (step.op === "tree" && (await exists(step.path))) {
    if (await exists(step.old)) await rm(step.path, { recursive: true, force: true });
    else await rename(step.path, step.old);
  }
  await rename(step.temp, step.path);
}

async function dropOld(steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if (step.op !== "tree") continue;
    try {
      await rm(step.old, { recursive: true, force: true });
    } catch (error) {
      throw new TsopError(
        `the new ${step.path} is in place, but the old copy ${step.old} could not be removed`,
        {
          hint: `remove ${step.old} by hand (${(error as Error).message})`,
        },
      );
    }
  }
}

/** Rolls forward every commit journal in anchor (a run killed mid-swap), then removes it. */
export async function recoverOutputSets(anchor: string): Promise<string[]> {
  const recovered: string[] = [];
  const names = await readdir(anchor).catch(() => [] as string[]);
  for (const name of names.filter((n) => JOURNAL.test(n)).sort()) {
    const file = join(anchor, name);
    let journal: Journal;
    try {
      journal = JSON.parse(await readFile(file, "utf8")) as Journal;
    } catch {
      await rm(file, { force: true });
      continue;
    }
    for (const step of journal.steps ?? []) await applyStep(step, true);
    await dropOld(journal.steps ?? []);
    await rm(file, { force: true });
    recovered.push(...(journal.steps ?? []).map((s) => s.path));
  }
  return recovered;
}

/** Deletes tsop's stale temp files and directories in each of dirs (after recovery). */
export async function sweepStaleTemps(dirs: Iterable<string>): Promise<string[]> {
  const swept: string[] = [];
  for (const dir of new Set(dirs)) {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries) {
      if (!isTsopTemp(entry.name)) continue;
      await rm(join(dir, entry.name), { recursive: true, force: true }).catch(() => undefined);
      swept.push(join(dir, entry.name));
    }
  }
  return swept;
}

/** The closest existing ancestor of path (path itself included). */
async function existingAncestor(path: string): Promise<string> {
  let current = path;
  while (!(await exists(current)) && dirname(current) !== current) current = dirname(current);
  return current;
}

/** Throws a clear error (path named, nothing changed) unless dir, or its closest existing ancestor, is a writable directory. */
export async function assertWritableDir(dir: string, target: string = dir): Promise<void> {
  const at = await existingAncestor(dir);
  try {
    if (!(await stat(at)).isDirectory())
      throw Object.assign(new Error(`${at} is not a directory`), { code: "ENOTDIR" });
    await access(at, constants.W_OK);
  } catch (error) {
    throw writeError(at === dir ? target : at, error);
  }
}

/** Every directory of an existing tree must be writable, or the old copy could not be removed. */
async function assertRemovableTree(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return;
  if (!info.isDirectory())
    throw writeError(dir, Object.assign(new Error("not a directory"), { code: "ENOTDIR" }));
  try {
    await access(dir, constants.W_OK);
  } catch (error) {
    throw writeError(dir, error);
  }
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await assertRemovableTree(join(dir, entry.name));
  }
}

/** A tree swap moves the directory away: never the anchor (the project) or a directory holding it. */
function assertNotAnchor(change: OutputChange, anchor: string): void {
  if (change.op !== "tree") return;
  const rel = relative(change.path, anchor);
  if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)))
    throw new TsopError(
      `refusing to replace ${change.path}: it holds the project ${anchor}; nothing was changed`,
    );
}

async function preflight(changes: readonly OutputChange[], anchor: string): Promise<void> {
  for (const change of changes) {
    assertNotAnchor(change, anchor);
    await assertWritableDir(dirname(change.path), change.path);
    if (change.op === "tree") await assertRemovableTree(change.path);
    else if (change.op === "write" && (await stat(change.path).catch(() => undefined))?.isDirectory())
      throw writeError(change.path, Object.assign(new Error("is a directory"), { code: "EISDIR" }));
  }
}

async function stageOne(change: OutputChange, tag: string): Promise<Step> {
  const dir = dirname(change.path);
  const name = basename(change.path);
  if (change.op === "remove") return { op: "remove", path: change.path };
  await mkdir(dir, { recursive: true });
  if (change.op === "write") {
    const temp = join(dir, `.${name}.${tag}.tmp`);
    await writeFile(temp, change.content);
    return { op: "write", path: change.path, temp };
  }
  const temp = join(dir, `.${name}.tmp-${tag}`);
  await mkdir(temp, { recursive: true });
  for (const [rel, content] of [...change.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await mkdir(dirname(join(temp, rel)), { recursive: true });
    await writeFile(join(temp, rel), content);
  }
  return { op: "tree", path: change.path, temp, old: join(dir, `.${name}.old-${tag}`) };
}

async function stage(changes: readonly OutputChange[], tag: string): Promise<Step[]> {
  const steps: Step[] = [];
  for (const change of changes) {
    try {
      steps.push(await stageOne(change, tag));
    } catch (error) {
      await discard([...steps, ...(await stepTemps(change, tag))]);
      throw writeError(change.path, error);
    }
  }
  return steps;
}

/** The temp a failed stageOne may have left (so it is removed too). */
async function stepTemps(change: OutputChange, tag: string): Promise<Step[]> {
  const dir = dirname(change.path);
  const name = basename(change.path);
  if (change.op === "write")
    return [{ op: "write", path: change.path, temp: join(dir, `.${name}.${tag}.tmp`) }];
  if (change.op === "tree")
    return [{ op: "tree", path: change.path, temp: join(dir, `.${name}.tmp-${tag}`), old: "" }];
  return [];
}

async function discard(steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if (step.op !== "remove") await rm(step.temp, { recursive: true, force: true }).catch(() => undefined);
  }
}

export interface CommitOptions {
  /** The directory holding the commit journal (the project root). */
  anchor: string;
}

/** Writes the output set to disk (see the file comment for the stages). */
export async function commitOutputSet(
  changes: readonly OutputChange[],
  options: CommitOptions,
): Promise<void> {
  // Recovery and the sweep are safe only while no other tsop writes here (lock.ts).
  await withProjectLock(options.anchor, () => commitLocked(changes, options)).catch((error: unknown) => {
    throw writeError(options.anchor, error);
  });
}

async function commitLocked(changes: readonly OutputChange[], options: CommitOptions): Promise<void> {
  await recoverOutputSets(options.anchor);
  await sweepStaleTemps([options.anchor, ...changes.map((c) => dirname(c.path))]);
  if (changes.length === 0) return;
  await preflight(changes, options.anchor);
  const tag = randomBytes(6).toString("hex");
  const steps = await stage(changes, tag);
  const journal = join(options.anchor, `.tsop-commit-${tag}.json`);
  try {
    await writeFileAtomic(journal, `${JSON.stringify({ tsopCommit: 1, steps } satisfies Journal)}\n`);
  } catch (error) {
    await discard(steps);
    throw writeError(journal, error);
  }
  for (const step of steps) {
    try {
      await applyStep(step, false);
    } catch (error) {
      throw new TsopError(`writing the output stopped at ${step.path}: ${(error as Error).message}`, {
        hint: `run the command again: it completes the interrupted write (journal ${journal})`,
        cause: error,
      });
    }
  }
  await rm(journal, { force: true });
  await dropOld(steps);
}
