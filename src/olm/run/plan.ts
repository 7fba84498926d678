// The exact objects a run creates, computed without touching the cluster: catalog ConfigMaps, the
// registry Pod and its Service, the CatalogSource, the OperatorGroup (when needed), the
// Subscription (Manual approval, startingCSV); for bundle-upgrade, the new registry objects and the
// CatalogSource switched to them. `--dry-run` prints these plans; execution creates them. The
// served-bundles annotation is written (catalogAnnotations) and read back (servedBundles) here.
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import type { InstallableBundle as LoadedBundle } from "../../bundle/load/index.js";
import {
  type CatalogContent,
  csvVersion,
  partitionCatalog,
  serializeCatalog,
  withUpgrade,
} from "./catalog.js";
import type { ResolvedInstallMode } from "./install-mode.js";
import {
  ANNOTATIONS,
  LABELS,
  OPERATOR_GROUP_NAME,
  runLabels,
  runNames,
  shortHash,
  V1,
  V1ALPHA1,
} from "./names.js";

export type SecurityContextConfig = "restricted" | "legacy";

export interface CatalogOptions {
  namespace: string;
  runId: string;
  indexImage: string;
  initImage: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContext: SecurityContextConfig;
  /** Payload limit per ConfigMap (tests lower it to exercise splitting). */
  payloadLimit?: number;
}

export interface ServedBundle {
  image: string;
  csv: string;
  version: string;
}

export interface CatalogObjects {
  revision: string;
  configMaps: KubeObject[];
  pod: KubeObject;
  service: KubeObject;
  /** host:port OLM connects to. */
  address: string;
}

const CATALOG_KEY = "catalog.yaml.gz";
const CONFIGS_DIR = "/configs";
const GRPC_PORT = 50051;

/** ConfigMaps, registry Pod and Service serving `content`; names carry a hash of what they serve. */
export function catalogObjects(content: CatalogContent, options: CatalogOptions): CatalogObjects {
  const documents = serializeCatalog(content);
  const podInputs = [
    options.indexImage,
    options.initImage,
    options.securityContext,
    options.serviceAccount ?? "",
    options.pullSecretName ?? "",
  ];
  const revision = shortHash([...documents, ...podInputs].join("\0"));
  const names = runNames(content.packageName);
  const payloads = partitionCatalog(documents, options.payloadLimit);
  const labels = (component: string): Record<string, string> => ({
    ...runLabels(content.packageName, options.runId, component),
    [LABELS.revision]: revision,
  });
  const configMaps: KubeObject[] = payloads.map((payload, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: names.configMap(revision, i + 1),
      namespace: options.namespace,
      labels: labels("catalog-content"),
      annotations: { "olm.contentEncoding": "gzip+base64" },
    },
    binaryData: { [CATALOG_KEY]: payload.toString("base64") },
  }));
  const registryName = names.registry(revision);
  const podLabels = labels("registry");
  const pod = registryPod(registryName, podLabels, configMaps, options);
  const service: KubeObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: registryName, namespace: options.namespace, labels: labels("registry") },
    spec: {
      selector: {
        [LABELS.package]: podLabels[LABELS.package] as string,
        [LABELS.component]: "registry",
        [LABELS.revision]: revision,
      },
      ports: [{ name: "grpc", port: GRPC_PORT, targetPort: GRPC_PORT, protocol: "TCP" }],
    },
  };
  return {
    revision,
    configMaps,
    pod,
    service,
    address: `${registryName}.${options.namespace}.svc:${GRPC_PORT}`,
  };
}

