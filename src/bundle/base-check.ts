// The base CSV is the user's file: before it is composed into the bundle, its fields of known
// shape are checked, so `maturity: {nested: 1}` or a maintainer without a valid email is refused
// with the file and the field named instead of landing in the bundle.
import { AggregateTsopError } from "../common/errors.js";
import { isRecord, type ManifestObject } from "../manifests/index.js";
import { EMAIL } from "./fields.js";
import { uiTextProblems } from "./ui-text.js";

const STRINGS: Array<[string, string[]]> = [
  ["spec.displayName", ["spec", "displayName"]],
  ["spec.description", ["spec", "description"]],
  ["spec.maturity", ["spec", "maturity"]],
  ["spec.minKubeVersion", ["spec", "minKubeVersion"]],
  ["spec.version", ["spec", "version"]],
  ["metadata.annotations.capabilities", ["metadata", "annotations", "capabilities"]],
];

function at(object: unknown, path: readonly string[]): unknown {
  let current = object;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}

function shape(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isRecord(value)) return "a mapping";
  return `a ${typeof value}`;
}

function listOfRecords(
  value: unknown,
  field: string,
  keys: string[],
  problems: string[],
): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`${field} must be a list, not ${shape(value)}`);
    return [];
  }
  const out: Record<string, unknown>[] = [];
  value.forEach((entry, i) => {
    if (!isRecord(entry)) return problems.push(`${field}[${i}] must be a mapping with ${keys.join(" and ")}`);
    for (const key of keys)
      if (typeof entry[key] !== "string") problems.push(`${field}[${i}].${key} must be a string`);
    out.push(entry);
  });
  return out;
}

export function baseCsvProblems(csv: ManifestObject): string[] {
  const problems: string[] = [];
  for (const [field, path] of STRINGS) {
    const value = at(csv, path);
    if (value !== undefined && value !== null && typeof value !== "string")
      problems.push(`${field} must be a string, not ${shape(value)}`);
  }
  const provider = at(csv, ["spec", "provider"]);
  if (provider !== undefined && provider !== null && !isRecord(provider))
    problems.push(`spec.provider must be a mapping with name (and url), not ${shape(provider)}`);
  const maintainers = listOfRecords(
    at(csv, ["spec", "maintainers"]),
    "spec.maintainers",
    ["name", "email"],
    problems,
  );
  maintainers.forEach((m, i) => {
    if (typeof m.email === "string" && !EMAIL.test(m.email))
      problems.push(`spec.maintainers[${i}].email "${m.email}" is not a valid email address`);
  });
  listOfRecords(at(csv, ["spec", "links"]), "spec.links", ["name", "url"], problems);
  const keywords = at(csv, ["spec", "keywords"]);
  if (
    keywords !== undefined &&
    keywords !== null &&
    (!Array.isArray(keywords) || keywords.some((k) => typeof k !== "string"))
  )
    problems.push("spec.keywords must be a list of strings");
  problems.push(...uiTextProblems(csv));
  return problems;
}

export function checkBaseCsv(csv: ManifestObject, file: string): void {
  const problems = baseCsvProblems(csv);
  if (problems.length === 0) return;
  throw new AggregateTsopError(`${file}: the base CSV has invalid fields:`, problems, {
    hint: "edit these fields of the base CSV (tsop keeps the rest of your changes); nothing was written",
  });
}
