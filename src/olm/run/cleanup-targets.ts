// What `tsop cleanup <package>` removes, found by reading only: what tsop created for the package
// (labelled Subscriptions, CatalogSources, registry Pods/Services, catalog ConfigMaps, its
// OperatorGroup when nothing else needs it), what OLM made from it (InstallPlans, the package's CSVs,
// their cluster RBAC) and the CRDs the CSVs own, or an earlier cleanup kept and labelled with the
// package (only with --delete-crds, never ones another operator owns or requires). Each step adds
// to one CleanupTargets; cleanup.ts deletes them.
import type { KubeClient } from "../../kube/client.js";
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import { describeRef, refOf } from "../../kube/objects.js";
import { listIn } from "../../kube/list.js";
import { parseCatalog, unpackPayload } from "./catalog.js";
import { LABELS, MANAGED_BY, packageSelector, V1, V1ALPHA1 } from "./names.js";
import { servedBundles } from "./plan.js";

export interface CleanupItem {
  kind: string;
  namespace?: string;
  name: string;
  action: "deleted" | "would delete" | "kept";
  reason?: string;
}

export interface CleanupTargets {
  /** What to delete, in discovery order (cleanup sorts it with the shared delete order). */
  targets: ObjectRef[];
  kept: CleanupItem[];
  /** OperatorGroups being deleted: OLM's ClusterRoles for them are swept afterwards. */
  deletedGroups: string[];
  /** CRDs being deleted: their custom resources go first. */
  crdsToDelete: KubeObject[];
  /** The package's own CRDs kept (no --delete-crds): labelled with the package, for a later run. */
  keptOwnedCrds: string[];
}

/** The package's CSVs in the namespace and what they share with the rest of the cluster. */
interface PackageCsvs {
  names: Set<string>;
  csvs: KubeObject[];
  all: KubeObject[];
}

export const CRD = "apiextensions.k8s.io/v1";

export async function findCleanupTargets(
  client: KubeClient,
  pkg: string,
  namespace: string,
  deleteCrds: boolean,
): Promise<CleanupTargets> {
  const found: CleanupTargets = {
    targets: [],
    kept: [],
    deletedGroups: [],
    crdsToDelete: [],
    keptOwnedCrds: [],
  };
  const selector = packageSelector(pkg);
  const subs = (await listIn(client, V1ALPHA1, "Subscription", namespace, selector)).filter(
    (s) => !s.spec?.name || s.spec.name === pkg,
  );
  const catalogs = await listIn(client, V1ALPHA1, "CatalogSource", namespace, selector);
  found.targets.push(...subs.map(refOf), ...catalogs.map(refOf));
  for (const kind of ["Pod", "Service", "ConfigMap"])
    found.targets.push(...(await listIn(client, "v1", kind, namespace, selector)).map(refOf));
  const subNames = new Set(subs.map((s) => s.metadata.name ?? ""));
  const others = (await listIn(client, V1ALPHA1, "Subscription", namespace)).filter(
    (s) => !subNames.has(s.metadata.name ?? ""),
  );
  found.targets.push(...(await installPlansOf(client, namespace, subNames)));
  const csvs = await packageCsvs(client, pkg, namespace, subs, catalogs, others);
  found.targets.push(...csvs.csvs.map(refOf));
  found.targets.push(...(await clusterRbacOf(client, pkg, namespace, csvs.names)));
  // Another install of these CSVs elsewhere shares the bundle's cluster-scoped objects.
  const elsewhere = csvs.all.some(
    (c) => c.metadata.namespace !== namespace && csvs.names.has(c.metadata.name ?? "") && !isCopy(c),
  );
  if (!elsewhere) found.targets.push(...(await bundleClusterRbac(client, pkg, namespace, selector)));
  await addOperatorGroups(client, namespace, others, found);
  await addCrds(client, csvs, await keptCrdsOf(client, pkg), deleteCrds, found);
  return found;
}

/**
 * The package's CRDs an earlier cleanup kept: OLM's labels go with the install, so cleanup labels
 * them with the package (KEPT_CRD_LABEL) and `cleanup --delete-crds` can still find them.
 */
export const KEPT_CRD_LABEL = LABELS.package;

async function keptCrdsOf(client: KubeClient, pkg: string): Promise<KubeObject[]> {
  return listIn(client, CRD, "CustomResourceDefinition", "", `${KEPT_CRD_LABEL}=${pkg}`);
}

/** InstallPlans OLM made for the package's Subscriptions (owned by them). */
async function installPlansOf(client: KubeClient, namespace: string, subNames: Set<string>) {
  return (await listIn(client, V1ALPHA1, "InstallPlan", namespace))
    .filter((ip) =>
      (ip.metadata.ownerReferences ?? []).some((o) => o.kind === "Subscription" && subNames.has(o.name)),
    )
    .map(refOf);
}

