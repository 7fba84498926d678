// Small helpers the checks share: a view of the CSV, a finding, name and version rules, and the
// CSV's owned APIs, RBAC rules and deployments; csvChecks makes a check that runs only when there is a CSV.
import semver from "semver";
import { asRecords, isRecord, type ManifestObject, str } from "../../manifests/index.js";
import { imageReferenceProblem } from "../../oci/reference.js";
import type { BundleFile, Finding, Level, LoadedBundle } from "../load/types.js";
import type { Check, CheckContext } from "./check.js";

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

/** An image pull spec by distribution's reference grammar (the one tsop uses everywhere). */
export function validPullSpec(ref: string): boolean {
  return imageReferenceProblem(ref) === undefined;
}

export function csvChecks(
  id: string,
  level: Check["level"],
  description: string,
  run: (v: NonNullable<ReturnType<typeof csvView>>, b: LoadedBundle, ctx: CheckContext) => Finding[],
) {
  return {
    id,
    level,
    description,
    run: (b: LoadedBundle, ctx: CheckContext) => {
      const v = csvView(b);
      return v ? run(v, b, ctx) : [];
    },
  };
}

export function ownedApis(
  v: NonNullable<ReturnType<typeof csvView>>,
): Array<{ group: string; version: string; kind: string; name: string; index: number; source: string }> {
  const crds = isRecord(v.spec.customresourcedefinitions)
    ? asRecords(v.spec.customresourcedefinitions.owned)
    : [];
  const apis = isRecord(v.spec.apiservicedefinitions) ? asRecords(v.spec.apiservicedefinitions.owned) : [];
  return [
    ...crds.map((c, index) => ({
      group: str(c.name).split(".").slice(1).join("."),
      version: str(c.version),
      kind: str(c.kind),
      name: str(c.name),
      index,
      source: "spec.customresourcedefinitions.owned",
    })),
    ...apis.map((a, index) => ({
      group: str(a.group),
      version: str(a.version),
      kind: str(a.kind),
      name: str(a.name),
      index,
      source: "spec.apiservicedefinitions.owned",
    })),
  ];
}

export function crdInfo(object: Record<string, unknown>) {
  const spec = isRecord(object.spec) ? object.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  return {
    spec,
    group: str(spec.group),
    kind: str(names.kind),
    plural: str(names.plural),
    versions: asRecords(spec.versions),
  };
}

export function allRules(v: NonNullable<ReturnType<typeof csvView>>) {
  const install = isRecord(v.spec.install) && isRecord(v.spec.install.spec) ? v.spec.install.spec : {};
  const out: Array<{ rule: Record<string, unknown>; path: string }> = [];
  for (const key of ["permissions", "clusterPermissions"]) {
    asRecords(install[key]).forEach((p, i) => {
      asRecords(p.rules).forEach((rule, j) => {
        out.push({ rule, path: `spec.install.spec.${key}[${i}].rules[${j}]` });
      });
    });
  }
  return out;
}

export function deploymentsOf(v: NonNullable<ReturnType<typeof csvView>>) {
  const install = isRecord(v.spec.install) && isRecord(v.spec.install.spec) ? v.spec.install.spec : {};
  return asRecords(install.deployments);
}
