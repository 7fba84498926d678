// The generate cache on disk: one JSON file per key under <project>/node_modules/.cache/tsop/
// generate (inside the project, where npm tools keep caches and .gitignore already reaches). An
// entry holds its full key, the facts the analysis read (inputs.ts) and what it produced. Entries
// are written by rename, so a reader sees a whole entry or none; anything unreadable or of another
// shape counts as absent and is written again. Old entries (other options, older tsop) are pruned.
// All file access is synchronous: generate only waits for it, and each asynchronous call is a
// thread-pool round trip.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SchemaRecord } from "../crd/schema-reuse.js";
import type { Diagnostic } from "../diagnostics.js";
import type { RenderedFile } from "../output/write.js";
import type { Facts } from "./inputs.js";

/** A message the analysis printed besides diagnostics, replayed on a cache hit. */
export interface Note {
  level: "info" | "warn" | "debug";
  message: string;
}

/** Everything generate needs from an analysis: the files to write and what to tell the user. */
export interface AnalysisOutput {
  files: RenderedFile[];
  diagnostics: Diagnostic[];
  notes: Note[];
  /** Each version's schema, for the next analysis to reuse what an edit did not reach. */
  schemas: SchemaRecord[];
}

interface Entry {
  format: typeof FORMAT;
  key: string;
  facts: Facts;
  output: AnalysisOutput;
}

const FORMAT = 2;
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

export function cacheDir(root: string): string {
  return join(root, "node_modules", ".cache", "tsop", "generate");
}

/** Creates the cache directory; a failure (read-only node_modules…) only means no entry is stored. */
export function makeCacheDir(root: string): void {
  try {
    mkdirSync(cacheDir(root), { recursive: true });
  } catch {
    // Only a cache: without the directory, no entry is stored.
  }
}

/** V8's code cache of the TypeScript compiler (code-cache.ts), per Node version and platform. */
export function codeCachePath(root: string): string {
  return join(
    cacheDir(root),
    "..",
    `typescript-code-${process.version}-${process.platform}-${process.arch}.bin`,
  );
}

export function entryPath(root: string, key: string): string {
  return join(cacheDir(root), `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.json`);
}

/** The entry at `path` if it is whole and made for `key`; otherwise why not. */
export function readEntry(
  path: string,
  key: string,
): { facts: Facts; output: AnalysisOutput } | { miss: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { miss: "no entry" };
  }
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return { miss: "damaged entry (not JSON)" };
  }
  if (!isEntry(entry)) return { miss: "damaged entry (unexpected shape)" };
  if (entry.key !== key) return { miss: "entry of another key" };
  return { facts: entry.facts, output: entry.output };
}

export function writeEntry(path: string, key: string, facts: Facts, output: AnalysisOutput): void {
  const entry: Entry = { format: FORMAT, key, facts, output };
  const dir = join(path, "..");
  mkdirSync(dir, { recursive: true });
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(entry));
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
  pruneOld(dir);
}

/** Removes entries not rewritten for MAX_AGE_MS (and temp files left by a killed run). */
function pruneOld(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info && now - info.mtimeMs > MAX_AGE_MS) rmSync(path, { force: true });
  }
}

function isEntry(value: unknown): value is Entry {
  const e = value as Partial<Entry> | null;
  if (typeof e !== "object" || e === null || e.format !== FORMAT || typeof e.key !== "string") return false;
  if (typeof e.facts !== "object" || e.facts === null) return false;
  if (!Object.values(e.facts).every((v) => v === null || typeof v === "string")) return false;
  const o = e.output;
  return (
    typeof o === "object" &&
    o !== null &&
    Array.isArray(o.files) &&
    o.files.every(
      (f) =>
        typeof f?.path === "string" &&
        typeof f.content === "string" &&
        (f.digest === undefined || typeof f.digest === "string"),
    ) &&
    Array.isArray(o.diagnostics) &&
    o.diagnostics.every(isDiagnostic) &&
    Array.isArray(o.notes) &&
    o.notes.every((n) => ["info", "warn", "debug"].includes(n?.level) && typeof n.message === "string") &&
    Array.isArray(o.schemas) &&
    o.schemas.every(
      (r) => typeof r?.version === "string" && typeof r.inputs === "string" && typeof r.schema === "string",
    )
  );
}

function isDiagnostic(d: Diagnostic | undefined): boolean {
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.code === "string" &&
    (d.severity === "error" || d.severity === "warning") &&
    typeof d.file === "string" &&
    typeof d.line === "number" &&
    typeof d.column === "number" &&
    typeof d.message === "string" &&
    (d.hint === undefined || typeof d.hint === "string")
  );
}
