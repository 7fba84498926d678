// Reading the input: a CustomResourceDefinition (apiextensions.k8s.io/v1) from a YAML file or as
// the cluster returned it, checked for what the generator relies on, reduced to its served
// versions. Anything else is refused naming the file (or the cluster object) and what is wrong.
import { InvalidInputError } from "../../common/errors.js";
import { readFile } from "../../common/fs.js";
import { parseYamlDocuments } from "../../common/yaml/read.js";

/** An OpenAPI v3 schema of a CRD (JSONSchemaProps), as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ServedVersion {
  name: string;
  /** `openAPIV3Schema` of the version. */
  schema: JsonSchema;
  deprecated: boolean;
}

export interface CrdInput {
  /** metadata.name: `<plural>.<group>`. */
  name: string;
  group: string;
  kind: string;
  namespaced: boolean;
  versions: ServedVersion[];
  /** What the generated header names as the source: a file name or "the cluster". */
  source: string;
}

const CRD_API_VERSION = "apiextensions.k8s.io/v1";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(where: string, what: string, hint?: string): InvalidInputError {
  return new InvalidInputError(`${where}: ${what}`, hint === undefined ? {} : { hint });
}

/** Every CRD of a YAML file (a stream of one or more documents; empty documents are skipped). */
export async function readCrdFile(path: string, shownAs: string): Promise<CrdInput[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(shownAs, code === "ENOENT" ? "no such file" : `cannot read it (${code ?? String(error)})`);
  }
  const documents = parseYamlDocuments(text, shownAs)
    .map((document, index) => ({ value: document.value, index }))
    .filter((document) => document.value !== null && document.value !== undefined);
  if (documents.length === 0)
    throw invalid(shownAs, "the file holds no YAML document", "pass a CustomResourceDefinition manifest");
  const where = (index: number) => (documents.length === 1 ? shownAs : `${shownAs} (document ${index + 1})`);
  const crds = documents.map((document) => crdFromObject(document.value, where(document.index), shownAs));
  const seen = new Set<string>();
  for (const crd of crds) {
    if (seen.has(crd.name)) throw invalid(shownAs, `the CustomResourceDefinition ${crd.name} appears twice`);
    seen.add(crd.name);
  }
  return crds;
}

/** One CRD object, checked; `where` names it in errors, `source` in the generated header. */
export function crdFromObject(value: unknown, where: string, source: string): CrdInput {
  if (!isRecord(value)) throw invalid(where, "not a Kubernetes object (expected a YAML mapping)");
  const { apiVersion, kind } = value;
  if (kind !== "CustomResourceDefinition")
    throw invalid(
      where,
      `not a CustomResourceDefinition (kind: ${JSON.stringify(kind ?? null)})`,
      "pass the CRD's manifest, e.g. config/crd/bases/<group>_<plural>.yaml or `kubectl get crd <name> -o yaml`",
    );
  if (apiVersion !== CRD_API_VERSION)
    throw invalid(
      where,
      `apiVersion ${JSON.stringify(apiVersion ?? null)} is not supported (expected ${CRD_API_VERSION})`,
      "apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22: read the CRD from a cluster (`--from-cluster`), which serves it as v1",
    );
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const spec = isRecord(value.spec) ? value.spec : undefined;
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const label = name === "" ? where : `${where}: CustomResourceDefinition ${name}`;
  if (!spec) throw invalid(label, "has no spec");
  const names = isRecord(spec.names) ? spec.names : {};
  const crdKind = names.kind;
  if (typeof crdKind !== "string" || !/^[A-Za-z][A-Za-z0-9]*$/.test(crdKind))
    throw invalid(label, `spec.names.kind ${JSON.stringify(crdKind ?? null)} is not a kind name`);
  if (typeof spec.group !== "string" || spec.group === "") throw invalid(label, "spec.group is missing");
  if (!Array.isArray(spec.versions) || spec.versions.length === 0)
    throw invalid(label, "spec.versions is missing or empty");
  const versions: ServedVersion[] = [];
  spec.versions.forEach((version: unknown, index: number) => {
    const field = `spec.versions[${index}]`;
    if (
      !isRecord(version) ||
      typeof version.name !== "string" ||
      !/^v[0-9]+((alpha|beta)[0-9]+)?$/.test(version.name)
    )
      throw invalid(label, `${field}.name is not a Kubernetes version name (like v1, v1beta2)`);
    if (version.served !== true) return;
    const schema = isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
    if (!isRecord(schema))
      throw invalid(label, `${field} (${version.name}) is served but has no schema.openAPIV3Schema`);
    versions.push({ name: version.name, schema, deprecated: version.deprecated === true });
  });
  if (versions.length === 0)
    throw invalid(
      label,
      "no version is served (every spec.versions[].served is false)",
      "there is nothing a client could read: serve a version",
    );
  return {
    name: name === "" ? `${String(names.plural ?? crdKind.toLowerCase())}.${spec.group}` : name,
    group: spec.group,
    kind: crdKind,
    namespaced: spec.scope !== "Cluster",
    versions,
    source,
  };
}
