// Patch formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch for
// built-in kinds (lists merged by their patchMergeKey from manifests/merge-keys.ts, $patch directives).
import { isSetList, mergeKeyFor } from "../../manifests/merge-keys.js";
import { ApiError, badRequest } from "./status.js";
import type { KObj } from "./types.js";

function isObject(v: unknown): v is KObj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: KObj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw badRequest(`JSON pointer must start with '/': ${path}`);
  return path.slice(1).split("/").map(unescapePointer);
}

function patchFailure(message: string): ApiError {
  return new ApiError(422, message, "Invalid");
}

function resolveParent(
  doc: unknown,
  tokens: string[],
  op: string,
  path: string,
): { parent: KObj | unknown[]; key: string } {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined)
      throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) {
    throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function getAt(doc: unknown, path: string, op: string): unknown {
  let cur: unknown = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = Object.hasOwn(cur, t) ? cur[t] : undefined;
    else cur = undefined;
    if (cur === undefined)
      throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function removeAt(doc: unknown, path: string, op: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw patchFailure(`${op} operation does not apply: cannot remove the root`);
  const { parent, key } = resolveParent(doc, tokens, op, path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) {
      throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
    }
    return parent.splice(i, 1)[0];
  }
  if (!Object.hasOwn(parent, key)) {
    throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  const v = (parent as KObj)[key];
  delete (parent as KObj)[key];
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const op = replace ? "replace" : "add";
  const { parent, key } = resolveParent(doc, tokens, op, path);
  if (Array.isArray(parent)) {
    const i = key === "-" ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (replace && i >= parent.length)) {
      throw patchFailure(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
    }
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else {
    if (replace && !Object.hasOwn(parent, key)) {
      throw patchFailure(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    }
    (parent as KObj)[key] = value;
  }
  return doc;
}

export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  let out = structuredClone(doc);
  for (const raw of ops) {
    if (!isObject(raw)) throw badRequest("invalid JSON patch operation");
    const op = String(raw.op);
    const path = String(raw.path ?? "");
    switch (op) {
      case "add":
        out = addAt(out, path, structuredClone(raw.value), false);
        break;
      case "replace":
        out = addAt(out, path, structuredClone(raw.value), true);
        break;
      case "remove":
        removeAt(out, path, "remove");
        break;
      case "move": {
        const v = removeAt(out, String(raw.from), "move");
        out = addAt(out, path, v, false);
        break;
      }
      case "copy": {
        const v = structuredClone(getAt(out, String(raw.from), "copy"));
        out = addAt(out, path, v, false);
        break;
      }
      case "test": {
        const v = getAt(out, path, "test");
        if (JSON.stringify(canonical(v)) !== JSON.stringify(canonical(raw.value))) {
          throw patchFailure(`testing value ${path} failed: test failed`);
        }
        break;
      }
      default:
        throw badRequest(`Unexpected kind: ${op}`);
    }
  }
  return out;
}

/** JSON with sorted keys, for equality checks. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v)) {
    const out: KObj = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Strategic merge of `patch` into `target`; `kind` (default: the target's) picks the list keys. */
export function strategicMergePatch(
  target: unknown,
  patch: unknown,
  parent = "",
  kind: string | undefined = isObject(target) && typeof target.kind === "string" ? target.kind : undefined,
): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === "replace") {
    const { $patch: _p, ...rest } = patch;
    return structuredClone(rest);
  }
  if (patch.$patch === "delete") return undefined;
  const out: KObj = isObject(target) ? { ...target } : {};
  const orders: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$patch" || k === "$retainKeys") continue;
    if (k.startsWith("$setElementOrder/")) {
      orders[k.slice("$setElementOrder/".length)] = v as unknown[];
      continue;
    }
    if (k.startsWith("$deleteFromPrimitiveList/")) {
      const field = k.slice("$deleteFromPrimitiveList/".length);
      const drop = new Set((v as unknown[]).map((x) => JSON.stringify(x)));
      if (Array.isArray(out[field]))
        out[field] = (out[field] as unknown[]).filter((x) => !drop.has(JSON.stringify(x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) {
      const key = mergeKeyFor(kind, parent, k);
      if (key) out[k] = mergeList(out[k], v, key, k, kind);
      else if (isSetList(parent, k)) {
        const cur = Array.isArray(out[k]) ? [...(out[k] as unknown[])] : [];
        for (const item of v) if (!cur.some((c) => deepEqual(c, item))) cur.push(item);
        out[k] = cur;
      } else out[k] = structuredClone(v);
      continue;
    }
    const merged = strategicMergePatch(out[k], v, k, kind);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  if (Object.keys(orders).length > 0) {
    for (const [field, order] of Object.entries(orders)) {
      const key = mergeKeyFor(kind, parent, field);
      const list = out[field];
      if (!key || !Array.isArray(list)) continue;
      const rank = (item: unknown) => {
        const i = order.findIndex((o) => isObject(o) && isObject(item) && o[key] === item[key]);
        return i < 0 ? order.length : i;
      };
      out[field] = [...list].sort((a, b) => rank(a) - rank(b));
    }
  }
  return out;
}

function mergeList(
  target: unknown,
  patch: unknown[],
  key: string,
  field: string,
  kind: string | undefined,
): unknown[] {
  if (patch.some((p) => isObject(p) && p.$patch === "replace")) {
    return patch.filter((p) => !(isObject(p) && p.$patch === "replace")).map((p) => structuredClone(p));
  }
  const out = Array.isArray(target) ? [...target] : [];
  for (const item of patch) {
    if (!isObject(item)) {
      out.push(structuredClone(item));
      continue;
    }
    const idx = out.findIndex((o) => isObject(o) && o[key] === item[key]);
    if (item.$patch === "delete") {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMergePatch(out[idx], item, field, kind);
    else out.push(strategicMergePatch(undefined, item, field, kind));
  }
  return out;
}