/** A CSV OLM copied into a target namespace (goes with the original). */
function isCopy(csv: KubeObject): boolean {
  return Boolean(csv.metadata.labels?.["olm.copiedFrom"]);
}

/**
 * The package's CSVs: those the Subscriptions installed or the catalogs serve, and those a partial
 * cleanup left without Subscription or catalog (OLM records the package in the CSV's properties),
 * unless a Subscription tsop did not create still uses them.
 */
async function packageCsvs(
  client: KubeClient,
  pkg: string,
  namespace: string,
  subs: KubeObject[],
  catalogs: KubeObject[],
  others: KubeObject[],
): Promise<PackageCsvs> {
  const names = new Set<string>();
  for (const s of subs) for (const n of [s.status?.installedCSV, s.status?.currentCSV]) if (n) names.add(n);
  for (const c of catalogs) for (const b of servedBundles(c)) names.add(b.csv);
  const all = await listIn(client, V1ALPHA1, "ClusterServiceVersion", "");
  const foreign = new Set(
    others.flatMap((s) => [s.status?.installedCSV, s.status?.currentCSV]).filter(Boolean),
  );
  for (const c of all) {
    if (c.metadata.namespace === namespace && packageOf(c) === pkg && !foreign.has(c.metadata.name))
      names.add(c.metadata.name ?? "");
  }
  const csvs = all.filter(
    (c) => c.metadata.namespace === namespace && names.has(c.metadata.name ?? "") && !isCopy(c),
  );
  return { names, csvs, all };
}

/** The OperatorGroup only if tsop created it and no other Subscription in the namespace needs it. */
async function addOperatorGroups(
  client: KubeClient,
  namespace: string,
  others: KubeObject[],
  found: CleanupTargets,
): Promise<void> {
  const groups = (await listIn(client, V1, "OperatorGroup", namespace)).filter(
    (g) => g.metadata.labels?.[LABELS.managedBy] === MANAGED_BY,
  );
  for (const g of groups) {
    if (others.length === 0) {
      found.targets.push(refOf(g));
      found.deletedGroups.push(g.metadata.name ?? "");
    } else
      found.kept.push({
        ...item(refOf(g), "kept"),
        reason: `still used by Subscription(s) ${others.map((s) => s.metadata.name).join(", ")}`,
      });
  }
}

/** CRDs: owned by the package's CSVs or kept by an earlier cleanup, not used by another operator's CSV. */
async function addCrds(
  client: KubeClient,
  csvs: PackageCsvs,
  kept: KubeObject[],
  deleteCrds: boolean,
  found: CleanupTargets,
): Promise<void> {
  const owned = new Set([
    ...csvs.csvs.flatMap((c) => crdNames(c, "owned")),
    ...kept.map((c) => c.metadata.name ?? ""),
  ]);
  const usedElsewhere = new Set(
    csvs.all
      .filter(
        (c) =>
          !csvs.csvs.some((m) => m.metadata.uid === c.metadata.uid) &&
          !isCopy(c) &&
          !csvs.names.has(c.metadata.name ?? ""),
      )
      .flatMap((c) => [...crdNames(c, "owned"), ...crdNames(c, "required")]),
  );
  for (const name of [...owned].sort()) {
    const ref: ObjectRef = { apiVersion: CRD, kind: "CustomResourceDefinition", name };
    const crd = await client.get(ref);
    if (!crd) continue;
    if (usedElsewhere.has(name))
      found.kept.push({ ...item(ref, "kept"), reason: "another operator's CSV owns or requires it" });
    else if (deleteCrds) {
      found.targets.push(ref);
      found.crdsToDelete.push(crd);
    } else {
      found.kept.push({
        ...item(ref, "kept"),
        reason: "owned CRD; pass --delete-crds to delete it (and every custom resource of it)",
      });
      found.keptOwnedCrds.push(name);
    }
  }
}

/**
 * The packages present in the namespace (Subscriptions, CSVs, tsop's catalogs) and those whose CRDs
 * an earlier cleanup kept: what a package name not found is compared with.
 */
