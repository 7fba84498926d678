// Semantic equality of Kubernetes objects as JSON, after apimachinery's equality.Semantic.DeepEqual
// (what controller-runtime's CreateOrUpdate compares with): map keys in any order, arrays in order,
// numbers by value, an absent, null, empty list or empty map all alike (Go's nil equals empty), and
// resource quantities by their value ("1000m" is "1", "1Gi" is "1024Mi"). Untyped JSON does not say
// which strings are quantities, so that rule applies where Kubernetes' API types put quantities:
// resources.limits/requests, overhead, sizeLimit, ResourceQuota hard/used, capacity/allocatable and
// LimitRange limits. Elsewhere strings compare as text, as Go compares string fields.

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Go's nil: absent, null, [] and {} (an object whose members are all undefined). */
function isNil(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.values(value).every((v) => v === undefined);
}

/** Paths (object keys, "[]" for an array element, "*" any key) whose values are resource.Quantity. */
const QUANTITY_PATHS: string[][] = [
  ["resources", "limits", "*"],
  ["resources", "requests", "*"],
  ["overhead", "*"],
  ["sizeLimit"],
  ["hard", "*"],
  ["used", "*"],
  ["capacity", "*"],
  ["allocatable", "*"],
  ["limits", "[]", "max", "*"],
  ["limits", "[]", "min", "*"],
  ["limits", "[]", "default", "*"],
  ["limits", "[]", "defaultRequest", "*"],
  ["limits", "[]", "maxLimitRequestRatio", "*"],
];

function isQuantityPath(path: readonly string[]): boolean {
  return QUANTITY_PATHS.some((pattern) => {
    if (path.length < pattern.length) return false;
    const tail = path.slice(path.length - pattern.length);
    return pattern.every((p, i) => p === "*" || p === tail[i]);
  });
}

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** A quantity as sign × digits × 10^exp10 × 2^exp2, or undefined when the text is not one. */
interface Exact {
  digits: bigint;
  exp10: number;
  exp2: number;
}

/** resource.Quantity's syntax: <signed decimal><suffix>, suffix binary (Ki…), decimal (m, k…) or e<int>. */
export function parseQuantity(text: string): Exact | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, number, suffix] = m as unknown as [string, string, string, string];
  const [whole, fraction = ""] = number.split(".");
  let digits = BigInt(`${whole || "0"}${fraction}`);
  if (sign === "-") digits = -digits;
  let exp10 = -fraction.length;
  let exp2 = 0;
  const exponent = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (exponent) exp10 += Number(exponent[1]);
  else if (suffix in BINARY_SUFFIXES) exp2 = BINARY_SUFFIXES[suffix] as number;
  else if (suffix in DECIMAL_SUFFIXES) exp10 += DECIMAL_SUFFIXES[suffix] as number;
  else return undefined;
  return { digits, exp10, exp2 };
}

function scaled(q: Exact, exp10: number, exp2: number): bigint {
  return q.digits * 10n ** BigInt(q.exp10 - exp10) * 2n ** BigInt(q.exp2 - exp2);
}

/** Whether two quantity texts have the same value (resource.Quantity.Cmp == 0); false if either is not one. */
export function quantitiesEqual(a: string, b: string): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return false;
  const exp10 = Math.min(x.exp10, y.exp10);
  const exp2 = Math.min(x.exp2, y.exp2);
  return scaled(x, exp10, exp2) === scaled(y, exp10, exp2);
}

const isScalar = (v: unknown): v is string | number => typeof v === "string" || typeof v === "number";

function equal(a: unknown, b: unknown, path: string[]): boolean {
  if (a === b) return true;
  if (isNil(a) && isNil(b)) return true;
  if (isScalar(a) && isScalar(b))
    // A quantity may be written as a number (cpu: 2); the server answers with its text ("2").
    return isQuantityPath(path) && quantitiesEqual(String(a), String(b));
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => equal(item, b[i], [...path, "[]"]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => equal(a[k], b[k], [...path, k]));
  }
  return false;
}

/** Whether two JSON values are the same object to Kubernetes (equality.Semantic.DeepEqual's rules). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, []);
}
