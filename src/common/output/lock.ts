// One writer per project at a time. A command that writes a project (bundle, generate, and every
// output-set commit) holds the project lock from the first read of its inputs to the last rename
// of its output, so two runs never read each other's half-swapped output, and the recovery and
// temp sweep of one run never touch another run's write in progress.
//
// The lock is the directory <root>/.tsop-lock; absent means free. Its entries <n>.json are
// generations, and the highest says who holds it: pid, hostname and the process's start time (so
// a reused pid is not mistaken for the holder).
//   - free: a temp directory holding 1.json is renamed into place (fails when one is there);
//   - held by a live process: wait (bounded), then fail naming the holder;
//   - held by a dead one (same host; pid gone, or reused): <n+1>.json is created exclusively
//     (link), then kept only if <n>.json still holds what was judged stale and n+1 is the
//     highest; exactly one run wins each generation, so a stale lock is taken over by one run;
//   - release: the directory is renamed away, then deleted (nothing is left in the project).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, readdir, readFile, rename, rm, writeFile } from "../fs.js";
import { hostname } from "node:os";
import { join } from "node:path";
import { TsopError } from "../errors.js";

export const LOCK_DIR = ".tsop-lock";
const ENTRY = /^(\d+)\.json$/;

export interface LockHolder {
  pid: number;
  hostname: string;
  /** The process's start time (Linux: clock ticks since boot, /proc/<pid>/stat field 22). */
  startTime?: string;
  /** The tsop command, without its flags (they may hold secrets). */
  command: string;
  since: string;
  /** Tells two holders with the same pid apart. */
  nonce: string;
}

export interface LockOptions {
  /** How long to wait for another writer (default: TSOP_LOCK_TIMEOUT seconds, else 60 s). */
  waitMs?: number;
  /** Called once when the lock is held by another process and this run starts to wait. */
  onWait?: (holder: LockHolder) => void;
  env?: NodeJS.ProcessEnv;
}

/** A process's state and start time, as the kernel tells them; undefined where there is no /proc. */
function procStat(pid: number | "self"): { state: string; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

function commandName(): string {
  const args = process.argv.slice(2);
  const firstFlag = args.findIndex((a) => a.startsWith("-"));
  const words = firstFlag === -1 ? args : args.slice(0, firstFlag);
  return ["tsop", ...words.slice(0, 2)].join(" ");
}

function me(): LockHolder {
  const startTime = procStat("self")?.startTime;
  return {
    pid: process.pid,
    hostname: hostname(),
    ...(startTime === undefined ? {} : { startTime }),
    command: commandName(),
    since: new Date().toISOString(),
    nonce: randomBytes(6).toString("hex"),
  };
}

/** Is the holder gone? Only a holder on this host can be judged; one elsewhere counts as alive. */
export function isStale(holder: LockHolder | undefined): boolean {
  if (holder === undefined) return true;
  if (holder.hostname !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
  }
  const now = procStat(holder.pid);
  if (now === undefined) return false;
  // A zombie (killed, not yet reaped) holds nothing; another start time is another process.
  return now.state === "Z" || (holder.startTime !== undefined && now.startTime !== holder.startTime);
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, "utf8")) as LockHolder;
    return typeof parsed.pid === "number" && typeof parsed.nonce === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

type State =
  { kind: "free" } | { kind: "held"; generation: number; holder: LockHolder | undefined; raw: string };

async function readState(lockDir: string): Promise<State> {
  let names: string[];
  try {
    names = await readdir(lockDir);
  } catch {
    return { kind: "free" };
  }
  const generations = names.map((n) => ENTRY.exec(n)?.[1]).filter((g): g is string => g !== undefined);
  if (generations.length === 0) return { kind: "free" };
  const generation = Math.max(...generations.map(Number));
  const file = join(lockDir, `${generation}.json`);
  const raw = await readFile(file, "utf8").catch(() => "");
  return { kind: "held", generation, holder: await readHolder(file), raw };
}

