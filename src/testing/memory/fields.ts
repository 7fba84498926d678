// Simplified field management: ownership of leaf paths recorded in metadata.managedFields as
// FieldsV1 ("f:" fields, "k:" elements of associative lists, "v:" members of set lists; other
// lists are atomic), server-side apply merge, conflicts, force, and removal of fields a manager
// stops applying.
import { isSetList, mergeKeyFor } from "../../manifests/merge-keys.js";
import { ApiError } from "./status.js";
import type { KObj } from "./types.js";

/** A path in FieldsV1 token form, e.g. ["f:spec", "f:containers", 'k:{"name":"c"}', "f:image"]. */
type Path = string[];

/** How a list at a field path merges: by key fields, as a set, or atomically (undefined). */
export type ListKeys = (fieldPath: string[]) => string[] | "set" | undefined;

function isObject(v: unknown): v is KObj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Built-in kinds: the patchMergeKey table shared with strategic merge patch. */
export function builtinListKeys(kind: string): ListKeys {
  return (names) => {
    const field = names[names.length - 1] ?? "";
    const parent = [...names.slice(0, -1)].reverse().find((n) => n !== "*") ?? "";
    if (isSetList(parent, field)) return "set";
    const key = mergeKeyFor(kind, parent, field);
    return key ? [key] : undefined;
  };
}