export async function packagesPresent(client: KubeClient, namespace: string): Promise<string[]> {
  const names = new Set<string>();
  for (const s of await listIn(client, V1ALPHA1, "Subscription", namespace))
    if (s.spec?.name) names.add(s.spec.name);
  for (const c of await listIn(client, V1ALPHA1, "ClusterServiceVersion", namespace)) {
    const pkg = isCopy(c) ? undefined : packageOf(c);
    if (pkg) names.add(pkg);
  }
  for (const c of await listIn(client, V1ALPHA1, "CatalogSource", namespace)) {
    const pkg = c.metadata.labels?.[LABELS.package];
    if (pkg) names.add(pkg);
  }
  for (const crd of await listIn(client, CRD, "CustomResourceDefinition", "", KEPT_CRD_LABEL)) {
    const pkg = crd.metadata.labels?.[KEPT_CRD_LABEL];
    if (pkg) names.add(pkg);
  }
  return [...names].sort();
}

/** OLM's label on every component of an installed operator (operators.coreos.com/<pkg>.<ns>). */
export function componentLabel(pkg: string, namespace: string): string {
  return `operators.coreos.com/${`${pkg}.${namespace}`.slice(0, 63)}`;
}

/**
 * Cluster-scoped RBAC that OLM made for the package's CSVs (clusterPermissions, and ClusterRoles
 * or bindings shipped in the bundle): labelled with the CSV as owner or with the operator's
 * component label. Namespaced objects carry ownerReferences to the CSV and go with it.
 */
async function clusterRbacOf(
  client: KubeClient,
  pkg: string,
  namespace: string,
  csvNames: Set<string>,
): Promise<ObjectRef[]> {
  const component = componentLabel(pkg, namespace);
  const refs: ObjectRef[] = [];
  for (const kind of ["ClusterRole", "ClusterRoleBinding"]) {
    for (const obj of await listIn(client, "rbac.authorization.k8s.io/v1", kind, "")) {
      const labels = obj.metadata.labels ?? {};
      const ownedByCsv =
        labels["olm.owner.kind"] === "ClusterServiceVersion" &&
        labels["olm.owner.namespace"] === namespace &&
        csvNames.has(labels["olm.owner"] ?? "");
      const isComponent = component in labels && labels["olm.owner.kind"] !== "OperatorGroup";
      if (ownedByCsv || isComponent) refs.push(refOf(obj));
    }
  }
  return refs;
}

/**
 * ClusterRoles and ClusterRoleBindings shipped in the bundles tsop's catalog serves (read back from
 * its ConfigMaps) that OLM created: OLM labels them only olm.managed=true and leaves them behind
 * when the CSV goes.
 */
async function bundleClusterRbac(
  client: KubeClient,
  pkg: string,
  namespace: string,
  selector: string,
): Promise<ObjectRef[]> {
  const texts: string[] = [];
  for (const cm of await listIn(client, "v1", "ConfigMap", namespace, selector)) {
    for (const payload of Object.values((cm.binaryData ?? {}) as Record<string, string>)) {
      try {
        texts.push(unpackPayload(payload));
      } catch {
        // Not a catalog payload.
      }
    }
  }
  const refs: ObjectRef[] = [];
  for (const bundle of parseCatalog(texts, pkg).bundles) {
    for (const p of (bundle.properties ?? []) as Array<{ type?: string; value?: { data?: string } }>) {
      if (p.type !== "olm.bundle.object" || !p.value?.data) continue;
      const obj = JSON.parse(Buffer.from(p.value.data, "base64").toString("utf8")) as KubeObject;
      if (obj.kind !== "ClusterRole" && obj.kind !== "ClusterRoleBinding") continue;
      const ref = {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: obj.kind,
        name: obj.metadata.name ?? "",
      };
      const live = await client.get(ref).catch(() => undefined);
      if (live?.metadata.labels?.["olm.managed"] === "true") refs.push(ref);
    }
  }
  return refs;
}

/** The package OLM recorded in the CSV's properties annotation, if any. */
function packageOf(csv: KubeObject): string | undefined {
  try {
    const parsed = JSON.parse(csv.metadata.annotations?.["operatorframework.io/properties"] ?? "{}") as {
      properties?: Array<{ type?: string; value?: { packageName?: string } }>;
    };
    return parsed.properties?.find((p) => p.type === "olm.package")?.value?.packageName;
  } catch {
    return undefined;
  }
}

function crdNames(csv: KubeObject, which: "owned" | "required"): string[] {
  return ((csv.spec?.customresourcedefinitions?.[which] ?? []) as Array<{ name?: string }>)
    .map((d) => d.name ?? "")
    .filter(Boolean);
}

export function item(ref: ObjectRef, action: CleanupItem["action"]): CleanupItem {
  const out: CleanupItem = { kind: ref.kind, name: ref.name, action };
  if (ref.namespace) out.namespace = ref.namespace;
  return out;
}

export function describeItem(i: CleanupItem): string {
  return describeRef({ apiVersion: "", kind: i.kind, name: i.name, namespace: i.namespace });
}