/** Free: build the lock directory beside it and rename it into place (fails if one is there). */
async function tryCreate(root: string, entry: string): Promise<boolean> {
  const temp = join(root, `${LOCK_DIR}.tmp-${randomBytes(6).toString("hex")}`);
  await mkdir(temp);
  try {
    await writeFile(join(temp, "1.json"), entry);
    await rename(temp, join(root, LOCK_DIR));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOENT: a holder's sweep removed this temp (a stale one to it); try again.
    if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR" || code === "ENOENT") return false;
    throw error;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Stale: take generation n+1, keep it only if n is still what was judged and n+1 is the highest. */
async function tryTakeOver(lockDir: string, stale: { generation: number; raw: string }, entry: string) {
  const next = join(lockDir, `${stale.generation + 1}.json`);
  const temp = join(lockDir, `.${stale.generation + 1}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, entry);
    await link(temp, next);
  } catch {
    return false; // another run took this generation, or the lock was released meanwhile
  } finally {
    await rm(temp, { force: true });
  }
  const judged = await readFile(join(lockDir, `${stale.generation}.json`), "utf8").catch(() => undefined);
  const state = await readState(lockDir);
  if (judged === stale.raw && state.kind === "held" && state.generation === stale.generation + 1) return true;
  await rm(next, { force: true });
  return false;
}

function who(holder: LockHolder | undefined): string {
  if (!holder) return "unknown holder";
  const host = holder.hostname === hostname() ? "" : ` on ${holder.hostname}`;
  return `pid ${holder.pid}${host}, \`${holder.command}\` since ${holder.since}`;
}

/** What a run says when it starts to wait for another writer. */
export function waitingMessage(holder: LockHolder): string {
  return `waiting for another tsop writing this project (${who(holder)})`;
}

function heldError(root: string, holder: LockHolder | undefined, waitedMs: number): TsopError {
  return new TsopError(
    `another tsop is writing this project (${who(holder)}); waited ${Math.round(waitedMs / 1000)} s`,
    {
      hint: `run the command again once it has finished; if no tsop is running, remove ${join(root, LOCK_DIR)}`,
    },
  );
}

function waitBudget(options: LockOptions): number {
  if (options.waitMs !== undefined) return options.waitMs;
  const env = (options.env ?? process.env).TSOP_LOCK_TIMEOUT;
  const seconds = env === undefined || env === "" ? NaN : Number(env);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 60_000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** This process's locks (a command that runs another one, as bundle runs generate, locks once). */
const held = new Map<string, { count: number; nonce: string }>();

async function acquire(root: string, options: LockOptions): Promise<string> {
  const self = me();
  const entry = `${JSON.stringify(self)}\n`;
  const lockDir = join(root, LOCK_DIR);
  const budget = waitBudget(options);
  const started = Date.now();
  let told = false;
  for (;;) {
    const state = await readState(lockDir);
    if (state.kind === "free") {
      if (await tryCreate(root, entry)) return self.nonce;
      continue;
    }
    if (isStale(state.holder)) {
      if (await tryTakeOver(lockDir, state, entry)) return self.nonce;
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= budget) throw heldError(root, state.holder, waited);
    if (!told && state.holder) options.onWait?.(state.holder);
    told = true;
    await sleep(50 + Math.random() * 100);
  }
}

async function release(root: string, nonce: string): Promise<void> {
  const lockDir = join(root, LOCK_DIR);
  const state = await readState(lockDir);
  // Never remove a lock that is not ours (it was taken over: this run was judged dead).
  if (state.kind !== "held" || state.holder?.nonce !== nonce) return;
  const away = join(root, `${LOCK_DIR}.old-${randomBytes(6).toString("hex")}`);
  await rename(lockDir, away).catch(() => undefined);
  await rm(away, { recursive: true, force: true });
}

/** Runs fn while holding root's project lock (reentrant within this process). */
export async function withProjectLock<T>(
  root: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const mine = held.get(root);
  if (mine) {
    mine.count++;
    try {
      return await fn();
    } finally {
      mine.count--;
    }
  }
  await mkdir(root, { recursive: true });
  const nonce = await acquire(root, options);
  held.set(root, { count: 1, nonce });
  try {
    return await fn();
  } finally {
    held.delete(root);
    await release(root, nonce);
  }
}
