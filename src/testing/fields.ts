// Simplified field management: ownership of leaf paths (maps are walked, lists are atomic) recorded
// in metadata.managedFields as FieldsV1, server-side apply merge, conflicts and removals.
import { ApiError } from "./status.js";
import type { KObj } from "./types.js";

type Path = string[];

function isObject(v: unknown): v is KObj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Metadata fields the server owns; never tracked. */
const untrackedMeta = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
  "generateName",
]);

/** Leaf paths of an object (apiVersion/kind and server-owned metadata excluded). */
export function leafPaths(obj: KObj): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, path: Path) => {
    if (isObject(v) && Object.keys(v).length > 0) {
      for (const [k, child] of Object.entries(v)) {
        if (path.length === 0 && (k === "apiVersion" || k === "kind")) continue;
        if (path.length === 1 && path[0] === "metadata" && untrackedMeta.has(k)) continue;
        walk(child, [...path, k]);
      }
    } else if (path.length > 0) out.push(path);
  };
  walk(obj, []);
  return out;
}

export function valueAt(obj: unknown, path: Path): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function deleteAt(obj: KObj, path: Path): void {
  const parents: KObj[] = [];
  let cur: unknown = obj;
  for (const p of path.slice(0, -1)) {
    if (!isObject(cur)) return;
    parents.push(cur);
    cur = cur[p];
  }
  if (!isObject(cur)) return;
  delete cur[path[path.length - 1]!];
  // Drop maps the removal left empty, as apply does.
  for (let i = path.length - 2; i >= 0; i--) {
    const parent = parents[i]!;
    const child = parent[path[i]!];
    if (isObject(child) && Object.keys(child).length === 0 && i > 0) delete parent[path[i]!];
    else break;
  }
}

const key = (p: Path) => JSON.stringify(p);

export function pathString(p: Path): string {
  return p.map((s) => `.${s}`).join("");
}

export function toFieldsV1(paths: Path[]): KObj {
  const root: KObj = {};
  for (const p of paths) {
    let cur = root;
    for (const seg of p) {
      const k = `f:${seg}`;
      cur[k] ??= {};
      cur = cur[k];
    }
  }
  return root;
}

export function fromFieldsV1(fields: KObj | undefined): Path[] {
  const out: Path[] = [];
  const walk = (node: KObj, path: Path) => {
    const children = Object.keys(node).filter((k) => k.startsWith("f:"));
    if (children.length === 0 && path.length > 0) out.push(path);
    for (const k of children) walk(node[k] ?? {}, [...path, k.slice(2)]);
  };
  if (fields) walk(fields, []);
  return out;
}

export interface ManagedEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time: string;
  subresource?: string;
  paths: Path[];
}

export function readManaged(obj: KObj | undefined): ManagedEntry[] {
  const list = (obj?.metadata?.managedFields as KObj[] | undefined) ?? [];
  return list
    .filter((e) => typeof e.manager === "string")
    .map((e) => {
      const entry: ManagedEntry = {
        manager: e.manager,
        operation: e.operation === "Apply" ? "Apply" : "Update",
        apiVersion: e.apiVersion ?? "",
        time: e.time ?? "",
        paths: fromFieldsV1(e.fieldsV1),
      };
      if (e.subresource) entry.subresource = e.subresource;
      return entry;
    });
}

export function writeManaged(entries: ManagedEntry[]): KObj[] {
  return entries
    .filter((e) => e.paths.length > 0)
    .map((e) => {
      const out: KObj = {
        manager: e.manager,
        operation: e.operation,
        apiVersion: e.apiVersion,
        time: e.time,
        fieldsType: "FieldsV1",
        fieldsV1: toFieldsV1(e.paths),
      };
      if (e.subresource) out.subresource = e.subresource;
      return out;
    });
}

function sameEntry(e: ManagedEntry, manager: string, op: string, sub: string | undefined): boolean {
  return e.manager === manager && e.operation === op && (e.subresource ?? "") === (sub ?? "");
}

function upsert(entries: ManagedEntry[], entry: ManagedEntry): ManagedEntry[] {
  const rest = entries.filter((e) => !sameEntry(e, entry.manager, entry.operation, entry.subresource));
  return [...rest, entry];
}

export interface ManagerContext {
  manager: string;
  apiVersion: string;
  time: string;
  subresource?: string;
}

