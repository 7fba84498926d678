// Label selectors in the API server's text syntax (`a=b`, `a==b`, `a!=b`, `a in (x,y)`,
// `a notin (x)`, `a`, `!a`), parsed and matched as k8s.io/apimachinery/pkg/labels does. Shared by
// the operator's cache (which filters lists itself) and tsop/testing's API server.

export type LabelRequirement =
  | { op: "exists" | "!exists"; key: string }
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] };

/** A selector the server would refuse; the message is the server's. */
export class LabelSelectorError extends Error {}

/** Split on commas that are not inside parentheses. */
export function splitSelectorTerms(text: string): string[] {
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
    throw new LabelSelectorError(
      `unable to parse requirement: invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return key;
}

function checkValue(key: string, value: string): string {
  if (!valuePattern.test(value) || value.length > 63) {
    throw new LabelSelectorError(
      `unable to parse requirement: values[0][${key}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  return value;
}

export function parseLabelSelector(text: string): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const term of splitSelectorTerms(text)) {
    if (term === "")
      throw new LabelSelectorError(`unable to parse requirement: found '', expected: identifier`);
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
    throw new LabelSelectorError(
      `unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`,
    );
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
