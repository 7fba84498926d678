// Marker parsing: how the text after a marker (`@maximum 10`, `@validation rule="…"`) becomes its
// value. A parser returns the value or a ParseFailure saying why the text is not one; the marker
// table (markers.ts) names a parser for each marker.
import { msg } from "./messages.js";
import type { ValidationRule } from "./schema-types.js";

export class ParseFailure {
  constructor(readonly reason: string) {}
}

/** Strings may be bare or a JSON string (for spaces, a leading @, or `*` `/`). */
export function parseString(text: string): string | ParseFailure {
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      return typeof v === "string" ? v : new ParseFailure(`expected a string, got ${t}`);
    } catch {
      return new ParseFailure(`invalid JSON string ${t}`);
    }
  }
  return t === "" ? new ParseFailure("a value is required") : t;
}

export function parseNumber(text: string): number | ParseFailure {
  const t = text.trim();
  const n = t === "" ? Number.NaN : Number(t);
  return Number.isFinite(n) ? n : new ParseFailure(`expected a number, got '${t}'`);
}

export function parseCount(text: string): number | ParseFailure {
  const n = parseNumber(text);
  if (n instanceof ParseFailure) return n;
  return Number.isInteger(n) && n >= 0 ? n : new ParseFailure(`expected a non-negative integer, got ${n}`);
}

export function parseFlag(text: string): boolean | ParseFailure {
  const t = text.trim();
  if (t === "" || t === "true") return true;
  if (t === "false") return false;
  return new ParseFailure(`expected nothing, true or false, got '${t}'`);
}

/** JSON, or a bare string when it is not JSON (`@default Allow`). */
export function parseJsonOrString(text: string): unknown | ParseFailure {
  const t = text.trim();
  if (t === "") return new ParseFailure("a value is required");
  try {
    return JSON.parse(t) as unknown;
  } catch {
    if (/^[[{"]/.test(t)) return new ParseFailure(`invalid JSON: ${t}`);
    return t;
  }
}

export function parseList(text: string): string[] | ParseFailure {
  const items = text
    .split(/[;,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : new ParseFailure("expected a list such as a;b");
}

export function parseChoice<T extends string>(choices: readonly T[]) {
  return (text: string): T | ParseFailure => {
    const t = text.trim() as T;
    return choices.includes(t)
      ? t
      : new ParseFailure(`must be one of ${choices.map((c) => `"${c}"`).join(", ")}, got '${text.trim()}'`);
  };
}

/** `key=value` pairs; values bare, or double-quoted JSON strings. */
export function parseKeyValues(text: string): Record<string, string> | ParseFailure {
  const out: Record<string, string> = {};
  const re = /\s*([A-Za-z]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']+)/y;
  let rest = text.trim();
  while (rest.length > 0) {
    re.lastIndex = 0;
    const m = re.exec(rest);
    if (!m?.[1] || m[2] === undefined) return new ParseFailure(`cannot parse '${rest}' as key=value`);
    let value = m[2];
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        return new ParseFailure(`invalid quoted value ${value}`);
      }
    } else if (value.startsWith("'")) value = value.slice(1, -1);
    out[m[1]] = value;
    rest = rest.slice(m[0].length).trim();
  }
  return out;
}

const REASONS = ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];

export function parseValidation(text: string): ValidationRule | ParseFailure {
  const kv = parseKeyValues(text);
  if (kv instanceof ParseFailure) return kv;
  const known = ["rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf"];
  const unknown = Object.keys(kv).filter((k) => !known.includes(k));
  if (unknown.length)
    return new ParseFailure(`unknown key ${unknown.join(", ")} (known: ${known.join(", ")})`);
  if (!kv.rule) return new ParseFailure("rule= is required");
  const rule: ValidationRule = { rule: kv.rule };
  if (kv.message !== undefined) rule.message = kv.message;
  if (kv.messageExpression !== undefined) rule.messageExpression = kv.messageExpression;
  if (kv.reason !== undefined) {
    if (!REASONS.includes(kv.reason)) return new ParseFailure(msg.celReason(kv.reason));
    rule.reason = kv.reason;
  }
  if (kv.fieldPath !== undefined) rule.fieldPath = kv.fieldPath;
  if (kv.optionalOldSelf !== undefined) {
    if (kv.optionalOldSelf !== "true" && kv.optionalOldSelf !== "false")
      return new ParseFailure("optionalOldSelf is true or false");
    rule.optionalOldSelf = kv.optionalOldSelf === "true";
  }
  return rule;
}