/** After an update/patch: the manager takes ownership of every changed or added leaf. */
export function recordUpdate(old: KObj | undefined, next: KObj, ctx: ManagerContext): KObj[] {
  const oldPaths = old ? new Map(leafPaths(old).map((p) => [key(p), p])) : new Map<string, Path>();
  const nextPaths = leafPaths(next);
  const nextKeys = new Set(nextPaths.map(key));
  const changed = nextPaths.filter((p) => {
    if (!oldPaths.has(key(p))) return true;
    return JSON.stringify(valueAt(old, p)) !== JSON.stringify(valueAt(next, p));
  });
  const changedKeys = new Set(changed.map(key));
  let entries = readManaged(old).map((e) => ({
    ...e,
    paths: e.paths.filter((p) => nextKeys.has(key(p)) && !changedKeys.has(key(p))),
  }));
  if (changed.length > 0) {
    const mine = entries.find((e) => sameEntry(e, ctx.manager, "Update", ctx.subresource));
    const paths = [...(mine?.paths ?? []), ...changed];
    const entry: ManagedEntry = {
      manager: ctx.manager,
      operation: "Update",
      apiVersion: ctx.apiVersion,
      time: ctx.time,
      paths,
    };
    if (ctx.subresource) entry.subresource = ctx.subresource;
    entries = upsert(entries, entry);
  }
  return writeManaged(entries);
}

function printManager(e: ManagedEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === "Update")
    s += e.time ? ` using ${e.apiVersion} at ${e.time}` : ` using ${e.apiVersion}`;
  return s;
}

/** Recursive merge used by apply: maps merge, lists and scalars from the applied config win. */
function mergeApplied(live: unknown, config: unknown): unknown {
  if (!isObject(config) || !isObject(live)) return structuredClone(config);
  const out: KObj = { ...live };
  for (const [k, v] of Object.entries(config)) out[k] = mergeApplied(live[k], v);
  return out;
}

/**
 * Server-side apply of `config` by `ctx.manager` onto `live` (undefined = create).
 * Throws 409 Conflict listing fields another manager owns with a different value, unless forced.
 */
export function applyConfig(live: KObj | undefined, config: KObj, ctx: ManagerContext, force: boolean): KObj {
  const configPaths = leafPaths(config);
  const configKeys = new Set(configPaths.map(key));
  let entries = readManaged(live);
  const conflicts: Array<{ entry: ManagedEntry; path: Path }> = [];
  if (live) {
    for (const entry of entries) {
      if (sameEntry(entry, ctx.manager, "Apply", ctx.subresource)) continue;
      for (const p of entry.paths) {
        if (!configKeys.has(key(p))) continue;
        if (JSON.stringify(valueAt(live, p)) === JSON.stringify(valueAt(config, p))) continue;
        conflicts.push({ entry, path: p });
      }
    }
  }
  if (conflicts.length > 0 && !force) throw conflictError(conflicts);
  if (force) {
    const taken = new Set(conflicts.map((c) => key(c.path)));
    entries = entries.map((e) =>
      sameEntry(e, ctx.manager, "Apply", ctx.subresource)
        ? e
        : { ...e, paths: e.paths.filter((p) => !taken.has(key(p))) },
    );
  }
  let result = mergeApplied(live ?? {}, config) as KObj;
  // Fields this manager applied before but no longer applies are removed unless someone else owns them.
  const mine = entries.find((e) => sameEntry(e, ctx.manager, "Apply", ctx.subresource));
  if (mine) {
    const othersOwn = new Set(entries.filter((e) => e !== mine).flatMap((e) => e.paths.map(key)));
    result = structuredClone(result);
    for (const p of mine.paths) {
      if (!configKeys.has(key(p)) && !othersOwn.has(key(p))) deleteAt(result, p);
    }
  }
  const entry: ManagedEntry = {
    manager: ctx.manager,
    operation: "Apply",
    apiVersion: ctx.apiVersion,
    time: ctx.time,
    paths: configPaths,
  };
  if (ctx.subresource) entry.subresource = ctx.subresource;
  entries = upsert(entries, entry);
  result.metadata = { ...(result.metadata ?? {}), managedFields: writeManaged(entries) };
  return result;
}

function conflictError(conflicts: Array<{ entry: ManagedEntry; path: Path }>): ApiError {
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.entry)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.entry)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const m = printManager(c.entry);
      byManager.set(m, [...(byManager.get(m) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return new ApiError(409, message, "Conflict", { causes });
}
