// Finds an existing OLM v1 anywhere in the cluster: the olm.operatorframework.io CRDs and the
// catalogd and operator-controller Deployments in any namespace. Their images' tags give the
// version (upstream's releases name their images by tag, as tsop's asset does).
import type { KubeClient } from "../../kube/client.js";
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import { OLM_V1_DEPLOYMENTS, OLM_V1_GROUP, type OlmV1Components } from "./release.js";

export interface ExistingOlmV1 {
  found: ObjectRef[];
  /** Each component's version from its image tag; absent when not found or named by digest. */
  components: Partial<OlmV1Components>;
}

export async function detectOlmV1(client: KubeClient): Promise<ExistingOlmV1> {
  const found: ObjectRef[] = [];
  const crds = await client.list("apiextensions.k8s.io/v1", "CustomResourceDefinition", {});
  for (const crd of crds.items.filter((c) => c.spec?.group === OLM_V1_GROUP).sort(byName))
    found.push({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name ?? "" });
  const components: Partial<OlmV1Components> = {};
  for (const [component, name] of Object.entries(OLM_V1_DEPLOYMENTS) as Array<
    [keyof OlmV1Components, string]
  >) {
    const { items } = await client.list("apps/v1", "Deployment", {
      namespace: "",
      fieldSelector: `metadata.name=${name}`,
    });
    for (const d of items.filter((i) => i.metadata.name === name).sort(byName)) {
      found.push({ apiVersion: "apps/v1", kind: "Deployment", namespace: d.metadata.namespace, name });
      const tag = imageTag(d);
      if (tag && !components[component]) components[component] = tag;
    }
  }
  return { found, components };
}

/** The tag of the manager container's image ("v1.2.0"), or undefined for a digest or no tag. */
export function imageTag(deployment: KubeObject): string | undefined {
  const containers = (deployment.spec?.template?.spec?.containers ?? []) as Array<{
    name?: string;
    image?: string;
  }>;
  const image = (containers.find((c) => c.name === "manager") ?? containers[0])?.image ?? "";
  if (image.includes("@")) return undefined;
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  return colon > slash ? image.slice(colon + 1) : undefined;
}

function byName(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name ?? ""}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
