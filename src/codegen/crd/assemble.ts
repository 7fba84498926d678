// Stage 4: validates names, merges the versions of each kind into one CRD (CRD-wide settings must
// agree, exactly one storage version, at least one served), and builds each version's flattened
// schema. Versions are ordered by name (plain string order, as controller-gen does).
import type TS from "typescript";
import type { Diagnostics } from "../diagnostics.js";
import { msg } from "../messages.js";
import type { Schema } from "../schema-types.js";
import type { ResourceVersion } from "./collect.js";
import { Flattener, truncateDescriptions } from "./flatten.js";
import type { SchemaBuilder } from "./schema.js";
import type { SchemaReuse } from "./schema-reuse.js";

export interface Crd {
  /** `<group>_<plural>.yaml` */
  fileName: string;
  object: Record<string, unknown>;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KUBE_VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const PRINTER_TYPES = ["integer", "number", "string", "boolean", "date"];

function where(diags: Diagnostics, node: TS.Node): string {
  return diags.locate(node);
}

function sourceOrder(a: ResourceVersion, b: ResourceVersion): [ResourceVersion, ResourceVersion] {
  const fa = a.at.getSourceFile().fileName;
  const fb = b.at.getSourceFile().fileName;
  const aFirst = fa === fb ? a.at.pos <= b.at.pos : fa < fb;
  return aFirst ? [a, b] : [b, a];
}

function checkNames(r: ResourceVersion, diags: Diagnostics): boolean {
  const before = diags.items.length;
  const at = (key: string) => r.nodes[key] ?? r.at;
  if (r.group === "") diags.at(at("group"), msg.group(r.group, "it is empty"));
  else if (!DNS1123_SUBDOMAIN.test(r.group) || r.group.length > 253)
    diags.at(at("group"), msg.group(r.group, "it is not a lowercase DNS subdomain"));
  else if (!r.group.includes(".")) diags.at(at("group"), msg.group(r.group, "it needs at least one dot"));
  else if (/(^|\.)(k8s\.io|kubernetes\.io)$/.test(r.group)) diags.at(at("group"), msg.groupReserved(r.group));
  if (!DNS1035_LABEL.test(r.version) || r.version.length > 63)
    diags.at(at("version"), msg.version(r.version, "it is not a DNS-1035 label"));
  else if (!KUBE_VERSION.test(r.version)) diags.at(at("version"), msg.versionForm(r.version));
  if (!KIND.test(r.kind))
    diags.at(
      at("kind"),
      msg.names(
        "kind",
        r.kind,
        "a kind is a PascalCase identifier (letters and digits, starting upper case)",
      ),
    );
  for (const [field, value] of [
    ["plural", r.plural],
    ["singular", r.singular],
  ] as const) {
    if (!DNS1035_LABEL.test(value) || value.length > 63)
      diags.at(at(field), msg.names(field, value, "must be a lowercase DNS-1035 label (a-z, 0-9, '-')"));
  }
  for (const s of r.shortNames) {
    if (!DNS1035_LABEL.test(s))
      diags.at(at("shortNames"), msg.names("short name", s, "must be a lowercase DNS-1035 label"));
  }
  if (new Set(r.shortNames).size !== r.shortNames.length)
    diags.at(at("shortNames"), msg.names("shortNames", r.shortNames.join(","), "short names must be unique"));
  if (!KIND.test(r.listKind))
    diags.at(at("listKind"), msg.names("listKind", r.listKind, "must be a PascalCase identifier"));
  if (r.listKind === r.kind)
    diags.at(at("listKind"), msg.names("listKind", r.listKind, "must differ from the kind"));
  if (r.scope !== "Namespaced" && r.scope !== "Cluster") diags.at(at("scope"), msg.scope(r.scope));
  for (const [i, col] of r.printerColumns.entries()) {
    if (!PRINTER_TYPES.includes(col.type))
      diags.at(r.nodes[`printerColumn:${i}`] ?? r.at, msg.printerColumnType(col.type));
  }
  return diags.items.slice(before).every((d) => d.severity !== "error");
}

/** CRD-wide settings every version must agree on. */
function crdWide(r: ResourceVersion): Record<string, string> {
  return {
    plural: r.plural,
    singular: r.singular,
    scope: r.scope,
    shortNames: JSON.stringify(r.shortNames),
    categories: JSON.stringify(r.categories),
    listKind: r.listKind,
    annotations: JSON.stringify(sortObject(r.annotations)),
    labels: JSON.stringify(sortObject(r.labels)),
  };
}

function sortObject(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export interface AssembleOptions {
  maxDescLen?: number;
  toolVersion: string;
}

/** How each version's schema is made: built, or taken from the last analysis when unchanged. */
export interface VersionSchemas {
  builder: SchemaBuilder;
  reuse: SchemaReuse;
}

export function assembleCrds(
  resources: ResourceVersion[],
  schemas: VersionSchemas,
  diags: Diagnostics,
  options: AssembleOptions,
): Crd[] {
  const valid = resources.filter((r) => checkNames(r, diags));
  const byKind = new Map<string, ResourceVersion[]>();
  for (const r of valid) {
    const key = `${r.group}/${r.kind}`;
    byKind.set(key, [...(byKind.get(key) ?? []), r]);
  }
  const crds: Crd[] = [];
  const plurals = new Map<string, ResourceVersion>();
  for (const key of [...byKind.keys()].sort()) {
    const all = byKind.get(key) as ResourceVersion[];
    const first = all[0] as ResourceVersion;
    const name = `${first.plural}.${first.group}`;
    const claimed = plurals.get(name);
    if (claimed) {
      // Reported at the later declaration in the source, naming the earlier one.
      const [earlier, later] = sourceOrder(claimed, first);
      diags.at(
        later.nodes.plural ?? later.at,
        msg.duplicatePlural(name, where(diags, earlier.nodes.plural ?? earlier.at)),
      );
      continue;
    }
    plurals.set(name, first);
    // Same version twice.
    const seen = new Map<string, ResourceVersion>();
    let ok = true;
    for (const r of all) {
      const other = seen.get(r.version);
      if (other) {
        diags.at(r.at, msg.duplicateVersion(r.kind, r.version, where(diags, other.at)));
        ok = false;
      } else seen.set(r.version, r);
    }
    const reference = crdWide(first);
    for (const r of all.slice(1)) {
      const mine = crdWide(r);
      for (const field of Object.keys(reference)) {
        if (mine[field] !== reference[field]) {
          diags.at(
            r.nodes[field] ?? r.at,
            msg.conflict(
              r.kind,
              field,
              mine[field] as string,
              reference[field] as string,
              where(diags, first.nodes[field] ?? first.at),
            ),
          );
          ok = false;
        }
      }
    }
    if (!ok) continue;
    if (all.length === 1 && first.skip) {
      diags.at(first.nodes.skip ?? first.at, msg.skipOnly(first.kind));
      continue;
    }
    const versions = all
      .filter((r) => !r.skip)
      .sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    const storage = versions.filter((r) => r.storage);
    if (versions.length === 1 && storage.length === 0) (versions[0] as ResourceVersion).storage = true;
    else if (storage.length === 0) {
      diags.at(first.at, msg.storage(`CRD for ${first.kind}.${first.group} has no storage version`));
      continue;
    } else if (storage.length > 1) {
      for (const r of storage.slice(1))
        diags.at(
          r.nodes.storage ?? r.at,
          msg.storage(
            `CRD for ${first.kind}.${first.group} has ${storage.length} storage versions (${storage.map((s) => s.version).join(", ")})`,
          ),
        );
      continue;
    }
    if (!versions.some((r) => r.served)) {
      diags.at(first.at, msg.storage(`CRD for ${first.kind}.${first.group} does not serve any version`));
      continue;
    }
    const versionObjects = versions.map((r) => versionObject(r, schemas, diags, options));
    crds.push({
      fileName: `${first.group}_${first.plural}.yaml`,
      object: crdObject(first, versionObjects, options),
    });
  }
  return crds.sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
}

function versionObject(
  r: ResourceVersion,
  { builder, reuse }: VersionSchemas,
  diags: Diagnostics,
  options: AssembleOptions,
): Record<string, unknown> {
  const schema = reuse.schemaOf(r, () => {
    const raw = builder.rootSchema(r.cls, r.kind);
    const flat = new Flattener(builder.named, builder.origins, diags).flatten(raw, r.kind, r.cls);
    if (options.maxDescLen !== undefined) truncateDescriptions(flat, options.maxDescLen);
    return flat;
  });
  if (r.status && !schema.properties?.status) diags.at(r.at, msg.noStatusProperty(r.kind));
  const v: Record<string, unknown> = {
    name: r.version,
    schema: { openAPIV3Schema: schema },
    served: r.served,
    storage: r.storage,
  };
  if (r.deprecated) {
    v.deprecated = true;
    if (r.deprecationWarning !== undefined) v.deprecationWarning = r.deprecationWarning;
  }
  const subresources: Record<string, unknown> = {};
  if (r.status) subresources.status = {};
  if (r.scale) {
    const at = r.nodes.scale ?? r.at;
    checkPath(schema, r.scale.specReplicasPath, "specReplicasPath", ["integer"], at, diags, ".spec.");
    checkPath(schema, r.scale.statusReplicasPath, "statusReplicasPath", ["integer"], at, diags, ".status.");
    const scale: Record<string, string> = {
      specReplicasPath: r.scale.specReplicasPath,
      statusReplicasPath: r.scale.statusReplicasPath,
    };
    if (r.scale.labelSelectorPath !== undefined) {
      checkPath(schema, r.scale.labelSelectorPath, "labelSelectorPath", ["string"], at, diags, ".status.");
      scale.labelSelectorPath = r.scale.labelSelectorPath;
    }
    subresources.scale = scale;
  }
  if (Object.keys(subresources).length) v.subresources = subresources;
  if (r.printerColumns.length) {
    for (const [i, col] of r.printerColumns.entries())
      checkPath(
        schema,
        col.jsonPath,
        "printer column jsonPath",
        undefined,
        r.nodes[`printerColumn:${i}`] ?? r.at,
        diags,
      );
    v.additionalPrinterColumns = r.printerColumns.map((c) => ({ ...c }));
  }
  if (r.selectableFields.length) {
    for (const f of r.selectableFields)
      checkPath(
        schema,
        f,
        "selectable field",
        ["string", "integer", "boolean"],
        r.nodes.selectableFields ?? r.at,
        diags,
      );
    v.selectableFields = r.selectableFields.map((jsonPath) => ({ jsonPath }));
  }
  return v;
}

/** Checks that a simple JSON path (.a.b) names a field of the schema, and its type when given. */
function checkPath(
  schema: Schema,
  path: string,
  what: string,
  types: string[] | undefined,
  at: TS.Node,
  diags: Diagnostics,
  prefix?: string,
): void {
  if (!path.startsWith(".")) {
    diags.at(at, msg.path(what, path, "must start with '.'"));
    return;
  }
  if (prefix && !path.startsWith(prefix)) {
    diags.at(at, msg.path(what, path, `must be under ${prefix.slice(0, -1)}`));
    return;
  }
  let node: Schema | undefined = schema;
  for (const segment of path.slice(1).split(".")) {
    if (!node || /[[\]*]/.test(segment)) return; // array selectors and maps: not checked
    if (node.type === "object" && node.properties === undefined) return; // metadata and free-form objects
    node = node.properties?.[segment];
    if (!node) {
      diags.at(at, msg.path(what, path, `names no field of the schema (no '${segment}')`));
      return;
    }
  }
  if (types && node?.type && !types.includes(node.type))
    diags.at(at, msg.path(what, path, `must be ${types.join(" or ")}, found ${node.type}`));
}

function crdObject(
  r: ResourceVersion,
  versions: Record<string, unknown>[],
  options: AssembleOptions,
): Record<string, unknown> {
  const names: Record<string, unknown> = {
    kind: r.kind,
    listKind: r.listKind,
    plural: r.plural,
    singular: r.singular,
  };
  if (r.shortNames.length) names.shortNames = [...r.shortNames];
  if (r.categories.length) names.categories = [...r.categories];
  const metadata: Record<string, unknown> = {
    annotations: { ...r.annotations, "tsop.dev/version": options.toolVersion },
    name: `${r.plural}.${r.group}`,
  };
  if (Object.keys(r.labels).length) metadata.labels = { ...r.labels };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata,
    spec: { group: r.group, names, scope: r.scope, versions },
  };
}