function registryPod(
  name: string,
  labels: Record<string, string>,
  configMaps: KubeObject[],
  options: CatalogOptions,
): KubeObject {
  const restricted = options.securityContext === "restricted";
  // Pod Security "restricted" for every container, init container included (operator-sdk leaves it out).
  const containerSecurity = restricted
    ? {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
      }
    : undefined;
  // No fixed runAsUser: OpenShift's restricted-v2 SCC rejects one outside the namespace's UID range
  // (and assigns one itself); elsewhere the image's numeric USER (1001 in opm's image) applies.
  const podSecurity = restricted
    ? { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } }
    : undefined;
  const resources = { requests: { cpu: "10m", memory: "50Mi" } };
  const cmVolumes = configMaps.map((cm, i) => ({
    name: `catalog-part-${i + 1}`,
    configMap: { name: cm.metadata.name, items: [{ key: CATALOG_KEY, path: CATALOG_KEY }] },
  }));
  // Unpacks every /compressed/<part>/catalog.yaml.gz into /configs/<part>/catalog.yaml for opm serve.
  const script = [
    "set -eu",
    "for part in /compressed/*; do",
    // shell parameter expansion, not a template
    '  name="${part##*/}"',
    `  mkdir -p "${CONFIGS_DIR}/$name"`,
    `  gzip -dc "$part/${CATALOG_KEY}" > "${CONFIGS_DIR}/$name/catalog.yaml"`,
    "done",
  ].join("\n");
  const initContainer: Record<string, unknown> = {
    name: "unpack-catalog",
    image: options.initImage,
    command: ["sh", "-c", script],
    volumeMounts: [
      ...cmVolumes.map((v) => ({ name: v.name, mountPath: `/compressed/${v.name}`, readOnly: true })),
      { name: "catalog", mountPath: CONFIGS_DIR },
    ],
    resources,
  };
  const container: Record<string, unknown> = {
    name: "registry-grpc",
    image: options.indexImage,
    command: ["/bin/opm"],
    // No --cache-dir: with one, opm (v1.47) enforces a cache built beforehand and exits at once
    // ("integrity check failed"); without, it builds its cache under $TMPDIR (the /tmp volume).
    args: ["serve", CONFIGS_DIR, "-p", String(GRPC_PORT)],
    ports: [{ name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" }],
    // Ready means opm answers gRPC health checks, not merely that the process started.
    readinessProbe: { grpc: { port: GRPC_PORT }, initialDelaySeconds: 1, periodSeconds: 5 },
    volumeMounts: [
      { name: "catalog", mountPath: CONFIGS_DIR, readOnly: true },
      { name: "tmp", mountPath: "/tmp" },
    ],
    resources,
  };
  if (containerSecurity) {
    initContainer.securityContext = containerSecurity;
    container.securityContext = containerSecurity;
  }
  const spec: Record<string, unknown> = {
    initContainers: [initContainer],
    containers: [container],
    volumes: [...cmVolumes, { name: "catalog", emptyDir: {} }, { name: "tmp", emptyDir: {} }],
    restartPolicy: "Always",
  };
  if (podSecurity) spec.securityContext = podSecurity;
  if (options.serviceAccount) spec.serviceAccountName = options.serviceAccount;
  if (options.pullSecretName) spec.imagePullSecrets = [{ name: options.pullSecretName }];
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: options.namespace, labels }, spec };
}

export function catalogSourceObject(
  packageName: string,
  served: ServedBundle[],
  catalog: CatalogObjects,
  options: CatalogOptions,
): KubeObject {
  const spec: Record<string, unknown> = {
    sourceType: "grpc",
    address: catalog.address,
    displayName: `${packageName} (tsop run bundle)`,
    publisher: "tsop",
  };
  if (options.pullSecretName) spec.secrets = [options.pullSecretName];
  return {
    apiVersion: V1ALPHA1,
    kind: "CatalogSource",
    metadata: {
      name: runNames(packageName).catalogSource,
      namespace: options.namespace,
      labels: runLabels(packageName, options.runId, "catalog"),
      annotations: catalogAnnotations(served, catalog, options),
    },
    spec,
  };
}

export function catalogAnnotations(
  served: ServedBundle[],
  catalog: CatalogObjects,
  options: Pick<CatalogOptions, "indexImage">,
): Record<string, string> {
  return {
    [ANNOTATIONS.bundles]: JSON.stringify(served),
    [ANNOTATIONS.revision]: catalog.revision,
    [ANNOTATIONS.indexImage]: options.indexImage,
    [ANNOTATIONS.registryPod]: catalog.pod.metadata.name ?? "",
  };
}

/** The bundles a tsop catalog serves, read back from the annotation catalogAnnotations writes. */
export function servedBundles(catalog: KubeObject): ServedBundle[] {
  try {
    const parsed = JSON.parse(catalog.metadata.annotations?.[ANNOTATIONS.bundles] ?? "[]");
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

export function operatorGroupObject(
  packageName: string,
  mode: ResolvedInstallMode,
  options: Pick<CatalogOptions, "namespace" | "runId">,
): KubeObject {
  return {
    apiVersion: V1,
    kind: "OperatorGroup",
    metadata: {
      name: OPERATOR_GROUP_NAME,
      namespace: options.namespace,
      labels: runLabels(packageName, options.runId, "operator-group"),
    },
    spec: mode.targetNamespaces.length > 0 ? { targetNamespaces: mode.targetNamespaces } : {},
  };
}

export function subscriptionObject(
  packageName: string,
  channel: string,
  startingCsv: string,
  options: Pick<CatalogOptions, "namespace" | "runId">,
): KubeObject {
  const names = runNames(packageName);
  return {
    apiVersion: V1ALPHA1,
    kind: "Subscription",
    metadata: {
      name: names.subscription,
      namespace: options.namespace,
      labels: runLabels(packageName, options.runId, "subscription"),
    },
    spec: {
      channel,
      name: packageName,
      source: names.catalogSource,
      sourceNamespace: options.namespace,
      installPlanApproval: "Manual",
      startingCSV: startingCsv,
    },
  };
}

export interface RunPlan {
  namespace: string;
  packageName: string;
  csvName: string;
  version: string;
  installMode: ResolvedInstallMode;
  catalog: CatalogObjects;
  namespaceObject?: KubeObject;
  catalogSource: KubeObject;
  operatorGroup?: KubeObject;
  subscription: KubeObject;
}

export interface PlanInput extends CatalogOptions {
  bundle: LoadedBundle;
  content: CatalogContent;
  installMode: ResolvedInstallMode;
  createNamespace: boolean;
  createOperatorGroup: boolean;
}

export function planRunBundle(input: PlanInput): RunPlan {
  const { bundle } = input;
  const csvName = bundle.csv.metadata.name ?? "";
  const version = typeof bundle.csv.spec?.version === "string" ? bundle.csv.spec.version : "";
  const catalog = catalogObjects(input.content, input);
  const served: ServedBundle[] = [{ image: bundle.image, csv: csvName, version }];
  const plan: RunPlan = {
    namespace: input.namespace,
    packageName: bundle.packageName,
    csvName,
    version,
    installMode: input.installMode,
    catalog,
    catalogSource: catalogSourceObject(bundle.packageName, served, catalog, input),
    subscription: subscriptionObject(bundle.packageName, input.content.channel, csvName, input),
  };
  if (input.createNamespace) {
    plan.namespaceObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: input.namespace, labels: { [LABELS.managedBy]: "tsop" } },
    };
  }
  if (input.createOperatorGroup)
    plan.operatorGroup = operatorGroupObject(bundle.packageName, input.installMode, input);
  return plan;
}

