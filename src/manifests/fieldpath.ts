// Field paths as kustomize replacements write them: "spec.template.spec.containers.[name=manager].image",
// "metadata.annotations.[cert-manager.io/inject-ca-from]", "spec.dnsNames.0".
import { isRecord } from "./object.js";

export type Segment = { key: string } | { index: number } | { match: [string, string] };

export function parseFieldPath(path: string): Segment[] {
  const text = path.startsWith(".") ? path.slice(1) : path;
  const parts: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of text) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if (ch === "." && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts.map((part) => {
    if (part.startsWith("[") && part.endsWith("]")) {
      const inner = part.slice(1, -1);
      const eq = inner.indexOf("=");
      return eq > 0 ? { match: [inner.slice(0, eq), inner.slice(eq + 1)] } : { key: inner };
    }
    return /^\d+$/.test(part) ? { index: Number(part) } : { key: part };
  });
}

export function getField(object: unknown, segments: readonly Segment[]): unknown {
  let current = object;
  for (const seg of segments) {
    if ("key" in seg) current = isRecord(current) ? current[seg.key] : undefined;
    else if ("index" in seg) current = Array.isArray(current) ? current[seg.index] : undefined;
    else
      current = Array.isArray(current)
        ? current.find((e) => isRecord(e) && String(e[seg.match[0]]) === seg.match[1])
        : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** Sets a field; with `create`, missing maps (and list slots) along the way are created. */
export function setField(
  object: unknown,
  segments: readonly Segment[],
  value: unknown,
  create: boolean,
): boolean {
  let current = object;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const last = i === segments.length - 1;
    const next = segments[i + 1];
    const empty = () => (next && "index" in next ? [] : {});
    if ("key" in seg) {
      if (!isRecord(current)) return false;
      if (last) {
        if (!(seg.key in current) && !create) return false;
        current[seg.key] = value;
        return true;
      }
      if (current[seg.key] === undefined || current[seg.key] === null) {
        if (!create) return false;
        current[seg.key] = empty();
      }
      current = current[seg.key];
    } else if ("index" in seg) {
      if (!Array.isArray(current)) return false;
      if (last) {
        if (seg.index > current.length || (seg.index === current.length && !create)) return false;
        current[seg.index] = value;
        return true;
      }
      if (current[seg.index] === undefined) {
        if (!create || seg.index > current.length) return false;
        current[seg.index] = empty();
      }
      current = current[seg.index];
    } else {
      if (!Array.isArray(current)) return false;
      const found = current.find((e) => isRecord(e) && String(e[seg.match[0]]) === seg.match[1]);
      if (found === undefined) return false;
      if (last) return false;
      current = found;
    }
  }
  return false;
}
