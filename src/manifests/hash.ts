// kustomize's content hash of generated ConfigMaps and Secrets (api/hasher), so tsop's names equal
// kustomize's: SHA-256 of Go's json.Marshal of {kind, name, data[, binaryData]} (Secrets: {kind,
// type, name, data[, stringData]}), keys sorted, HTML characters escaped as Go does; the first ten
// hex digits, with 0 1 3 a e turned into g h k m t so the suffix never looks like a number.
// kustomize looks the name up with the path "metadata/name" as one field name, which finds
// nothing, so the name it hashes is always "" (checked against kustomize v5.7.1's output).
import { createHash } from "node:crypto";
import { isRecord, kindOf } from "./object.js";

/** JSON as Go's encoding/json writes it: sorted map keys, <, >, &, U+2028 and U+2029 escaped. */
function goJson(value: unknown): string {
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${goJson(k)}:${goJson(value[k])}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function field(object: Record<string, unknown>, key: string): unknown {
  const value = object[key];
  if (value === undefined || value === null) return "";
  return isRecord(value)
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]))
    : String(value);
}

function encoded(object: Record<string, unknown>): string {
  if (kindOf(object) === "Secret") {
    const m: Record<string, unknown> = {
      kind: "Secret",
      type: field(object, "type"),
      name: "",
      data: field(object, "data"),
    };
    if (isRecord(object.stringData)) m.stringData = field(object, "stringData");
    return goJson(m);
  }
  const m: Record<string, unknown> = { kind: "ConfigMap", name: "", data: field(object, "data") };
  if (isRecord(object.binaryData)) m.binaryData = field(object, "binaryData");
  return goJson(m);
}

const LETTERS: Record<string, string> = { "0": "g", "1": "h", "3": "k", a: "m", e: "t" };

/** The 10-character suffix kustomize appends ("<name>-<hash>"). */
export function contentHash(object: Record<string, unknown>): string {
  const hex = createHash("sha256").update(encoded(object)).digest("hex");
  return [...hex.slice(0, 10)].map((c) => LETTERS[c] ?? c).join("");
}