/** Every object of the plan in creation order (what --dry-run prints). */
export function planObjects(plan: RunPlan): KubeObject[] {
  return [
    ...(plan.namespaceObject ? [plan.namespaceObject] : []),
    plan.catalogSource,
    ...plan.catalog.configMaps,
    plan.catalog.pod,
    plan.catalog.service,
    ...(plan.operatorGroup ? [plan.operatorGroup] : []),
    plan.subscription,
  ];
}

export function ownerReferenceTo(obj: KubeObject) {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? "",
    uid: obj.metadata.uid ?? "",
    controller: false,
    blockOwnerDeletion: false,
  };
}

export interface UpgradeInput {
  bundle: LoadedBundle;
  /** The live CatalogSource `run bundle` created, and the bundle set it serves now. */
  catalogSource: KubeObject;
  content: CatalogContent;
  served: ServedBundle[];
  /** The installed CSV the new bundle replaces. */
  installed: string;
  options: CatalogOptions;
}

export interface UpgradePlan {
  namespace: string;
  packageName: string;
  csvName: string;
  version: string;
  installed: string;
  /** The new registry (ConfigMaps, Pod, Service), owned by the CatalogSource. */
  catalog: CatalogObjects;
  served: ServedBundle[];
  catalogRef: ObjectRef;
  /** The merge patch that switches the CatalogSource to the new registry. */
  catalogPatch: { metadata: { annotations: Record<string, string> }; spec: { address: string } };
  /** The CatalogSource as it is once switched (server-set fields left out). */
  catalogSource: KubeObject;
}

/** Serve the old bundles plus the new one (replaces → the installed CSV) from a new registry. */
export function planUpgrade(input: UpgradeInput): UpgradePlan {
  const { bundle, catalogSource: live, options } = input;
  const csvName = bundle.csv.metadata.name ?? "";
  const version = csvVersion(bundle.csv);
  const owner = ownerReferenceTo(live);
  const built = catalogObjects(withUpgrade(input.content, bundle, input.installed), options);
  const owned = (o: KubeObject): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, ownerReferences: [owner] },
  });
  const catalog: CatalogObjects = {
    ...built,
    configMaps: built.configMaps.map(owned),
    pod: owned(built.pod),
    service: owned(built.service),
  };
  const served: ServedBundle[] = [...input.served, { image: bundle.image, csv: csvName, version }];
  const catalogPatch = {
    metadata: { annotations: catalogAnnotations(served, catalog, options) },
    spec: { address: catalog.address },
  };
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    generation: _g,
    managedFields: _m,
    ...meta
  } = live.metadata;
  return {
    namespace: options.namespace,
    packageName: bundle.packageName,
    csvName,
    version,
    installed: input.installed,
    catalog,
    served,
    catalogRef: {
      apiVersion: live.apiVersion,
      kind: live.kind,
      namespace: live.metadata.namespace ?? options.namespace,
      name: live.metadata.name ?? "",
    },
    catalogPatch,
    catalogSource: {
      apiVersion: live.apiVersion,
      kind: live.kind,
      metadata: {
        ...meta,
        annotations: { ...live.metadata.annotations, ...catalogPatch.metadata.annotations },
      },
      spec: { ...live.spec, ...catalogPatch.spec },
    },
  };
}

/** Every object the upgrade creates or changes, in order (what bundle-upgrade --dry-run prints). */
export function upgradeObjects(plan: UpgradePlan): KubeObject[] {
  return [...plan.catalog.configMaps, plan.catalog.pod, plan.catalog.service, plan.catalogSource];
}
