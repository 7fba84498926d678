// kustomize `configurations`: transformer configuration files that teach the name-reference and
// namespace transformers about more fields (kubebuilder's config/crd and config/certmanager
// kustomizeconfig.yaml: a CRD's conversion Service, a Certificate's Issuer). As in kustomize, the
// configurations of every kustomization built so far apply to the renames above them. Fields of a
// configuration file tsop does not apply are refused by name.
import { join } from "node:path";
import { InvalidInputError, UsageError } from "../common/errors.js";
import type { KustomizationFiles } from "./load-restrictor.js";
import { asArray, asRecords, groupOf, isRecord, kindOf, str, versionOf } from "./object.js";
import { parseYaml } from "../common/yaml/read.js";

export interface FieldSpec {
  kind: string;
  group?: string;
  version?: string;
  /** Slash-separated; lists on the way are walked item by item. */
  path: string;
  create?: boolean;
}

export interface NameReference {
  /** The kind referred to (its renames are followed). */
  kind: string;
  fieldSpecs: FieldSpec[];
}

export interface Configurations {
  nameReference: NameReference[];
  namespace: FieldSpec[];
}

/** varReference only serves `vars`, which tsop refuses on its own. */
const APPLIED = new Set(["nameReference", "namespace", "varReference"]);

export async function readConfigurations(
  k: Record<string, unknown>,
  files: KustomizationFiles,
  shown: (p: string) => string,
  into: Configurations,
): Promise<void> {
  for (const ref of asArray(k.configurations).map(str)) {
    const file = shown(join(files.dir, ref));
    const config = parseYaml((await files.read(ref, "configurations file")).toString("utf8"), file);
    if (!isRecord(config)) throw new InvalidInputError(`${file} is not a mapping`, { location: { file } });
    for (const field of Object.keys(config)) {
      if (APPLIED.has(field)) continue;
      throw new UsageError(
        `kustomize configurations field "${field}" is not supported by tsop's built-in kustomize reader`,
        {
          location: { file },
          hint: `render the tree with kustomize and pass the result: kustomize build <dir> | tsop bundle -f -`,
        },
      );
    }
    for (const n of asRecords(config.nameReference))
      into.nameReference.push({ kind: str(n.kind), fieldSpecs: asRecords(n.fieldSpecs).map(fieldSpec) });
    into.namespace.push(...asRecords(config.namespace).map(fieldSpec));
  }
}

function fieldSpec(r: Record<string, unknown>): FieldSpec {
  return {
    kind: str(r.kind),
    path: str(r.path),
    ...(typeof r.group === "string" ? { group: r.group } : {}),
    ...(typeof r.version === "string" ? { version: r.version } : {}),
    ...(r.create === true ? { create: true } : {}),
  };
}

export function specMatches(spec: FieldSpec, o: Record<string, unknown>): boolean {
  return (
    (spec.kind === "" || spec.kind === kindOf(o)) &&
    (spec.group === undefined || spec.group === groupOf(o)) &&
    (spec.version === undefined || spec.version === "" || spec.version === versionOf(o))
  );
}

/** Every (holder, key) the slash path reaches in `o`; with `create`, missing maps on the way are made. */
export function fieldSites(
  o: Record<string, unknown>,
  path: string,
  create = false,
): Array<{ holder: Record<string, unknown>; key: string }> {
  const segments = path.split("/").filter(Boolean);
  const last = segments.pop();
  if (last === undefined) return [];
  let holders: Record<string, unknown>[] = [o];
  for (const segment of segments) {
    const next: Record<string, unknown>[] = [];
    for (const h of holders) {
      if (create && h[segment] === undefined) h[segment] = {};
      const v = h[segment];
      if (Array.isArray(v)) next.push(...v.filter(isRecord));
      else if (isRecord(v)) next.push(v);
    }
    holders = next;
  }
  return holders.filter((holder) => create || last in holder).map((holder) => ({ holder, key: last }));
}