/** Custom resources: x-kubernetes-list-type map/set in the version's schema. */
export function schemaListKeys(schema: KObj | undefined): ListKeys {
  return (names) => {
    if (names.length === 2 && names[0] === "metadata" && names[1] === "finalizers") return "set";
    let node: KObj | undefined = schema;
    for (const n of names) {
      if (!node) return undefined;
      node =
        n === "*"
          ? node.items
          : (node.properties?.[n] ??
            (isObject(node.additionalProperties) ? node.additionalProperties : undefined));
    }
    if (!node) return undefined;
    if (node["x-kubernetes-list-type"] === "map" && Array.isArray(node["x-kubernetes-list-map-keys"]))
      return node["x-kubernetes-list-map-keys"];
    if (node["x-kubernetes-list-type"] === "set") return "set";
    return undefined;
  };
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

function keyOf(item: KObj, keys: string[]): string {
  const picked: KObj = {};
  for (const k of keys) picked[k] = item[k];
  return `k:${JSON.stringify(picked)}`;
}

/** Leaf paths of an object (apiVersion/kind and server-owned metadata excluded). */
export function leafPaths(obj: KObj, listKeys: ListKeys): Path[] {
  const out: Path[] = [];
  const walk = (v: unknown, path: Path, names: string[]) => {
    if (isObject(v) && Object.keys(v).length > 0) {
      for (const [k, child] of Object.entries(v)) {
        if (path.length === 0 && (k === "apiVersion" || k === "kind")) continue;
        if (path.length === 1 && path[0] === "f:metadata" && untrackedMeta.has(k)) continue;
        walk(child, [...path, `f:${k}`], [...names, k]);
      }
      return;
    }
    if (Array.isArray(v) && v.length > 0) {
      const keys = listKeys(names);
      if (keys === "set" && v.every((x) => !isObject(x) && !Array.isArray(x))) {
        for (const item of v) out.push([...path, `v:${JSON.stringify(item)}`]);
        return;
      }
      if (Array.isArray(keys) && v.every((x) => isObject(x))) {
        for (const item of v as KObj[]) walk(item, [...path, keyOf(item, keys)], [...names, "*"]);
        return;
      }
    }
    if (path.length > 0) out.push(path);
  };
  walk(obj, [], []);
  return out;
}

function step(cur: unknown, seg: string): unknown {
  if (seg.startsWith("f:")) return isObject(cur) ? cur[seg.slice(2)] : undefined;
  if (!Array.isArray(cur)) return undefined;
  if (seg.startsWith("k:")) {
    const want = JSON.parse(seg.slice(2)) as KObj;
    return cur.find(
      (x) =>
        isObject(x) && Object.entries(want).every(([k, v]) => JSON.stringify(x[k]) === JSON.stringify(v)),
    );
  }
  if (seg.startsWith("v:")) {
    const want = seg.slice(2);
    return cur.find((x) => JSON.stringify(x) === want);
  }
  return undefined;
}

export function valueAt(obj: unknown, path: Path): unknown {
  let cur = obj;
  for (const seg of path) {
    cur = step(cur, seg);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Removes the value at path; removing a key field of a list element removes the element. */
function deleteAt(obj: KObj, path: Path): void {
  const last = path[path.length - 1]!;
  let parentPath = path.slice(0, -1);
  let target = last;
  const elementSeg = parentPath[parentPath.length - 1];
  if (
    elementSeg?.startsWith("k:") &&
    last.startsWith("f:") &&
    last.slice(2) in JSON.parse(elementSeg.slice(2))
  ) {
    target = elementSeg;
    parentPath = parentPath.slice(0, -1);
  }
  const parent = valueAt(obj, parentPath);
  if (target.startsWith("f:")) {
    if (isObject(parent)) delete parent[target.slice(2)];
  } else if (Array.isArray(parent)) {
    const item = step(parent, target);
    const i = parent.indexOf(item);
    if (i >= 0) parent.splice(i, 1);
  }
}

export function pathString(p: Path): string {
  return p
    .map((seg) => {
      if (seg.startsWith("f:")) return `.${seg.slice(2)}`;
      if (seg.startsWith("k:")) {
        const k = JSON.parse(seg.slice(2)) as KObj;
        return `[${Object.entries(k)
          .map(([a, b]) => `${a}=${JSON.stringify(b)}`)
          .join(",")}]`;
      }
      return `[=${seg.slice(2)}]`;
    })
    .join("");
}

export function toFieldsV1(paths: Path[]): KObj {
  const root: KObj = {};
  for (const p of paths) {
    let cur = root;
    p.forEach((seg, i) => {
      cur[seg] ??= {};
      cur = cur[seg];
      if (seg.startsWith("k:") && i < p.length - 1) cur["."] ??= {};
    });
  }
  return root;
}

export function fromFieldsV1(fields: KObj | undefined): Path[] {
  const out: Path[] = [];
  const walk = (node: KObj, path: Path) => {
    const children = Object.keys(node).filter((k) => k !== ".");
    if (children.length === 0 && path.length > 0) out.push(path);
    for (const k of children) walk(node[k] ?? {}, [...path, k]);
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
  listKeys: ListKeys;
}

const key = (p: Path) => JSON.stringify(p);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** After an update/patch: the manager takes ownership of every changed or added leaf. */
export function recordUpdate(old: KObj | undefined, next: KObj, ctx: ManagerContext): KObj[] {
  const oldKeys = new Set(old ? leafPaths(old, ctx.listKeys).map(key) : []);
  const nextPaths = leafPaths(next, ctx.listKeys);
  const nextKeys = new Set(nextPaths.map(key));
  const changed = nextPaths.filter((p) => !oldKeys.has(key(p)) || !same(valueAt(old, p), valueAt(next, p)));
  const changedKeys = new Set(changed.map(key));
  let entries = readManaged(old).map((e) => ({
    ...e,
    paths: e.paths.filter((p) => nextKeys.has(key(p)) && !changedKeys.has(key(p))),
  }));
  if (changed.length > 0) {
    const mine = readManaged(old).find((e) => sameEntry(e, ctx.manager, "Update", ctx.subresource));
    const kept = (mine?.paths ?? []).filter((p) => nextKeys.has(key(p)) && !changedKeys.has(key(p)));
    const entry: ManagedEntry = {
      manager: ctx.manager,
      operation: "Update",
      apiVersion: ctx.apiVersion,
      time: ctx.time,
      paths: [...kept, ...changed],
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

/** Apply merge: maps merge, associative lists merge by key, set lists union, other lists replace. */
function mergeApplied(live: unknown, config: unknown, names: string[], listKeys: ListKeys): unknown {
  if (Array.isArray(config) && Array.isArray(live)) {
    const keys = listKeys(names);
    if (keys === "set") {
      const out = [...live];
      for (const item of config) if (!out.some((x) => same(x, item))) out.push(structuredClone(item));
      return out;
    }
    if (Array.isArray(keys) && config.every(isObject) && live.every(isObject)) {
      const out = [...live] as KObj[];
      for (const item of config as KObj[]) {
        const i = out.findIndex((x) => keyOf(x, keys) === keyOf(item, keys));
        if (i >= 0) out[i] = mergeApplied(out[i], item, [...names, "*"], listKeys) as KObj;
        else out.push(structuredClone(item));
      }
      return out;
    }
  }
  if (!isObject(config) || !isObject(live)) return structuredClone(config);
  const out: KObj = { ...live };
  for (const [k, v] of Object.entries(config)) out[k] = mergeApplied(live[k], v, [...names, k], listKeys);
  return out;
}

/**
 * Server-side apply of `config` by `ctx.manager` onto `live` (undefined = create).
 * Throws 409 Conflict listing fields another manager owns with a different value, unless forced.
 */
export function applyConfig(live: KObj | undefined, config: KObj, ctx: ManagerContext, force: boolean): KObj {
  const configPaths = leafPaths(config, ctx.listKeys);
  const configKeys = new Set(configPaths.map(key));
  // An empty map applied before (`data: {}`) is a leaf then, and a parent of what is applied now.
  const stillApplied = new Set(configPaths.flatMap((p) => p.map((_, i) => key(p.slice(0, i + 1)))));
  let entries = readManaged(live);
  const conflicts: Array<{ entry: ManagedEntry; path: Path }> = [];
  if (live) {
    for (const entry of entries) {
      if (sameEntry(entry, ctx.manager, "Apply", ctx.subresource)) continue;
      for (const p of entry.paths) {
        if (!configKeys.has(key(p))) continue;
        if (same(valueAt(live, p), valueAt(config, p))) continue;
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
  const result = mergeApplied(live ?? {}, config, [], ctx.listKeys) as KObj;
  // Fields this manager applied before but no longer applies are removed unless someone else owns them.
  const mine = entries.find((e) => sameEntry(e, ctx.manager, "Apply", ctx.subresource));
  if (mine) {
    const othersOwn = new Set(entries.filter((e) => e !== mine).flatMap((e) => e.paths.map(key)));
    for (const p of mine.paths) {
      if (!stillApplied.has(key(p)) && !othersOwn.has(key(p))) deleteAt(result, p);
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
