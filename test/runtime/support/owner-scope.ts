// One scenario about owner scope, run against any API server (tsop/testing in the fast tier, the
// real kube-apiserver + kube-controller-manager in the real tier), returning what it observed so
// both servers can be compared:
//   - the runtime refuses a namespaced owner on a cluster-scoped object (createOrUpdate);
//   - an object written without the helper (ClusterRole owned by a namespaced ConfigMap) is never
//     garbage-collected when its owner goes, and the collector reports OwnerRefInvalidNamespace;
//   - a namespaced dependent and a cluster-scoped dependent of a cluster-scoped owner are collected.
import { Client, type KubeObjectLike } from "../../../src/runtime/client/client.js";
import { createOrUpdate, InvalidOwnerError } from "../../../src/runtime/controllerutil/helpers.js";
import { loadKubeConfig } from "../../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../../src/runtime/connect/mapper.js";
import { RestClient } from "../../../src/runtime/connect/rest.js";
import { waitFor } from "./wait.js";

type Obj = KubeObjectLike & {
  metadata: { name: string; namespace?: string; uid?: string; ownerReferences?: unknown[] };
  [key: string]: unknown;
};

export interface OwnerScopeObservations {
  /** The error createOrUpdate raised for a ClusterRole with a namespaced owner. */
  refused: string;
  /** Whether that ClusterRole reached the server. */
  refusedObjectCreated: boolean;
  /** After the namespaced owner was deleted and its namespaced dependent collected: */
  clusterScopedDependentKept: boolean;
  /** The collector's event about the cluster-scoped dependent (namespace, reason, type, message). */
  event: { namespace: string; reason: string; type: string; message: string; component: string };
  /** A cluster-scoped dependent of a cluster-scoped owner, after that owner was deleted. */
  clusterOwnedDependentCollected: boolean;
}

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const CLUSTER_ROLE = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole" } as const;
const EVENT = { apiVersion: "v1", kind: "Event" } as const;

function ownerRef(owner: Obj) {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
  };
}

/** Runs the scenario; `suffix` keeps names unique per run. Cleans up what it created. */
export async function ownerScopeScenario(
  kubeconfigPath: string,
  suffix: string,
): Promise<OwnerScopeObservations> {
  const loaded = await loadKubeConfig({ kubeconfig: kubeconfigPath });
  const rest = new RestClient(loaded.server, loaded);
  const client = new Client(rest, new RestMapper(rest));
  const ns = `owner-scope-${suffix}`;
  const roleName = `owner-scope-leak-${suffix}`;
  try {
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    const owner = await client.create<Obj>({ ...CM, metadata: { name: "installer", namespace: ns } });

    let refused = "";
    try {
      await createOrUpdate(client, { ...CLUSTER_ROLE, metadata: { name: `refused-${suffix}` } }, () => {}, {
        owner,
      });
    } catch (err) {
      if (!(err instanceof InvalidOwnerError)) throw err;
      refused = err.message;
    }
    const refusedObjectCreated = Boolean(await client.get(CLUSTER_ROLE, { name: `refused-${suffix}` }));

    // What an operator without the check does: the reference is written by hand.
    await client.create({
      ...CLUSTER_ROLE,
      metadata: { name: roleName, ownerReferences: [ownerRef(owner)] },
    });
    await client.create({
      ...CM,
      metadata: { name: "dependent", namespace: ns, ownerReferences: [ownerRef(owner)] },
    });
    await client.delete({ kind: CM, key: { namespace: ns, name: "installer" } });
    await waitFor(
      "the namespaced dependent to be collected",
      async () =>
        (await client.get(CM, { namespace: ns, name: "dependent" })) === undefined ? true : undefined,
      30_000,
    );
    const clusterScopedDependentKept = Boolean(await client.get(CLUSTER_ROLE, { name: roleName }));
    const found = await waitFor(
      "the OwnerRefInvalidNamespace event",
      async () => {
        const events = await client.list<Obj>(EVENT, { namespace: "default" });
        return events.find(
          (e) =>
            e.reason === "OwnerRefInvalidNamespace" &&
            (e.involvedObject as { name?: string }).name === roleName,
        );
      },
      30_000,
    );

    const clusterOwner = await client.create<Obj>({ ...CLUSTER_ROLE, metadata: { name: `owner-${suffix}` } });
    await client.create({
      ...CLUSTER_ROLE,
      metadata: { name: `owned-${suffix}`, ownerReferences: [ownerRef(clusterOwner)] },
    });
    await client.delete({ kind: CLUSTER_ROLE, key: { name: `owner-${suffix}` } });
    const clusterOwnedDependentCollected = await waitFor(
      "the cluster-scoped dependent to be collected",
      async () =>
        (await client.get(CLUSTER_ROLE, { name: `owned-${suffix}` })) === undefined ? true : undefined,
      30_000,
    );

    return {
      refused,
      refusedObjectCreated,
      clusterScopedDependentKept,
      event: {
        namespace: found.metadata.namespace ?? "",
        reason: String(found.reason),
        type: String(found.type),
        message: String(found.message),
        component: String((found.source as { component?: string } | undefined)?.component),
      },
      clusterOwnedDependentCollected,
    };
  } finally {
    await client.delete({ kind: CLUSTER_ROLE, key: { name: roleName } }).catch(() => undefined);
    await client
      .delete({ kind: { apiVersion: "v1", kind: "Namespace" }, key: { name: ns } })
      .catch(() => undefined);
    rest.close();
  }
}
