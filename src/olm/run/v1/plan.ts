// The exact objects `run bundle --olm v1` creates, computed without touching the cluster: the
// install namespace (when asked), the installer ServiceAccount with the ClusterRole and binding the
// bundle needs (installerRules), the ClusterCatalog naming the pushed catalog image by digest, and
// the ClusterExtension pinned to the bundle's version, selecting only that ClusterCatalog.
// `--dry-run` prints these; execution creates them in this order.
import type { InstallableBundle } from "../../../bundle/load/index.js";
import type { KubeObject } from "../../../kube/objects.js";
import { csvVersion } from "../catalog.js";
import { ANNOTATIONS, dns1123, fitName, runLabels } from "../names.js";
import type { ServedBundle } from "../plan.js";

export const OLM_V1_GROUP = "olm.operatorframework.io";
export const OLM_V1 = `${OLM_V1_GROUP}/v1`;
/** The label catalogd's webhook puts on every ClusterCatalog: its own name. */
export const CATALOG_NAME_LABEL = `${OLM_V1_GROUP}/metadata.name`;
const RBAC = "rbac.authorization.k8s.io/v1";
/** What the installer does to each kind it applies: helm's get/create/update/delete, and the
 * cluster-wide list/watch of operator-controller's content manager (its informers watch every
 * namespace with the ClusterExtension's ServiceAccount: contentmanager.go in v1.2.0). */
const MANAGE = ["create", "delete", "get", "list", "patch", "update", "watch"];

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface V1Names {
  extension: string;
  catalog: string;
  installer: string;
}

export function v1Names(packageName: string): V1Names {
  const pkg = dns1123(packageName);
  return {
    extension: fitName(pkg),
    catalog: fitName(pkg, "-catalog"),
    installer: fitName(pkg, "-installer"),
  };
}

export interface V1PlanInput {
  bundle: InstallableBundle;
  namespace: string;
  runId: string;
  /** The pushed catalog image, image@digest. */
  catalogImage: string;
  createNamespace: boolean;
  /** Every bundle the catalog serves, oldest first (the annotation bundle-upgrade reads back). */
  served?: ServedBundle[];
}

export interface V1Plan {
  namespace: string;
  packageName: string;
  csvName: string;
  version: string;
  namespaceObject?: KubeObject;
  serviceAccount: KubeObject;
  clusterRole: KubeObject;
  clusterRoleBinding: KubeObject;
  clusterCatalog: KubeObject;
  clusterExtension: KubeObject;
}

export function planV1RunBundle(input: V1PlanInput): V1Plan {
  const { bundle, namespace } = input;
  const pkg = bundle.packageName;
  const names = v1Names(pkg);
  const labels = (component: string) => runLabels(pkg, input.runId, component);
  const version = csvVersion(bundle.csv);
  const served = input.served ?? [{ image: bundle.image, csv: bundle.csv.metadata.name ?? "", version }];
  const plan: V1Plan = {
    namespace,
    packageName: pkg,
    csvName: bundle.csv.metadata.name ?? "",
    version,
    serviceAccount: {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: names.installer, namespace, labels: labels("installer") },
    },
    clusterRole: {
      apiVersion: RBAC,
      kind: "ClusterRole",
      metadata: { name: names.installer, labels: labels("installer") },
      rules: installerRules(bundle, names.extension) as unknown as KubeObject["rules"],
    },
    clusterRoleBinding: {
      apiVersion: RBAC,
      kind: "ClusterRoleBinding",
      metadata: { name: names.installer, labels: labels("installer") },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: names.installer },
      subjects: [{ kind: "ServiceAccount", name: names.installer, namespace }],
    },
    clusterCatalog: clusterCatalogObject(pkg, input.catalogImage, served, labels("catalog")),
    clusterExtension: {
      apiVersion: OLM_V1,
      kind: "ClusterExtension",
      metadata: { name: names.extension, labels: labels("extension") },
      spec: {
        namespace,
        serviceAccount: { name: names.installer },
        source: {
          sourceType: "Catalog",
          catalog: {
            packageName: pkg,
            version,
            selector: { matchLabels: { [CATALOG_NAME_LABEL]: names.catalog } },
          },
        },
      },
    },
  };
  if (input.createNamespace)
    plan.namespaceObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, labels: labels("namespace") },
    };
  return plan;
}

