// RFC 6902 JSON patch (add, remove, replace, move, copy, test), as kustomize applies it to one
// object. Errors name the operation and path so a broken patch file is easy to find.
import { InvalidInputError } from "../common/errors.js";
import { clone, isRecord } from "./object.js";

export interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`path "${path}" must start with "/"`);
  return path
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: unknown; key: string } {
  let current = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isRecord(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw new Error(`path "${path}" does not exist`);
  }
  return { parent: current, key: tokens[tokens.length - 1] ?? "" };
}

function get(doc: unknown, path: string): unknown {
  let current = doc;
  for (const token of pointer(path)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isRecord(current)) current = current[token];
    else return undefined;
  }
  return current;
}

function arrayIndex(key: string, length: number, allowEnd: boolean, path: string): number {
  if (key === "-" && allowEnd) return length;
  if (!/^\d+$/.test(key)) throw new Error(`"${key}" in "${path}" is not an array index`);
  const index = Number(key);
  if (index > length || (!allowEnd && index === length))
    throw new Error(`index ${index} in "${path}" is out of range`);
  return index;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, true, path), 0, value);
  else if (isRecord(parent)) parent[key] = value;
  else throw new Error(`path "${path}" does not exist`);
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false, path), 1);
  else if (isRecord(parent) && key in parent) delete parent[key];
  else throw new Error(`path "${path}" does not exist`);
  return doc;
}

/** Applies the operations in order to a copy of `target`. */
export function applyJsonPatch(
  target: Record<string, unknown>,
  ops: unknown,
  source: string,
): Record<string, unknown> {
  if (!Array.isArray(ops))
    throw new InvalidInputError(`${source}: a JSON patch must be a list of operations`);
  let doc: unknown = clone(target);
  ops.forEach((raw, index) => {
    const op = raw as JsonPatchOp;
    try {
      if (!isRecord(raw) || typeof op.op !== "string" || typeof op.path !== "string") {
        throw new Error("each operation needs op and path");
      }
      switch (op.op) {
        case "add":
          doc = add(doc, op.path, clone(op.value));
          break;
        case "remove":
          doc = remove(doc, op.path);
          break;
        case "replace":
          doc = remove(doc, op.path);
          doc = add(doc, op.path, clone(op.value));
          break;
        case "move": {
          const value = get(doc, op.from ?? "");
          if (value === undefined) throw new Error(`from "${op.from}" does not exist`);
          doc = remove(doc, op.from ?? "");
          doc = add(doc, op.path, value);
          break;
        }
        case "copy": {
          const value = get(doc, op.from ?? "");
          if (value === undefined) throw new Error(`from "${op.from}" does not exist`);
          doc = add(doc, op.path, clone(value));
          break;
        }
        case "test":
          if (JSON.stringify(get(doc, op.path)) !== JSON.stringify(op.value))
            throw new Error(`test failed at "${op.path}"`);
          break;
        default:
          throw new Error(`unknown op "${op.op}"`);
      }
    } catch (error) {
      throw new InvalidInputError(
        `patch operation ${index + 1} (${op.op} ${op.path}): ${(error as Error).message}`,
        {
          location: { file: source },
          hint: "fix the patch, or the resource it targets",
        },
      );
    }
  });
  if (!isRecord(doc))
    throw new InvalidInputError(`${source}: the patch replaced the whole object with a non-object`);
  return doc;
}
