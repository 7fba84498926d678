// Names and labels of everything `tsop run bundle` creates. Names come from the package and a hash
// of the served catalog (not from the image string), so re-pushed tags never collide and every
// name fits the 63-character DNS label limit. Labels let `cleanup` find exactly what tsop made.
import { createHash } from "node:crypto";

export const LABELS = {
  managedBy: "app.kubernetes.io/managed-by",
  package: "tsop.dev/package",
  run: "tsop.dev/run",
  component: "tsop.dev/component",
  revision: "tsop.dev/catalog-revision",
} as const;

export const ANNOTATIONS = {
  /** JSON list of the bundles a tsop catalog serves, oldest first: [{ image, csv, version }]. */
  bundles: "tsop.dev/bundles",
  revision: "tsop.dev/catalog-revision",
  indexImage: "tsop.dev/index-image",
  registryPod: "tsop.dev/registry-pod",
} as const;

export const MANAGED_BY = "tsop";
/** The channel tsop serves a bundle in; the bundle's own channel annotations are not used. */
export const RUN_CHANNEL = "tsop-run-bundle";
export const OPERATOR_GROUP_NAME = "tsop-operatorgroup";
export const OLM_GROUP = "operators.coreos.com";
export const V1ALPHA1 = `${OLM_GROUP}/v1alpha1`;
export const V1 = `${OLM_GROUP}/v1`;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** Lower-cases and replaces runs of other characters with "-" (operator-sdk's rule). */
export function dns1123(value: string): string {
  if (isDns1123Label(value)) return value;
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** `base` shortened so that `base + suffix` fits in 63 characters (keeps the start, unlike operator-sdk). */
export function fitName(base: string, suffix = ""): string {
  const room = 63 - suffix.length;
  const cut = base.length > room ? base.slice(0, room).replace(/-+$/g, "") : base;
  return `${cut}${suffix}`;
}

export function shortHash(text: string, length = 8): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

export interface RunNames {
  catalogSource: string;
  subscription: string;
  /** Registry pod and Service of one catalog revision. */
  registry(revision: string): string;
  configMap(revision: string, index: number): string;
}

export function runNames(packageName: string): RunNames {
  const pkg = dns1123(packageName);
  return {
    catalogSource: fitName(pkg, "-catalog"),
    subscription: fitName(pkg, "-sub"),
    registry: (revision) => fitName(pkg, `-catalog-${revision}`),
    configMap: (revision, index) => fitName(pkg, `-catalog-${revision}-${index}`),
  };
}

/** Labels on every object tsop creates for a package. */
export function runLabels(packageName: string, runId: string, component: string): Record<string, string> {
  return {
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.package]: labelValue(packageName),
    [LABELS.run]: labelValue(runId),
    [LABELS.component]: component,
  };
}

/** Package names are DNS-like already; anything else is shortened to a valid label value. */
export function labelValue(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  return cleaned.length <= 63
    ? cleaned
    : `${cleaned.slice(0, 54).replace(/[^A-Za-z0-9]+$/, "")}-${shortHash(value)}`;
}

/** The label selector for everything tsop created for a package. */
export function packageSelector(packageName: string): string {
  return `${LABELS.managedBy}=${MANAGED_BY},${LABELS.package}=${labelValue(packageName)}`;
}
