// Label and field selectors: the apiserver's text syntax, parsed once per request.
import {
  type LabelRequirement,
  LabelSelectorError,
  labelsMatch,
  parseLabelSelector as parseCommon,
  splitSelectorTerms as splitTerms,
} from "../../common/label-selector.js";
import { badRequest } from "./status.js";
import type { KObj } from "./types.js";

export type { LabelRequirement } from "../../common/label-selector.js";
export { labelsMatch } from "../../common/label-selector.js";

export type Matcher = (obj: KObj) => boolean;

/** parseLabelSelector with the server's 400 Bad Request for a selector it cannot parse. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  try {
    return parseCommon(text);
  } catch (err) {
    if (err instanceof LabelSelectorError) throw badRequest(err.message);
    throw err;
  }
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
