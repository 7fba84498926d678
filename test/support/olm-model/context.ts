// Shared state of one OLM model pass: a fresh snapshot of the cluster (listed through the HTTP
// API), the options and faults, and small helpers to write status and emit Events like OLM does.
import type { KubeClient } from "../../../src/kube/client.js";
import { isNoMatch, isNotFound } from "../../../src/kube/errors.js";
import type { KubeObject } from "../../../src/kube/objects.js";

export const OLM = "operators.coreos.com";

export interface ModelDelays {
  /** Minimum dwell time in each CSV phase before the next transition (ms). */
  csvPhaseMs: number;
  /** A CSV still not healthy this long after its last transition fails with "install timeout" (ms). */
  installTimeoutMs: number;
}

export interface ModelFaults {
  /** "ns/name" of a CatalogSource → forced connection state (e.g. TRANSIENT_FAILURE). */
  catalogState: Map<string, string>;
  /** "ns/name" of a CSV → forced Failed with this reason and message. */
  csvFailure: Map<string, { reason: string; message: string }>;
}

export interface ModelOptions {
  /** Global catalog namespace and where OLM's deployments run (default "olm"). */
  namespace: string;
  /** Act only while olm-operator / catalog-operator are Available (default true), as real OLM. */
  requireOlmDeployments: boolean;
  delays: ModelDelays;
}

export interface Snapshot {
  namespaces: KubeObject[];
  crds: KubeObject[];
  operatorGroups: KubeObject[];
  catalogs: KubeObject[];
  subscriptions: KubeObject[];
  installPlans: KubeObject[];
  csvs: KubeObject[];
  deployments: KubeObject[];
  pods: KubeObject[];
  configMaps: KubeObject[];
  services: KubeObject[];
  jobs: KubeObject[];
}

export async function takeSnapshot(client: KubeClient): Promise<Snapshot> {
  const list = async (apiVersion: string, kind: string) => {
    try {
      return (await client.list(apiVersion, kind, { namespace: "" })).items;
    } catch (error) {
      if (isNotFound(error) || isNoMatch(error)) return [];
      throw error;
    }
  };
  const [
    namespaces,
    crds,
    operatorGroups,
    catalogs,
    subscriptions,
    installPlans,
    csvs,
    deployments,
    pods,
    configMaps,
    services,
    jobs,
  ] = await Promise.all([
    list("v1", "Namespace"),
    list("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    list(`${OLM}/v1`, "OperatorGroup"),
    list(`${OLM}/v1alpha1`, "CatalogSource"),
    list(`${OLM}/v1alpha1`, "Subscription"),
    list(`${OLM}/v1alpha1`, "InstallPlan"),
    list(`${OLM}/v1alpha1`, "ClusterServiceVersion"),
    list("apps/v1", "Deployment"),
    list("v1", "Pod"),
    list("v1", "ConfigMap"),
    list("v1", "Service"),
    list("batch/v1", "Job"),
  ]);
  return {
    namespaces,
    crds,
    operatorGroups,
    catalogs,
    subscriptions,
    installPlans,
    csvs,
    deployments,
    pods,
    configMaps,
    services,
    jobs,
  };
}

export interface ModelContext {
  client: KubeClient;
  options: ModelOptions;
  faults: ModelFaults;
  snap: Snapshot;
  now: number;
  /** Ask for another pass at (or after) this time. */
  wakeAt(time: number): void;
  /** Status patch of an object (merge patch on /status). */
  patchStatus(obj: KubeObject, status: Record<string, unknown>): Promise<void>;
  event(obj: KubeObject, type: "Normal" | "Warning", reason: string, message: string): Promise<void>;
}

export function key(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`;
}

export function inNamespace(list: KubeObject[], namespace: string | undefined): KubeObject[] {
  return list.filter((o) => o.metadata.namespace === namespace);
}

export function nowIso(now: number): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Deployment readiness as OLM's install check sees it. */
export function deploymentReady(dep: KubeObject | undefined): {
  ready: boolean;
  reason: string;
  deadline?: boolean;
} {
  if (!dep) return { ready: false, reason: "deployment not found" };
  const status = dep.status ?? {};
  const conditions = (status.conditions ?? []) as Array<{
    type: string;
    status: string;
    reason?: string;
    message?: string;
  }>;
  if (conditions.some((c) => c.type === "Progressing" && c.reason === "ProgressDeadlineExceeded")) {
    return {
      ready: false,
      reason: `deployment "${dep.metadata.name}" exceeded its progress deadline`,
      deadline: true,
    };
  }
  if ((dep.metadata.generation ?? 0) > (status.observedGeneration ?? 0)) {
    return { ready: false, reason: "waiting for deployment spec update to be observed" };
  }
  if ((status.replicas ?? 0) > (status.updatedReplicas ?? 0)) {
    return { ready: false, reason: "old replicas are pending termination" };
  }
  const available = conditions.find((c) => c.type === "Available");
  if (available?.status !== "True") {
    return {
      ready: false,
      reason: `Waiting for rollout to finish: ${status.availableReplicas ?? 0} of ${status.updatedReplicas ?? dep.spec?.replicas ?? 1} updated replicas are available...`,
    };
  }
  return { ready: true, reason: "" };
}
