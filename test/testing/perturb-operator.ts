// The operator perturb.test.ts runs: a Memcached whose data lives in a ConfigMap in another
// namespace (so no owner reference can clean it up), a one-off init marker, and status.origin
// ("adopted" when a restored ConfigMap was there first). It is correct as written; each planted
// bug is one of the kinds Sieve reports, switched on by name.
import {
  type Client,
  type Condition,
  createOrUpdate,
  isAlreadyExists,
  type KubeObjectLike,
  type Manager,
  mergeFrom,
  type ReconcileContext,
  type Request,
  setCondition,
} from "../../src/runtime/index.js";
import type { PerturbOptions, PerturbStep } from "../../src/testing/index.js";

export type PlantedBug = "staleRead" | "unreportedAlreadyExists" | "missedDeletion" | "nonIdempotentCreate";

export const MEMCACHED = { apiVersion: "perturb.example.com/v1", kind: "Memcached" } as const;
export const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
/** Where each Memcached's data ConfigMap lives: not its namespace, so no owner reference. */
export const DATA_NAMESPACE = "memcached-data";
const OWNER_NAMESPACE = "perturb.example.com/owner-namespace";
const OWNER_NAME = "perturb.example.com/owner-name";
/** On the data this operator created or adopted (a restored backup has not been adopted yet). */
const MANAGED = "perturb.example.com/managed";

interface Memcached extends KubeObjectLike {
  metadata: { name: string; namespace: string; uid?: string; resourceVersion?: string; generation?: number };
  spec: { size: number; version: string };
  status?: { origin?: string; initialized?: boolean; conditions?: Condition[] };
}

interface ConfigMap extends KubeObjectLike {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** The data ConfigMap of a Memcached at its version (a new version is a new ConfigMap). */
export const dataName = (namespace: string, name: string, version: string) =>
  `${namespace}.${name}-${version}`;

export const MEMCACHED_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "memcacheds.perturb.example.com" },
  spec: {
    group: "perturb.example.com",
    names: { kind: "Memcached", listKind: "MemcachedList", plural: "memcacheds", singular: "memcached" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

export async function arrange(admin: Client): Promise<void> {
  await admin.create(MEMCACHED_CRD);
  await admin.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: DATA_NAMESPACE } });
}

const restoredData = (version: string, size: number) => ({
  ...CONFIGMAP,
  metadata: {
    name: dataName("default", "cache", version),
    namespace: DATA_NAMESPACE,
    labels: { [OWNER_NAMESPACE]: "default", [OWNER_NAME]: "cache" },
  },
  data: { size: String(size) },
});

const memcached = (size: number, version: string) => ({
  ...MEMCACHED,
  metadata: { name: "cache", namespace: "default" },
  spec: { size, version },
});

/** Create, delete, then a restore from backup at a new version: the data before the Memcached. */
export const STEPS: PerturbStep[] = [
  { name: "create the Memcached at v1", run: (admin) => admin.create(memcached(1, "v1")) },
  { name: "delete it", run: (admin) => admin.delete(memcached(0, "")) },
  { name: "restore the v2 data from a backup", run: (admin) => admin.create(restoredData("v2", 3)) },
  { name: "restore the Memcached at v2", run: (admin) => admin.create(memcached(3, "v2")) },
];

export const KINDS = [MEMCACHED, CONFIGMAP];

/** perturb()'s options for this operator, with at most one planted bug. */
export const options = (bug?: PlantedBug): PerturbOptions => ({
  controllers: controllers(bug),
  arrange,
  steps: STEPS,
  kinds: KINDS,
  maxRestarts: 3,
});

/** The controllers as a main.ts registers them, with at most one planted bug. */
export function controllers(bug?: PlantedBug) {
  return (manager: Manager) =>
    manager
      .controller(MEMCACHED)
      .watches(CONFIGMAP, (cm) => {
        const labels = (cm as ConfigMap).metadata.labels ?? {};
        const name = labels[OWNER_NAME];
        return name
          ? { namespace: labels[OWNER_NAMESPACE] ?? (cm as ConfigMap).metadata.namespace, name }
          : undefined;
      })
      .complete((request, ctx) => reconcile(request, ctx, bug));
}

