// The properties and related images of a bundle's olm.bundle blob, derived as `opm render` derives
// them from the bundle image (operator-registry's registry.Bundle → declcfg), so the catalogs tsop
// writes (`tsop bundle --fbc`, `tsop run bundle`) say what a catalog built with opm would say:
// provided APIs are every version of every CRD in the bundle plus owned APIServices, required APIs
// come from the CSV, and metadata/dependencies.yaml and metadata/properties.yaml are carried over.
import { asRecords, isRecord, type ManifestObject, str } from "../manifests/index.js";

export interface BundleProperty {
  type: string;
  value: unknown;
}

export interface PropertyInputs {
  packageName: string;
  csv: ManifestObject;
  /** The bundle's CustomResourceDefinition objects. */
  crds: ManifestObject[];
  /** metadata/dependencies.yaml, parsed (`{dependencies: [...]}`), when the bundle has one. */
  dependencies?: unknown;
  /** metadata/properties.yaml, parsed (`{properties: [...]}`), when the bundle has one. */
  properties?: unknown;
}

interface Gvk {
  group: string;
  kind: string;
  version: string;
}

/** Keys sorted, and <, >, & escaped as Go's encoding/json does: the text opm sorts values by. */
export function goJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortKeys)
      : isRecord(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sortKeys(v[k])]),
          )
        : v;
  return JSON.stringify(sortKeys(value)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

function gvkSet() {
  const map = new Map<string, Gvk>();
  return {
    add: (g: Gvk) => map.set(goJson(g), { group: g.group, kind: g.kind, version: g.version }),
    values: () => [...map.values()],
  };
}

const field = (v: unknown, key: string) => (isRecord(v) ? str(v[key]) : "");
const gvkOf = (v: unknown): Gvk => ({
  group: field(v, "group"),
  kind: field(v, "kind"),
  version: field(v, "version"),
});

/** The listed entries of a metadata file (`properties:` / `dependencies:`), each `{type, value}`. */
function entries(file: unknown, key: string): BundleProperty[] {
  return asRecords(isRecord(file) ? file[key] : undefined).map((e) => ({
    type: str(e.type),
    value: e.value,
  }));
}

/** CSV spec.customresourcedefinitions / apiservicedefinitions, owned or required. */
function definitions(csv: ManifestObject, field: string, which: "owned" | "required") {
  const spec = isRecord(csv.spec) ? csv.spec : {};
  const defs = isRecord(spec[field]) ? (spec[field] as Record<string, unknown>) : {};
  return asRecords(defs[which]);
}

/** olm.package, olm.gvk, olm.gvk.required, olm.package.required and the metadata files' own, sorted. */
export function bundleProperties(inputs: PropertyInputs): BundleProperty[] {
  const provided = gvkSet();
  const required = gvkSet();
  const others: BundleProperty[] = [];
  const spec = isRecord(inputs.csv.spec) ? inputs.csv.spec : {};
  let pkg: BundleProperty = {
    type: "olm.package",
    value: { packageName: inputs.packageName, version: str(spec.version) },
  };
  for (const p of entries(inputs.properties, "properties")) {
    if (p.type === "olm.gvk") provided.add(gvkOf(p.value));
    else if (p.type === "olm.package")
      pkg = {
        type: p.type,
        value: { packageName: field(p.value, "packageName"), version: field(p.value, "version") },
      };
    else others.push(p);
  }
  for (const d of entries(inputs.dependencies, "dependencies")) {
    if (d.type === "olm.gvk") required.add(gvkOf(d.value));
    else if (d.type === "olm.package")
      others.push({
        type: "olm.package.required",
        value: { packageName: field(d.value, "packageName"), versionRange: field(d.value, "version") },
      });
    else others.push(d);
  }
  for (const crd of inputs.crds) {
    const crdSpec = isRecord(crd.spec) ? crd.spec : {};
    const kind = isRecord(crdSpec.names) ? str(crdSpec.names.kind) : "";
    for (const v of asRecords(crdSpec.versions))
      provided.add({ group: str(crdSpec.group), kind, version: str(v.name) });
  }
  for (const api of definitions(inputs.csv, "apiservicedefinitions", "owned")) provided.add(gvkOf(api));
  for (const crd of definitions(inputs.csv, "customresourcedefinitions", "required"))
    required.add({ ...gvkOf(crd), group: str(crd.name).split(".").slice(1).join(".") });
  for (const api of definitions(inputs.csv, "apiservicedefinitions", "required")) required.add(gvkOf(api));
  const all: BundleProperty[] = [
    pkg,
    ...provided.values().map((value) => ({ type: "olm.gvk", value })),
    ...required.values().map((value) => ({ type: "olm.gvk.required", value })),
    ...others,
  ];
  return all.sort((a, b) =>
    a.type !== b.type ? (a.type < b.type ? -1 : 1) : goJson(a.value) < goJson(b.value) ? -1 : 1,
  );
}

/**
 * relatedImages as opm render lists them: the CSV's spec.relatedImages, then the bundle image, then
 * every container and init container image of the install strategy not listed yet (unnamed, sorted).
 */
export function bundleRelatedImages(
  csv: ManifestObject,
  bundleImage: string,
): Array<{ name?: string; image: string }> {
  const spec = isRecord(csv.spec) ? csv.spec : {};
  const listed = asRecords(spec.relatedImages).map((r) => ({
    ...(str(r.name) ? { name: str(r.name) } : {}),
    image: str(r.image),
  }));
  const seen = new Set(listed.map((r) => r.image));
  const out = [...listed];
  if (bundleImage && !seen.has(bundleImage)) out.push({ image: bundleImage });
  const install = isRecord(spec.install) ? spec.install : {};
  const operatorImages = new Set<string>();
  if (str(install.strategy) === "deployment" && isRecord(install.spec)) {
    for (const d of asRecords(install.spec.deployments)) {
      const template = isRecord(d.spec) && isRecord(d.spec.template) ? d.spec.template : {};
      const pod = isRecord(template.spec) ? template.spec : {};
      for (const c of [...asRecords(pod.containers), ...asRecords(pod.initContainers)])
        if (str(c.image) && !seen.has(str(c.image))) operatorImages.add(str(c.image));
    }
  }
  return [...out, ...[...operatorImages].sort().map((image) => ({ image }))];
}
