// OpenShift feature annotations (features.operators.openshift.io/*): set from flags or the bundle
// config, checked against the known names, always "true" or "false".
import { InvalidInputError } from "../common/errors.js";

export const FEATURE_PREFIX = "features.operators.openshift.io/";
export const FEATURES = [
  "disconnected",
  "fips-compliant",
  "proxy-aware",
  "tls-profiles",
  "token-auth-aws",
  "token-auth-azure",
  "token-auth-gcp",
  "cnf",
  "cni",
  "csi",
];

function truth(value: unknown, key: string, source: string): "true" | "false" {
  const text = String(value).trim().toLowerCase();
  if (text === "true" || text === "false") return text;
  throw new InvalidInputError(`${source}: feature "${key}" must be true or false, not "${String(value)}"`);
}

function known(key: string, source: string): void {
  if (!FEATURES.includes(key)) {
    throw new InvalidInputError(`${source}: unknown OpenShift feature "${key}"`, {
      hint: `known features: ${FEATURES.join(", ")}`,
    });
  }
}

/** "disconnected=true,fips-compliant=false" or a map → annotation map. */
export function parseFeatures(
  input: string | Record<string, unknown>,
  source: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  const entries =
    typeof input === "string"
      ? input
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
          .map((pair) => {
            const eq = pair.indexOf("=");
            return eq < 0 ? [pair, "true"] : [pair.slice(0, eq).trim(), pair.slice(eq + 1)];
          })
      : Object.entries(input);
  for (const [key, value] of entries) {
    const k = String(key).replace(FEATURE_PREFIX, "");
    known(k, source);
    out[`${FEATURE_PREFIX}${k}`] = truth(value, k, source);
  }
  return out;
}