async function reconcile(request: Request, ctx: ReconcileContext, bug?: PlantedBug): Promise<void> {
  const { client } = ctx;
  const mc = await client.get<Memcached>(MEMCACHED, request);
  if (!mc) {
    // Bug (b): clean up only when a reconcile finds the object gone, i.e. when its deletion was seen.
    if (bug === "missedDeletion") await deleteData(client, (cm) => ownedBy(cm, request));
    else await deleteOrphans(client);
    return;
  }
  if (!mc.status?.origin) {
    // An answer recorded once must come from the server: bug (a) decides on the cache's view.
    const reader = bug === "staleRead" ? client : client.apiReader;
    const restored = await reader.get(CONFIGMAP, {
      namespace: DATA_NAMESPACE,
      name: dataName(request.namespace, request.name, mc.spec.version),
    });
    await patchStatus(
      client,
      mc,
      (m) => (m.status = { ...m.status, origin: restored ? "adopted" : "created" }),
    );
  }
  if (!mc.status?.initialized) {
    // A record of the first initialisation, kept when the Memcached goes (no owner reference).
    const marker = {
      ...CONFIGMAP,
      metadata: { namespace: request.namespace, labels: { [OWNER_NAME]: request.name } },
      data: { note: "initialized once" },
    };
    // Bug (c): a generated name makes the create different every time it runs again.
    if (bug === "nonIdempotentCreate")
      await client.create({
        ...marker,
        metadata: { ...marker.metadata, generateName: `${request.name}-init-` },
      });
    else
      await client
        .create({ ...marker, metadata: { ...marker.metadata, name: `${request.name}-init` } })
        .catch((e: unknown) => {
          if (!isAlreadyExists(e)) throw e;
        });
    await patchStatus(client, mc, (m) => (m.status = { ...m.status, initialized: true }));
  }
  const data = {
    ...CONFIGMAP,
    metadata: {
      name: dataName(request.namespace, request.name, mc.spec.version),
      namespace: DATA_NAMESPACE,
      labels: { [OWNER_NAMESPACE]: request.namespace, [OWNER_NAME]: request.name, [MANAGED]: "true" },
    },
    data: { size: String(mc.spec.size) },
  };
  // Bug (a'): the cache does not show the data yet, so create it: AlreadyExists, and nobody is told.
  if (bug === "unreportedAlreadyExists" && !(await client.get(CONFIGMAP, data.metadata)))
    await client.create(data);
  try {
    await createOrUpdate<ConfigMap>(
      client,
      {
        ...CONFIGMAP,
        metadata: {
          name: dataName(request.namespace, request.name, mc.spec.version),
          namespace: DATA_NAMESPACE,
          labels: { [OWNER_NAMESPACE]: request.namespace, [OWNER_NAME]: request.name },
        },
      },
      (cm) => {
        cm.metadata.labels = { ...cm.metadata.labels, [MANAGED]: "true" };
        cm.data = { size: String(mc.spec.size) };
      },
    );
    if (bug !== "missedDeletion") await deleteOrphans(client);
  } catch (error) {
    await patchStatus(client, mc, (m) =>
      setCondition(m, {
        type: "Ready",
        status: "False",
        reason: "DataFailed",
        message: (error as Error).message,
      }),
    );
    throw error;
  }
  await patchStatus(client, mc, (m) =>
    setCondition(m, { type: "Ready", status: "True", reason: "Reconciled" }),
  );
}

/** Deletes the data no Memcached wants any more (a re-list, so no deletion can be missed). */
async function deleteOrphans(client: Client): Promise<void> {
  const wanted = new Set(
    (await client.list<Memcached>(MEMCACHED)).map((m) =>
      dataName(m.metadata.namespace, m.metadata.name, m.spec.version),
    ),
  );
  await deleteData(client, (cm) => !wanted.has(cm.metadata.name));
}

async function deleteData(client: Client, which: (cm: ConfigMap) => boolean): Promise<void> {
  for (const cm of await client.list<ConfigMap>(CONFIGMAP, { namespace: DATA_NAMESPACE })) {
    if (cm.metadata.labels?.[MANAGED] && which(cm)) await client.delete(cm).catch(() => undefined);
  }
}

function ownedBy(cm: ConfigMap, request: Request): boolean {
  const labels = cm.metadata.labels ?? {};
  return labels[OWNER_NAMESPACE] === request.namespace && labels[OWNER_NAME] === request.name;
}

async function patchStatus(client: Client, mc: Memcached, change: (m: Memcached) => unknown): Promise<void> {
  const base = structuredClone(mc);
  change(mc);
  const patch = mergeFrom(base);
  if (Object.keys(patch.data(mc) as object).length === 0) return;
  await client.patchStatus(mc, patch);
}
