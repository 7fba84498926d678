// File names and contents of bundle/manifests (operator-sdk §2.9): the CSV, CRDs, Services, the
// kinds a registry+v1 bundle may carry, and the RBAC that is not folded into the CSV.
import {
  clone,
  groupOf,
  isRecord,
  kindOf,
  type ManifestObject,
  type LoadedObject,
  nameOf,
  str,
  versionOf,
} from "../manifests/index.js";
import { toYaml } from "../common/yaml/write.js";

/** Kinds operator-registry accepts in a registry+v1 bundle besides CSVs and CRDs (matched by kind). */
export const SUPPORTED_KINDS = new Set([
  "ClusterServiceVersion",
  "CustomResourceDefinition",
  "Secret",
  "ClusterRole",
  "ClusterRoleBinding",
  "ConfigMap",
  "ServiceAccount",
  "Service",
  "Role",
  "RoleBinding",
  "PrometheusRule",
  "ServiceMonitor",
  "PodDisruptionBudget",
  "PriorityClass",
  "VerticalPodAutoscaler",
  "ConsoleYAMLSample",
  "ConsoleQuickStart",
  "ConsoleCLIDownload",
  "ConsoleLink",
  "ConsolePlugin",
  "NetworkPolicy",
  "PodMonitor",
]);

export function csvFileName(packageName: string): string {
  return `${packageName.toLowerCase()}.clusterserviceversion.yaml`;
}

export function manifestFileName(object: ManifestObject): string {
  if (kindOf(object) === "CustomResourceDefinition" && isRecord(object.spec)) {
    const plural = isRecord(object.spec.names) ? str(object.spec.names.plural) : "";
    const group = str(object.spec.group);
    if (plural && group) return `${group}_${plural}.yaml`;
  }
  const group = groupOf(object);
  const parts = [nameOf(object), ...(group ? [group] : []), versionOf(object), kindOf(object).toLowerCase()];
  return `${parts.join("_")}.yaml`;
}

/** The object as the bundle carries it: no namespace (OLM picks it), no volatile metadata. */
export function bundleObject(object: ManifestObject): ManifestObject {
  const out = clone(object);
  if (isRecord(out.metadata)) {
    delete out.metadata.namespace;
    if (out.metadata.creationTimestamp === null) delete out.metadata.creationTimestamp;
  }
  return out;
}

/** Renders every non-CSV manifest to a file name → YAML map; name clashes get a dup<N>_ prefix. */
export function renderManifests(objects: readonly LoadedObject[]): Map<string, string> {
  const files = new Map<string, string>();
  let dup = 0;
  for (const { object } of objects) {
    let name = manifestFileName(object);
    if (files.has(name)) name = `dup${dup++}_${name}`;
    files.set(name, toYaml(bundleObject(object)));
  }
  return files;
}
