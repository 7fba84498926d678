// Finds an existing OLM anywhere in the cluster: its CRDs (group operators.coreos.com), its
// deployments in any namespace, and the packageserver CSV (whose olm.version label gives the
// version). Also recognises an OLM the platform manages (OpenShift). requireOlm is the check the
// run commands (run bundle, bundle-upgrade, cleanup) make first: OLM's API is served.
import { errorFrom } from "../common/errors.js";
import type { KubeClient } from "../kube/client.js";
import { NoKindMatchError } from "../kube/errors.js";
import { describeRef, isNoMatch, isNotFound, type KubeObject, type ObjectRef } from "../kube/index.js";
import { messages } from "./messages.js";
import { normalizeVersion } from "./release.js";

export const OLM_GROUP = "operators.coreos.com";
export const OLM_DEPLOYMENTS = ["olm-operator", "catalog-operator", "packageserver"];
const OPENSHIFT_NAMESPACE = "openshift-operator-lifecycle-manager";

export interface ExistingOlm {
  found: ObjectRef[];
  /** Normalised version from the packageserver CSV's olm.version label. */
  version?: string;
  packageserver?: KubeObject;
  /** Namespace OLM's deployments run in (from the packageserver CSV or the olm-operator deployment). */
  namespace?: string;
  managedBy?: { platform: string; namespace: string };
}

/** Refuses to go on when the cluster does not serve OLM's CatalogSource API. */
export async function requireOlm(client: KubeClient): Promise<void> {
  try {
    await client.resource(`${OLM_GROUP}/v1alpha1`, "CatalogSource");
  } catch (error) {
    if (error instanceof NoKindMatchError) {
      throw errorFrom(messages.olmMissing());
    }
    throw error;
  }
}

export function describeFound(existing: ExistingOlm): string[] {
  return existing.found.map(describeRef);
}

export async function detectOlm(client: KubeClient): Promise<ExistingOlm> {
  const found: ObjectRef[] = [];
  const crds = await client.list("apiextensions.k8s.io/v1", "CustomResourceDefinition", {});
  for (const crd of crds.items.filter((c) => c.spec?.group === OLM_GROUP).sort(byName)) {
    found.push({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name ?? "" });
  }
  const deployments: KubeObject[] = [];
  for (const name of OLM_DEPLOYMENTS) {
    const { items } = await client.list("apps/v1", "Deployment", {
      namespace: "",
      fieldSelector: `metadata.name=${name}`,
    });
    deployments.push(...items.filter((d) => d.metadata.name === name));
  }
  for (const d of deployments)
    found.push({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: d.metadata.namespace,
      name: d.metadata.name ?? "",
    });

  let packageserver: KubeObject | undefined;
  try {
    const { items } = await client.list(`${OLM_GROUP}/v1alpha1`, "ClusterServiceVersion", { namespace: "" });
    const candidates = items.filter(
      (c) =>
        (c.metadata.name === "packageserver" || c.metadata.name?.startsWith("packageserver.")) &&
        !isCopied(c),
    );
    packageserver = candidates.sort(byName)[0];
    for (const c of candidates)
      found.push({
        apiVersion: c.apiVersion,
        kind: c.kind,
        namespace: c.metadata.namespace,
        name: c.metadata.name ?? "",
      });
  } catch (error) {
    if (!isNotFound(error) && !isNoMatch(error)) throw error;
  }
  const existing: ExistingOlm = { found };
  if (packageserver) {
    existing.packageserver = packageserver;
    existing.namespace = packageserver.metadata.namespace;
    const label = packageserver.metadata.labels?.["olm.version"];
    const fromName = packageserver.metadata.name?.startsWith("packageserver.")
      ? packageserver.metadata.name.slice("packageserver.".length)
      : undefined;
    try {
      if (label) existing.version = normalizeVersion(label);
      else if (fromName) existing.version = normalizeVersion(fromName);
    } catch {
      // an odd label leaves the version unknown
    }
  }
  existing.namespace ??= deployments.find((d) => d.metadata.name === "olm-operator")?.metadata.namespace;
  if (deployments.some((d) => d.metadata.namespace === OPENSHIFT_NAMESPACE)) {
    existing.managedBy = { platform: "OpenShift", namespace: OPENSHIFT_NAMESPACE };
  }
  return existing;
}

export function isCopied(csv: KubeObject): boolean {
  return csv.status?.reason === "Copied" || csv.metadata.labels?.["olm.copiedFrom"] !== undefined;
}

function byName(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name ?? ""}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
