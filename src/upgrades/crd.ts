// A sample's CustomResourceDefinition as the upgrade checks read it (served versions, storage version,
// storedVersions, conversion, status subresource), and the sample read at one version by its REST
// path. Paths are built from the CRD, not from discovery: right after an upgrade the client's cached
// discovery may not know a version the new CRD added.
import type { KubeClient } from "../kube/client.js";
import { ApiError } from "../kube/errors.js";
import { type KubeObject, splitApiVersion } from "../kube/objects.js";

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  statusSubresource: boolean;
}

export interface CrdFacts {
  name: string;
  group: string;
  plural: string;
  namespaced: boolean;
  versions: CrdVersion[];
  storedVersions: string[];
  conversion: string;
}

const CRD_API = "apiextensions.k8s.io/v1";

type Fields = Record<string, unknown>;
const rec = (v: unknown): Fields => (v && typeof v === "object" && !Array.isArray(v) ? (v as Fields) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function facts(crd: KubeObject): CrdFacts {
  const spec = rec(crd.spec);
  return {
    name: crd.metadata.name ?? "",
    group: String(spec.group ?? ""),
    plural: String(rec(spec.names).plural ?? ""),
    namespaced: spec.scope !== "Cluster",
    versions: list(spec.versions).map((x) => {
      const v = rec(x);
      return {
        name: String(v.name),
        served: v.served === true,
        storage: v.storage === true,
        statusSubresource: rec(v.subresources).status !== undefined,
      };
    }),
    storedVersions: list(rec(crd.status).storedVersions).map(String),
    conversion: String(rec(spec.conversion).strategy ?? "None"),
  };
}

/** The CRD serving the sample's group and kind, or undefined (it is not a custom resource). */
export async function crdFor(client: KubeClient, sample: KubeObject): Promise<CrdFacts | undefined> {
  const { group } = splitApiVersion(sample.apiVersion);
  const { items } = await client.list(CRD_API, "CustomResourceDefinition");
  const crd = items.find((c) => rec(c.spec).group === group && rec(rec(c.spec).names).kind === sample.kind);
  return crd ? facts(crd) : undefined;
}

export function objectPath(
  crd: CrdFacts,
  version: string,
  sample: KubeObject,
  namespace: string,
  subresource?: string,
): string {
  const ns = crd.namespaced
    ? `/namespaces/${encodeURIComponent(sample.metadata.namespace ?? namespace)}`
    : "";
  const sub = subresource ? `/${subresource}` : "";
  return `/apis/${crd.group}/${version}${ns}/${crd.plural}/${encodeURIComponent(sample.metadata.name ?? "")}${sub}`;
}

/** The sample as the API server returns it at `version`; undefined on 404. */
export async function readAt(
  client: KubeClient,
  crd: CrdFacts,
  version: string,
  sample: KubeObject,
  namespace: string,
): Promise<KubeObject | undefined> {
  try {
    return await client.rest.request<KubeObject>("GET", objectPath(crd, version, sample, namespace));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

export const servedVersions = (crd: CrdFacts): string[] =>
  crd.versions.filter((v) => v.served).map((v) => v.name);
export const storageVersion = (crd: CrdFacts): string | undefined =>
  crd.versions.find((v) => v.storage)?.name;
