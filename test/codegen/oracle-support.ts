// The CRD oracle's comparison: two CRDs as data on every schema path. Descriptions are compared
// with whitespace normalised; the apiVersion/kind descriptions of the root are tsop's own wording.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const ORACLE = fileURLToPath(new URL("../../fixtures/crd-oracle/", import.meta.url));

export function readCrds(dir: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(dir).sort())
    if (file.endsWith(".yaml")) out.set(file, parse(readFileSync(join(dir, file), "utf8")));
  return out;
}

const DELIBERATE = new Set([
  ".spec.versions[0].schema.openAPIV3Schema.properties.apiVersion.description",
  ".spec.versions[0].schema.openAPIV3Schema.properties.kind.description",
]);

/** Every path where the two CRDs differ (annotations aside), as `path: expected ≠ actual`. */
export function crdDifferences(expected: unknown, actual: unknown): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (path === ".metadata.annotations" || DELIBERATE.has(path)) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const key of [...keys].sort())
        walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      return;
    }
    const norm = (v: unknown) =>
      path.endsWith(".description") && typeof v === "string"
        ? v.replace(/\s+/g, " ").trim()
        : JSON.stringify(v);
    if (norm(a) !== norm(b))
      out.push(`${path}: ${JSON.stringify(a)?.slice(0, 100)} ≠ ${JSON.stringify(b)?.slice(0, 100)}`);
  };
  walk(expected, actual, "");
  return out;
}

/** The number of schema paths compared (leaves), to show the comparison is not vacuous. */
export function leafCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + leafCount(v), 0);
  if (value && typeof value === "object")
    return Object.values(value).reduce((n: number, v) => n + leafCount(v), 0);
  return 1;
}
