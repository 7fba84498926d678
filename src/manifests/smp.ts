// A strategic merge patch close to kubectl's for the shapes config/ trees use: maps merge,
// `null` deletes, `$patch: delete|replace`, and lists of named things merge by their merge key
// (the one table in merge-keys.ts, by kind and field).
import { isSetList, mergeKeyFor } from "./merge-keys.js";
import { clone, isRecord } from "./object.js";

interface Scope {
  kind: string | undefined;
  parent: string;
}

function mergeList(field: string, base: unknown[], patch: unknown[], scope: Scope): unknown[] {
  if (isSetList(scope.parent, field)) {
    const out = clone(base);
    for (const item of patch)
      if (!out.some((x) => JSON.stringify(x) === JSON.stringify(item))) out.push(item);
    return out;
  }
  const key = mergeKeyFor(scope.kind, scope.parent, field);
  if (!key || !patch.every(isRecord) || !base.every(isRecord)) return clone(patch);
  // As kustomize merges: the patch's items first, in the patch's order (each merged into its
  // namesake), then the items only the base has, in the base's order.
  const itemScope: Scope = { kind: scope.kind, parent: field };
  const items = base as Record<string, unknown>[];
  const out: Record<string, unknown>[] = [];
  for (const item of patch as Record<string, unknown>[]) {
    if (item.$patch === "delete") continue;
    const existing = items.find((x) => x[key] === item[key]);
    out.push(existing ? mergeInto(existing, item, itemScope) : stripDirectives(clone(item)));
  }
  const named = new Set((patch as Record<string, unknown>[]).map((item) => item[key]));
  for (const item of items) if (!named.has(item[key])) out.push(clone(item));
  return out;
}

function stripDirectives(value: Record<string, unknown>): Record<string, unknown> {
  delete value.$patch;
  return value;
}

function mergeInto(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
  scope: Scope,
): Record<string, unknown> {
  if (patch.$patch === "replace") return stripDirectives(clone(patch));
  const out = clone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch") continue;
    const child: Scope = { kind: scope.kind, parent: key };
    if (value === null) delete out[key];
    else if (isRecord(value) && value.$patch === "delete") delete out[key];
    else if (isRecord(value) && isRecord(out[key]))
      out[key] = mergeInto(out[key] as Record<string, unknown>, value, child);
    else if (Array.isArray(value) && Array.isArray(out[key]))
      out[key] = mergeList(key, out[key] as unknown[], value, scope);
    else out[key] = clone(value);
  }
  return out;
}

/** Applies a strategic merge patch to a whole object (its kind picks the list merge keys). */
export function mergeMap(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const kind = typeof base.kind === "string" ? base.kind : undefined;
  return mergeInto(base, patch, { kind, parent: "" });
}
