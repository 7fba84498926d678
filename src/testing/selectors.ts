// Label and field selectors: the apiserver's text syntax, parsed once per request.
import { badRequest } from "./status.js";
import type { KObj } from "./types.js";

export type LabelRequirement =
  | { op: "exists" | "!exists"; key: string }
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] };

export type Matcher = (obj: KObj) => boolean;

/** Split on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      terms.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim() !== "" || terms.length > 0) terms.push(current.trim());
  return terms;
}

const keyPattern =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): string {
  if (!keyPattern.test(key) || key.length > 316) {
    throw badRequest(
      `unable to parse requirement: invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return key;
}

function checkValue(key: string, value: string): string {
  if (!valuePattern.test(value) || value.length > 63) {
    throw badRequest(
      `unable to parse requirement: values[0][${key}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return value;
}

export function parseLabelSelector(text: string): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const term of splitTerms(text)) {
    if (term === "") throw badRequest(`unable to parse requirement: found '', expected: identifier`);
    let m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
    if (m) {
      const key = checkKey(m[1]!);
      const values = m[3]!
        .split(",")
        .map((v) => v.trim())
        .map((v) => checkValue(key, v));
      reqs.push({ op: m[2] as "in" | "notin", key, values });
      continue;
    }
    m = /^!\s*(\S+)$/.exec(term);
    if (m) {
      reqs.push({ op: "!exists", key: checkKey(m[1]!) });
      continue;
    }
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (m) {
      const key = checkKey(m[1]!);
      reqs.push({ op: m[2] === "!=" ? "!=" : "=", key, value: checkValue(key, m[3]!.trim()) });
      continue;
    }
    if (/^\S+$/.test(term)) {
      reqs.push({ op: "exists", key: checkKey(term) });
      continue;
    }
    throw badRequest(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
  }
  return reqs;
}

export function labelsMatch(labels: Record<string, string> | undefined, reqs: LabelRequirement[]): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case "exists":
        return has;
      case "!exists":
        return !has;
      case "=":
        return has && v === r.value;
      case "!=":
        return !has || v !== r.value;
      case "in":
        return has && r.values.includes(v!);
      case "notin":
        return !has || !r.values.includes(v!);
    }
    return false;
  });
}

/** The label selector string of a metav1.LabelSelector (matchLabels + matchExpressions). */
export function labelSelectorToString(sel: KObj | undefined): string {
  if (!sel) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries((sel.matchLabels as Record<string, string>) ?? {}))
    parts.push(`${k}=${v}`);
  for (const e of (sel.matchExpressions as KObj[]) ?? []) {
    const op = String(e.operator);
    if (op === "In") parts.push(`${e.key} in (${(e.values ?? []).join(",")})`);
    else if (op === "NotIn") parts.push(`${e.key} notin (${(e.values ?? []).join(",")})`);
    else if (op === "Exists") parts.push(String(e.key));
    else if (op === "DoesNotExist") parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

export function parseFieldSelector(
  text: string,
  allowed: string[],
  customResource: boolean,
): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(text)) {
    if (term === "") continue;
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = m[1]!.trim();
    if (field !== "metadata.name" && field !== "metadata.namespace" && !allowed.includes(field)) {
      const known = ["metadata.name", "metadata.namespace", ...allowed]
        .map((f) => JSON.stringify(f))
        .join(", ");
      throw badRequest(
        customResource
          ? `${JSON.stringify(field)} is not a known field selector: only ${known}`
          : `field label not supported: ${field}`,
      );
    }
    reqs.push({ field, op: m[2] === "!=" ? "!=" : "=", value: m[3]!.trim() });
  }
  return reqs;
}

function fieldValue(obj: KObj, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return "";
    cur = (cur as KObj)[part];
  }
  if (cur === undefined || cur === null) return "";
  return String(cur);
}

export function fieldsMatch(obj: KObj, reqs: FieldRequirement[]): boolean {
  return reqs.every((r) => (fieldValue(obj, r.field) === r.value) === (r.op === "="));
}

/** Builds a matcher for a request's labelSelector and fieldSelector query parameters. */
export function selectorMatcher(
  labelSelector: string | null,
  fieldSelector: string | null,
  allowedFields: string[],
  customResource: boolean,
): Matcher {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  const fields = fieldSelector ? parseFieldSelector(fieldSelector, allowedFields, customResource) : [];
  if (labels.length === 0 && fields.length === 0) return () => true;
  return (obj) => labelsMatch(obj.metadata?.labels, labels) && fieldsMatch(obj, fields);
}