export function clusterCatalogObject(
  packageName: string,
  image: string,
  served: ServedBundle[],
  labels: Record<string, string>,
): KubeObject {
  return {
    apiVersion: OLM_V1,
    kind: "ClusterCatalog",
    metadata: {
      name: v1Names(packageName).catalog,
      labels,
      annotations: { [ANNOTATIONS.bundles]: JSON.stringify(served) },
    },
    spec: { source: { type: "Image", image: { ref: image } } },
  };
}

/** Objects in creation order (what --dry-run prints). */
export function planV1Objects(plan: V1Plan): KubeObject[] {
  return [
    ...(plan.namespaceObject ? [plan.namespaceObject] : []),
    plan.serviceAccount,
    plan.clusterRole,
    plan.clusterRoleBinding,
    plan.clusterCatalog,
    plan.clusterExtension,
  ];
}

/**
 * The rules of the ClusterExtension's ServiceAccount, as operator-controller v1.2.0's
 * docs/howto/derive-service-account.md derives them: manage every kind the bundle applies (the
 * CRDs by name), manage the RBAC and ServiceAccounts and Deployments made from the CSV's install
 * strategy, update the ClusterExtension's finalizers (OwnerReferencesPermissionEnforcement), and
 * hold every rule the bundle grants (the CSV's permissions and clusterPermissions, the rules of
 * bundled Roles and ClusterRoles): Kubernetes lets it grant only what it holds. Sorted, deduplicated.
 */
export function installerRules(bundle: InstallableBundle, extensionName: string): PolicyRule[] {
  const managed = new Map<string, Set<string>>([
    ["rbac.authorization.k8s.io", new Set(["clusterrolebindings", "clusterroles", "rolebindings", "roles"])],
    ["", new Set(["serviceaccounts"])],
    ["apps", new Set(["deployments"])],
  ]);
  const crds: string[] = [];
  for (const obj of bundle.objects) {
    if (obj.kind === "ClusterServiceVersion") continue;
    if (obj.kind === "CustomResourceDefinition") {
      crds.push(obj.metadata.name ?? "");
      continue;
    }
    const group = obj.apiVersion.includes("/") ? obj.apiVersion.split("/")[0]! : "";
    if (!managed.has(group)) managed.set(group, new Set());
    managed.get(group)!.add(resourceOf(obj.kind));
  }
  const rules: PolicyRule[] = [...managed]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs: MANAGE }));
  if (crds.length) {
    rules.push(
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        verbs: ["create", "list", "watch"],
      },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        verbs: ["delete", "get", "patch", "update"],
        resourceNames: [...new Set(crds)].sort(),
      },
    );
  }
  rules.push({
    apiGroups: [OLM_V1_GROUP],
    resources: ["clusterextensions/finalizers"],
    verbs: ["update"],
    resourceNames: [extensionName],
  });
  return [...rules, ...dedupe(grantedRules(bundle))];
}

/** Every rule the bundle grants: CSV permissions and clusterPermissions, bundled Roles and ClusterRoles. */
export function grantedRules(bundle: InstallableBundle): PolicyRule[] {
  const install = (bundle.csv.spec?.install as { spec?: Record<string, unknown> } | undefined)?.spec ?? {};
  const stanzas = [
    ...((install.clusterPermissions as Array<{ rules?: unknown[] }> | undefined) ?? []),
    ...((install.permissions as Array<{ rules?: unknown[] }> | undefined) ?? []),
  ];
  const rules = stanzas.flatMap((s) => (s.rules ?? []) as PolicyRule[]);
  for (const obj of bundle.objects)
    if (obj.kind === "ClusterRole" || obj.kind === "Role")
      rules.push(...(((obj as { rules?: unknown[] }).rules ?? []) as PolicyRule[]));
  return rules.map(normalizeRule);
}

function normalizeRule(rule: PolicyRule & { nonResourceURLs?: string[] }): PolicyRule {
  const out: PolicyRule & { nonResourceURLs?: string[] } = {
    apiGroups: [...(rule.apiGroups ?? [])],
    resources: [...(rule.resources ?? [])],
    verbs: [...(rule.verbs ?? [])],
  };
  if (rule.resourceNames?.length) out.resourceNames = [...rule.resourceNames];
  if (rule.nonResourceURLs?.length) out.nonResourceURLs = [...rule.nonResourceURLs];
  return out;
}

function dedupe(rules: PolicyRule[]): PolicyRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A kind's resource name (lower-case plural, as Kubernetes names the kinds a bundle may carry). */
export function resourceOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}
