// What a sample sets, and whether the cluster still returns it: every leaf the sample writes outside
// metadata and status (spec and any other top-level field), as a path and its value. Comparing the
// read-back object leaf by leaf finds what a new schema pruned (gone) or changed (a different value);
// fields the sample does not set (defaults, status) are never compared.
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../kube/objects.js";

export type Step = string | number;

export interface FieldValue {
  /** ".spec.size", ".spec.ports[0].name": how messages name it. */
  path: string;
  steps: Step[];
  value: unknown;
}

export interface FieldDifference {
  path: string;
  expected: unknown;
  /** undefined: the field is gone. */
  actual: unknown;
}

const SKIPPED_TOP = new Set(["apiVersion", "kind", "metadata", "status"]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The leaves a sample sets; an empty object or list counts as a leaf (a schema can prune it too). */
export function setFields(sample: KubeObject): FieldValue[] {
  const out: FieldValue[] = [];
  const walk = (value: unknown, steps: Step[]) => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const key of Object.keys(value).sort()) walk(value[key], [...steps, key]);
    } else if (Array.isArray(value) && value.length > 0) {
      value.forEach((item, i) => walk(item, [...steps, i]));
    } else out.push({ path: pathText(steps), steps, value });
  };
  for (const key of Object.keys(sample).sort())
    if (!SKIPPED_TOP.has(key)) walk((sample as Record<string, unknown>)[key], [key]);
  return out;
}

/** ".spec.ports[0].name"; a key that is not a plain name is quoted (.metadata["a.b/c"]). */
export function pathText(steps: readonly Step[]): string {
  return steps
    .map((s) => (typeof s === "number" ? `[${s}]` : /^[\w-]+$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join("");
}

/** The value at `steps`, or undefined when any step is missing. */
export function valueAt(object: unknown, steps: readonly Step[]): unknown {
  let cur: unknown = object;
  for (const step of steps) {
    if (typeof step === "number") {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[step];
    } else {
      if (!isPlainObject(cur)) return undefined;
      cur = cur[step];
    }
  }
  return cur;
}

/** Every field the sample sets that `actual` does not hold with the same value. */
export function fieldDifferences(sample: KubeObject, actual: KubeObject): FieldDifference[] {
  return setFields(sample)
    .map(({ path, steps, value }) => ({ path, expected: value, actual: valueAt(actual, steps) }))
    .filter((d) => !isDeepStrictEqual(d.expected, d.actual));
}

export function describeDifference(d: FieldDifference): string {
  return d.actual === undefined
    ? `field ${d.path} (set to ${JSON.stringify(d.expected)}) is gone`
    : `field ${d.path} is ${JSON.stringify(d.actual)}, the sample set ${JSON.stringify(d.expected)}`;
}
