// OpenShift feature annotations (features.operators.openshift.io/*): set from flags or the bundle
// config, checked against the known names, always "true" or "false"; and the legacy
// operators.openshift.io/infrastructure-features list that older OpenShift consoles still read.
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

export const LEGACY_FEATURES_ANNOTATION = "operators.openshift.io/infrastructure-features";

/** features.operators.openshift.io/<name> → its name in the legacy list (none for newer features). */
const LEGACY_NAMES: Record<string, string> = {
  disconnected: "disconnected",
  "fips-compliant": "fips",
  "proxy-aware": "proxy-aware",
  cnf: "cnf",
  cni: "cni",
  csi: "csi",
};

/**
 * The legacy annotation for a CSV's feature annotations: a JSON list of the features set to "true"
 * that have a legacy name, e.g. '["disconnected", "fips"]'. Undefined when no feature is annotated.
 */
export function legacyFeatures(annotations: Record<string, unknown>): Record<string, string> {
  const keys = Object.keys(annotations).filter((k) => k.startsWith(FEATURE_PREFIX));
  if (keys.length === 0) return {};
  const names = keys
    .filter((k) => annotations[k] === "true")
    .map((k) => LEGACY_NAMES[k.slice(FEATURE_PREFIX.length)])
    .filter((n): n is string => n !== undefined)
    .sort();
  return { [LEGACY_FEATURES_ANNOTATION]: `[${names.map((n) => JSON.stringify(n)).join(", ")}]` };
}
