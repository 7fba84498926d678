// packageserver (§6.8): one PackageManifest per (catalog, package) of every READY catalog, while
// the packageserver CSV is Succeeded. Real OLM serves them through an aggregated API; the model
// registers a CRD packagemanifests.packages.operators.coreos.com and writes objects instead
// (simplification: no rewriting of global-namespace packages into each namespace).
import type { KubeObject } from "../../../src/kube/objects.js";
import { catalogContent, catalogReady } from "./catalog.js";
import type { ModelContext } from "./context.js";

export const PACKAGES_GROUP = "packages.operators.coreos.com";
const CRD_NAME = `packagemanifests.${PACKAGES_GROUP}`;

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: CRD_NAME, labels: { "olm.managed": "true", "olm.model": "packageserver" } },
  spec: {
    group: PACKAGES_GROUP,
    names: {
      kind: "PackageManifest",
      listKind: "PackageManifestList",
      plural: "packagemanifests",
      singular: "packagemanifest",
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
};

export async function syncPackageManifests(ctx: ModelContext, serving: boolean): Promise<void> {
  const registered = ctx.snap.crds.find((c) => c.metadata.name === CRD_NAME);
  if (!serving) {
    if (registered && !registered.metadata.deletionTimestamp)
      await ctx.client.delete({ apiVersion: crd.apiVersion, kind: crd.kind, name: CRD_NAME });
    return;
  }
  if (!registered) {
    await ctx.client.apply(crd as unknown as KubeObject, "olm");
    ctx.wakeAt(ctx.now + 50);
    return;
  }
  const established = ((registered.status?.conditions ?? []) as Array<{ type: string; status: string }>).some(
    (c) => c.type === "Established" && c.status === "True",
  );
  if (!established) {
    ctx.wakeAt(ctx.now + 50);
    return;
  }
  const wanted = new Map<string, KubeObject>();
  for (const cs of ctx.snap.catalogs.filter(catalogReady)) {
    const content = catalogContent(ctx, cs);
    for (const pkg of content.packages.values()) {
      const channels = [...pkg.channels.entries()]
        .map(([name]) => {
          const head = content.head(pkg.name, name);
          const bundle = head ? content.bundles.get(head.name) : undefined;
          const csv = bundle?.objects.find((o) => o.kind === "ClusterServiceVersion") as
            KubeObject | undefined;
          if (!head) return undefined;
          return {
            name,
            currentCSV: head.name,
            currentCSVDesc: {
              displayName: csv?.spec?.displayName,
              version: csv?.spec?.version ?? bundle?.version,
              provider: csv?.spec?.provider,
              installModes: csv?.spec?.installModes,
              customresourcedefinitions: csv?.spec?.customresourcedefinitions,
            },
            entries: (pkg.channels.get(name) ?? []).map((e) => ({
              name: e.name,
              version: content.bundles.get(e.name)?.version,
            })),
          };
        })
        .filter((c) => c !== undefined)
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      if (channels.length === 0) continue;
      const namespace = cs.metadata.namespace ?? "";
      wanted.set(`${namespace}/${pkg.name}`, {
        apiVersion: `${PACKAGES_GROUP}/v1`,
        kind: "PackageManifest",
        metadata: {
          name: pkg.name,
          namespace,
          labels: {
            ...(cs.metadata.labels ?? {}),
            catalog: cs.metadata.name ?? "",
            "catalog-namespace": namespace,
            "operatorframework.io/os.linux": "supported",
            "operatorframework.io/arch.amd64": "supported",
          },
        },
        status: {
          catalogSource: cs.metadata.name,
          catalogSourceDisplayName: cs.spec?.displayName,
          catalogSourcePublisher: cs.spec?.publisher,
          catalogSourceNamespace: namespace,
          packageName: pkg.name,
          defaultChannel: pkg.defaultChannel ?? channels[0]?.name,
          channels,
        },
      });
    }
  }
  const { items } = await ctx.client.list(`${PACKAGES_GROUP}/v1`, "PackageManifest", { namespace: "" });
  for (const item of items) {
    const k = `${item.metadata.namespace}/${item.metadata.name}`;
    const want = wanted.get(k);
    if (!want) {
      await ctx.client.delete({
        apiVersion: item.apiVersion,
        kind: item.kind,
        namespace: item.metadata.namespace,
        name: item.metadata.name ?? "",
      });
    } else if (JSON.stringify(item.status) !== JSON.stringify(JSON.parse(JSON.stringify(want.status)))) {
      // No status subresource: the object is read-only for users, like the real aggregated API.
      await ctx.client.mergePatch(
        {
          apiVersion: item.apiVersion,
          kind: item.kind,
          namespace: item.metadata.namespace,
          name: item.metadata.name ?? "",
        },
        { status: want.status },
      );
    }
    wanted.delete(k);
  }
  for (const obj of wanted.values()) await ctx.client.create(obj);
}
