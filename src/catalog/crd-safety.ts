// CRD schema safety along an upgrade edge (CAT-16, CAT-17, CAT-18 in checks.ts): the CRDs of the two
// bundles (their olm.bundle.object properties) compared version by version. What users' objects
// lose or newly fail when OLM replaces the CRD: a field the schema no longer has (the API server
// prunes it from every object it returns), a validation that got tighter (new required fields,
// narrowed enums, lower maxima, higher minima, new patterns, changed types: existing objects fail
// on their next write), and versions the new CRD keeps but stops serving, or a storage version moved, with no
// conversion webhook to carry the objects over.
import { isRecord, str } from "../manifests/index.js";
import type { BundleNode } from "./graph.js";

type Schema = Record<string, unknown>;

export interface CrdDraft {
  id: "CAT-16" | "CAT-17" | "CAT-18";
  level: "error" | "warning";
  message: string;
  fix: string;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: Schema | undefined;
}

interface Crd {
  name: string;
  conversion: string;
  versions: CrdVersion[];
}

/** The bundle's CRDs by name, decoded from its olm.bundle.object properties. */
export function bundleCrds(node: BundleNode | undefined): Map<string, Crd> {
  const out = new Map<string, Crd>();
  for (const p of node?.blob.properties ?? []) {
    if (p.type !== "olm.bundle.object" || !isRecord(p.value)) continue;
    let object: unknown;
    try {
      object = JSON.parse(Buffer.from(str(p.value.data), "base64").toString("utf8"));
    } catch {
      continue; // not JSON: not a CRD
    }
    if (!isRecord(object) || object.kind !== "CustomResourceDefinition" || !isRecord(object.spec)) continue;
    const spec = object.spec;
    const shared =
      isRecord(spec.validation) && isRecord(spec.validation.openAPIV3Schema)
        ? spec.validation.openAPIV3Schema
        : undefined;
    const versions = (Array.isArray(spec.versions) ? spec.versions : []).filter(isRecord).map((v) => ({
      name: str(v.name),
      served: v.served !== false,
      storage: v.storage === true,
      schema: isRecord(v.schema) && isRecord(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : shared,
    }));
    const name = isRecord(object.metadata) ? str(object.metadata.name) : "";
    out.set(name, {
      name,
      conversion: isRecord(spec.conversion) ? str(spec.conversion.strategy) || "None" : "None",
      versions,
    });
  }
  return out;
}

/** Every node of a schema by path (".spec.size", ".spec.ports[]", ".spec.labels.*"); status left out. */
function schemaPaths(schema: Schema | undefined): Map<string, Schema> {
  const out = new Map<string, Schema>();
  const walk = (node: Schema, path: string) => {
    out.set(path, node);
    if (node["x-kubernetes-preserve-unknown-fields"] === true) return;
    if (isRecord(node.properties))
      for (const [key, child] of Object.entries(node.properties))
        if (isRecord(child) && !(path === "" && (key === "status" || key === "metadata")))
          walk(child, `${path}.${key}`);
    if (isRecord(node.items)) walk(node.items, `${path}[]`);
    if (isRecord(node.additionalProperties)) walk(node.additionalProperties, `${path}.*`);
  };
  if (schema) walk(schema, "");
  return out;
}

const parentOf = (path: string) => path.replace(/(\.[^.[\]]+|\[\])$/, "");

/** Whether the new schema keeps unknown fields at `path` or above it (nothing is pruned there). */
function preserved(paths: Map<string, Schema>, path: string): boolean {
  for (let p = parentOf(path); ; p = parentOf(p)) {
    if (paths.get(p)?.["x-kubernetes-preserve-unknown-fields"] === true) return true;
    if (p === "") return false;
  }
}

/** Fields of `before` that `after` no longer has (topmost only: a removed object hides its children). */
function removedFields(before: Map<string, Schema>, after: Map<string, Schema>): string[] {
  const removed = [...before.keys()].filter((p) => p !== "" && !after.has(p) && !preserved(after, p));
  return removed.filter((p) => !removed.includes(parentOf(p)) || parentOf(p) === "").sort();
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** How `after` validates tighter than `before` at one path, in words; [] when it does not. */
function tightenings(before: Schema, after: Schema): string[] {
  const out: string[] = [];
  if (before.type !== undefined && after.type !== undefined && before.type !== after.type)
    out.push(`type ${String(before.type)} → ${String(after.type)}`);
  const reqBefore = new Set(Array.isArray(before.required) ? before.required.map(String) : []);
  const newReq = (Array.isArray(after.required) ? after.required.map(String) : []).filter(
    (r) => !reqBefore.has(r),
  );
  if (newReq.length > 0) out.push(`new required field(s) ${newReq.sort().join(", ")}`);
  if (Array.isArray(after.enum)) {
    const allowed = after.enum.map((v) => JSON.stringify(v));
    const lost = Array.isArray(before.enum)
      ? before.enum.map((v) => JSON.stringify(v)).filter((v) => !allowed.includes(v))
      : ["(any value)"];
    if (lost.length > 0) out.push(`enum narrowed: ${lost.join(", ")} no longer allowed`);
  }
  for (const key of ["maximum", "maxLength", "maxItems", "maxProperties"]) {
    const a = num(after[key]);
    const b = num(before[key]);
    if (a !== undefined && (b === undefined || a < b)) out.push(`${key} ${b ?? "none"} → ${a}`);
  }
  for (const key of ["minimum", "minLength", "minItems", "minProperties"]) {
    const a = num(after[key]);
    const b = num(before[key]);
    if (a !== undefined && a > (b ?? (key === "minimum" ? Number.NEGATIVE_INFINITY : 0)))
      out.push(`${key} ${b ?? "none"} → ${a}`);
  }
  if (after.exclusiveMaximum === true && before.exclusiveMaximum !== true) out.push("maximum made exclusive");
  if (after.exclusiveMinimum === true && before.exclusiveMinimum !== true) out.push("minimum made exclusive");
  if (typeof after.pattern === "string" && after.pattern !== before.pattern)
    out.push(
      `pattern ${before.pattern === undefined ? "none" : JSON.stringify(before.pattern)} → ${JSON.stringify(after.pattern)}`,
    );
  if (before.nullable === true && after.nullable !== true) out.push("no longer nullable");
  return out;
}

/** What moving users from `from` to `to` does to their objects, per CRD both bundles have. */
export function crdSafety(
  fromName: string,
  from: BundleNode | undefined,
  toName: string,
  to: BundleNode | undefined,
): CrdDraft[] {
  const out: CrdDraft[] = [];
  const after = bundleCrds(to);
  for (const [name, old] of bundleCrds(from)) {
    const next = after.get(name);
    if (!next) continue; // the CRD gone: CAT-10 reports its versions
    const webhook = next.conversion === "Webhook";
    for (const v of old.versions) {
      const now = next.versions.find((x) => x.name === v.name);
      // A version removed outright is CAT-10's (its olm.gvk is gone); here: kept but no longer served.
      if (v.served && now && !now.served && !webhook)
        out.push({
          id: "CAT-18",
          level: "error",
          message: `${toName} stops serving ${name} version ${v.name}, which ${fromName} serves, with no conversion webhook: clients and custom resources of ${v.name} lose their API`,
          fix: `keep ${v.name} served in ${toName} (deprecated: true warns its clients), or add a conversion webhook and retire it later`,
        });
      if (!now) continue;
      const before = schemaPaths(v.schema);
      const afterPaths = schemaPaths(now.schema);
      for (const path of removedFields(before, afterPaths))
        out.push({
          id: "CAT-16",
          level: "error",
          message: `${toName} removes field ${path} from ${name} ${v.name} (${fromName} has it): the API server prunes it from every object users created`,
          fix: `keep ${path} in ${toName}'s schema (deprecate it in its description), or move the data in a new version with a conversion webhook`,
        });
      for (const [path, node] of afterPaths) {
        const was = before.get(path);
        if (!was) continue;
        const tighter = tightenings(was, node);
        if (tighter.length > 0)
          out.push({
            id: "CAT-17",
            level: "error",
            message: `${toName} validates ${name} ${v.name} ${path || "(root)"} tighter than ${fromName}: ${tighter.join("; ")}; objects valid today are refused on their next update`,
            fix: `keep ${toName}'s validation of ${path || "the root"} as loose as ${fromName}'s, or tighten it in a new API version`,
          });
      }
    }
    const oldStorage = old.versions.find((v) => v.storage);
    const newStorage = next.versions.find((v) => v.storage);
    if (oldStorage && newStorage && oldStorage.name !== newStorage.name && !webhook) {
      if (!next.versions.some((v) => v.name === oldStorage.name))
        out.push({
          id: "CAT-18",
          level: "error",
          message: `${toName} drops ${name} version ${oldStorage.name}, the storage version of ${fromName}: objects stored as ${oldStorage.name} (status.storedVersions) cannot be read and OLM refuses the CRD update`,
          fix: `keep ${oldStorage.name} in ${toName}'s versions (served: false is enough) until the objects are migrated`,
        });
      const lost = removedFields(schemaPaths(oldStorage.schema), schemaPaths(newStorage.schema));
      if (lost.length > 0)
        out.push({
          id: "CAT-18",
          level: "error",
          message: `${toName} moves ${name}'s storage version from ${oldStorage.name} to ${newStorage.name} without a conversion webhook, and ${newStorage.name} lacks ${lost.join(", ")}: the API server only rewrites apiVersion and prunes those fields`,
          fix: `add a conversion webhook, or give ${newStorage.name} every field of ${oldStorage.name}`,
        });
    }
  }
  return out;
}
