// Small helpers the checks share.
import semver from "semver";
import { isRecord, type ManifestObject, str } from "../../manifests/index.js";
import { imageReferenceProblem } from "../../images/reference.js";
import type { BundleFile, Finding, Level, LoadedBundle } from "./types.js";

export interface CsvView {
  file: BundleFile;
  csv: ManifestObject;
  meta: Record<string, unknown>;
  spec: Record<string, unknown>;
  annotations: Record<string, unknown> | undefined;
  name: string;
}

export function csvView(bundle: LoadedBundle): CsvView | undefined {
  if (!bundle.csv) return undefined;
  const csv = bundle.csv.object;
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  return {
    file: bundle.csv,
    csv,
    meta,
    spec: isRecord(csv.spec) ? csv.spec : {},
    annotations: isRecord(meta.annotations) ? meta.annotations : undefined,
    name: str(meta.name),
  };
}

export function finding(id: string, level: Level, message: string, file?: string, path?: string): Finding {
  return { id, level, message, ...(file ? { file } : {}), ...(path ? { path } : {}) };
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why a name is not a DNS-1123 subdomain that is also a valid label value, or undefined. */
export function nameProblem(name: string): string | undefined {
  if (!name) return "must not be empty";
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return "must be a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)";
  }
  if (name.length > 63 || !LABEL_VALUE.test(name)) return "must be no more than 63 characters";
  return undefined;
}

/** A full semver (1.28.0), not 1.28 nor v1.28.0. */
export function strictSemver(value: string): boolean {
  return semver.valid(value) === value;
}

/** Parses a Kubernetes version like 1.25, v1.25.3 or 1.25.0 into a comparable semver. */
export function kubeVersion(value: string): string | undefined {
  return semver.coerce(value)?.version;
}

/** Is the image reference a syntactically valid pull spec? */
/** An image pull spec by distribution's reference grammar (the one tsop uses everywhere). */
export function validPullSpec(ref: string): boolean {
  return imageReferenceProblem(ref) === undefined;
}
