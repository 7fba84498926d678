// RFC 6902 JSON patch that turns one JSON value into another: objects are compared key by key,
// arrays element by element when only their tails differ in length, otherwise replaced whole
// (what the API server applies is the same either way). Keys are visited in sorted order so the
// same change always gives the same patch.

export type JsonPatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const other = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === other.length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

function diffArrays(from: unknown[], to: unknown[], path: string, out: JsonPatchOperation[]): void {
  const common = Math.min(from.length, to.length);
  // Element-wise only when the shared prefix differs in at most its values; else replace the array.
  for (let i = 0; i < common; i++) diff(from[i], to[i], `${path}/${i}`, out);
  for (let i = common; i < to.length; i++) out.push({ op: "add", path: `${path}/-`, value: to[i] });
  for (let i = from.length - 1; i >= common; i--) out.push({ op: "remove", path: `${path}/${i}` });
}

function diff(from: unknown, to: unknown, path: string, out: JsonPatchOperation[]): void {
  if (jsonEqual(from, to)) return;
  if (isPlainObject(from) && isPlainObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    for (const key of keys) {
      const child = `${path}/${escape(key)}`;
      const before = from[key];
      const after = to[key];
      if (after === undefined) {
        if (before !== undefined) out.push({ op: "remove", path: child });
      } else if (before === undefined) out.push({ op: "add", path: child, value: after });
      else diff(before, after, child, out);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    diffArrays(from, to, path, out);
    return;
  }
  out.push({ op: "replace", path, value: to });
}

/** The operations that turn `from` into `to` (both JSON values; undefined members count as absent). */
export function createJsonPatch(from: unknown, to: unknown): JsonPatchOperation[] {
  const out: JsonPatchOperation[] = [];
  diff(from, to, "", out);
  return out;
}
