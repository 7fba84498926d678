// Objects OLM created for its own objects where an ownerReference cannot reach (cluster-scoped, or
// in another namespace): OLM marks them with owner labels (olm.owner, olm.owner.kind,
// olm.owner.namespace) instead, so neither namespace deletion nor the garbage collector removes
// them. Examples: the ClusterRoles of each OperatorGroup (olm.og.<group>.<role>-…), the
// packageserver's auth-delegator ClusterRoleBinding, its APIService and the RoleBinding in
// kube-system that lets it read the authentication ConfigMap. OLM deletes some of them itself from
// event handlers, which race with uninstall stopping OLM's deployments; uninstall removes the rest.
import type { KubeClient } from "../kube/client.js";
import { isNoMatch, isNotFound, type KubeObject, type ObjectRef, refOf } from "../kube/index.js";

/** OLM's label naming the namespace of an object's owner (pkg/lib/ownerutil in OLM). */
export const OWNER_NAMESPACE_LABEL = "olm.owner.namespace";
/** OLM's label on what its install strategy creates (pkg/controller/install in OLM). */
const MANAGED_LABEL = "olm.managed";

/** Kinds OLM labels with an owner instead of an ownerReference. */
const LABELLED_KINDS: Array<{ apiVersion: string; kind: string }> = [
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding" },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role" },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding" },
  { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService" },
  { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration" },
  { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration" },
];

/**
 * Objects labelled as owned by something in `namespaces` (OLM's own namespaces) that live outside
 * them, where deleting the namespaces does not reach. Called once no operator remains, so every
 * owner in those namespaces is part of OLM itself.
 */
export async function ownedOutside(client: KubeClient, namespaces: string[]): Promise<ObjectRef[]> {
  if (namespaces.length === 0) return [];
  const labelSelector = `${OWNER_NAMESPACE_LABEL} in (${namespaces.join(",")})`;
  const inside = new Set(namespaces);
  const out: ObjectRef[] = [];
  const outside = (obj: KubeObject) => !(obj.metadata.namespace && inside.has(obj.metadata.namespace));
  for (const { apiVersion, kind } of LABELLED_KINDS) {
    for (const obj of await listAll(client, apiVersion, kind, labelSelector))
      if (outside(obj)) out.push(refOf(obj));
  }
  // The packageserver's RoleBinding in kube-system carries only olm.managed=true: it is OLM's when
  // it binds nothing but service accounts of OLM's namespaces.
  for (const kind of ["RoleBinding", "ClusterRoleBinding"]) {
    for (const obj of await listAll(client, "rbac.authorization.k8s.io/v1", kind, `${MANAGED_LABEL}=true`)) {
      const subjects = (obj.subjects ?? []) as Array<{ kind?: string; namespace?: string }>;
      const olmOnly =
        subjects.length > 0 &&
        subjects.every((s) => s.kind === "ServiceAccount" && inside.has(s.namespace ?? ""));
      if (olmOnly && outside(obj) && !out.some((r) => sameRef(r, refOf(obj)))) out.push(refOf(obj));
    }
  }
  return out;
}

async function listAll(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  labelSelector: string,
): Promise<KubeObject[]> {
  try {
    return (await client.list(apiVersion, kind, { namespace: "", labelSelector })).items;
  } catch (error) {
    // A cluster without the API (e.g. no aggregation layer) has nothing of that kind.
    if (isNotFound(error) || isNoMatch(error)) return [];
    throw error;
  }
}

function sameRef(a: ObjectRef, b: ObjectRef): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "");
}
