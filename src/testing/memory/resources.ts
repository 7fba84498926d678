// The resource registry: built-in kinds, CRD-served kinds, and the discovery documents built from them.
import type { KObj, ResourceDef, ScaleSubresource } from "./types.js";

const allVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

interface BuiltinSpec {
  gv: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  fields?: string[];
  verbs?: string[];
  virtual?: boolean;
}

const replicasScale: ScaleSubresource = {
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  labelSelectorPath: ".status.selector",
};

const builtinSpecs: BuiltinSpec[] = [
  {
    gv: "v1",
    resource: "namespaces",
    kind: "Namespace",
    namespaced: false,
    shortNames: ["ns"],
    status: true,
    fields: ["status.phase"],
    verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  },
  {
    gv: "v1",
    resource: "nodes",
    kind: "Node",
    namespaced: false,
    shortNames: ["no"],
    status: true,
    fields: ["spec.unschedulable"],
  },
  {
    gv: "v1",
    resource: "pods",
    kind: "Pod",
    namespaced: true,
    shortNames: ["po"],
    categories: ["all"],
    status: true,
    fields: [
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName",
    ],
  },
  {
    gv: "v1",
    resource: "services",
    kind: "Service",
    namespaced: true,
    shortNames: ["svc"],
    categories: ["all"],
    status: true,
  },
  { gv: "v1", resource: "endpoints", kind: "Endpoints", namespaced: true, shortNames: ["ep"] },
  { gv: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true, shortNames: ["sa"] },
  { gv: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, shortNames: ["cm"] },
  { gv: "v1", resource: "secrets", kind: "Secret", namespaced: true, fields: ["type"] },
  {
    gv: "v1",
    resource: "persistentvolumeclaims",
    kind: "PersistentVolumeClaim",
    namespaced: true,
    shortNames: ["pvc"],
    status: true,
  },
  {
    gv: "v1",
    resource: "events",
    kind: "Event",
    namespaced: true,
    shortNames: ["ev"],
    fields: [
      "involvedObject.kind",
      "involvedObject.namespace",
      "involvedObject.name",
      "involvedObject.uid",
      "involvedObject.apiVersion",
      "involvedObject.resourceVersion",
      "involvedObject.fieldPath",
      "reason",
      "reportingComponent",
      "source",
      "type",
    ],
  },
  { gv: "events.k8s.io/v1", resource: "events", kind: "Event", namespaced: true, shortNames: ["ev"] },
  {
    gv: "apps/v1",
    resource: "deployments",
    kind: "Deployment",
    namespaced: true,
    shortNames: ["deploy"],
    categories: ["all"],
    status: true,
    scale: true,
  },
  {
    gv: "apps/v1",
    resource: "replicasets",
    kind: "ReplicaSet",
    namespaced: true,
    shortNames: ["rs"],
    categories: ["all"],
    status: true,
    scale: true,
    fields: ["status.replicas"],
  },
  {
    gv: "apps/v1",
    resource: "statefulsets",
    kind: "StatefulSet",
    namespaced: true,
    shortNames: ["sts"],
    categories: ["all"],
    status: true,
    scale: true,
  },
  {
    gv: "apps/v1",
    resource: "daemonsets",
    kind: "DaemonSet",
    namespaced: true,
    shortNames: ["ds"],
    categories: ["all"],
    status: true,
  },
  {
    gv: "batch/v1",
    resource: "jobs",
    kind: "Job",
    namespaced: true,
    categories: ["all"],
    status: true,
    fields: ["status.successful"],
  },
  {
    gv: "batch/v1",
    resource: "cronjobs",
    kind: "CronJob",
    namespaced: true,
    shortNames: ["cj"],
    categories: ["all"],
    status: true,
  },
  {
    gv: "policy/v1",
    resource: "poddisruptionbudgets",
    kind: "PodDisruptionBudget",
    namespaced: true,
    shortNames: ["pdb"],
    status: true,
  },
  {
    gv: "networking.k8s.io/v1",
    resource: "ingresses",
    kind: "Ingress",
    namespaced: true,
    shortNames: ["ing"],
    status: true,
  },
  {
    gv: "networking.k8s.io/v1",
    resource: "networkpolicies",
    kind: "NetworkPolicy",
    namespaced: true,
    shortNames: ["netpol"],
  },
  { gv: "rbac.authorization.k8s.io/v1", resource: "roles", kind: "Role", namespaced: true },
  { gv: "rbac.authorization.k8s.io/v1", resource: "rolebindings", kind: "RoleBinding", namespaced: true },
  { gv: "rbac.authorization.k8s.io/v1", resource: "clusterroles", kind: "ClusterRole", namespaced: false },
  {
    gv: "rbac.authorization.k8s.io/v1",
    resource: "clusterrolebindings",
    kind: "ClusterRoleBinding",
    namespaced: false,
  },
  {
    gv: "apiextensions.k8s.io/v1",
    resource: "customresourcedefinitions",
    kind: "CustomResourceDefinition",
    namespaced: false,
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    status: true,
  },
  { gv: "coordination.k8s.io/v1", resource: "leases", kind: "Lease", namespaced: true },
  {
    gv: "admissionregistration.k8s.io/v1",
    resource: "validatingwebhookconfigurations",
    kind: "ValidatingWebhookConfiguration",
    namespaced: false,
    categories: ["api-extensions"],
  },
  {
    gv: "admissionregistration.k8s.io/v1",
    resource: "mutatingwebhookconfigurations",
    kind: "MutatingWebhookConfiguration",
    namespaced: false,
    categories: ["api-extensions"],
  },
  {
    gv: "apiregistration.k8s.io/v1",
    resource: "apiservices",
    kind: "APIService",
    namespaced: false,
    categories: ["api-extensions"],
    status: true,
  },
  {
    gv: "scheduling.k8s.io/v1",
    resource: "priorityclasses",
    kind: "PriorityClass",
    namespaced: false,
    shortNames: ["pc"],
  },
  {
    gv: "storage.k8s.io/v1",
    resource: "storageclasses",
    kind: "StorageClass",
    namespaced: false,
    shortNames: ["sc"],
  },
  {
    gv: "authentication.k8s.io/v1",
    resource: "tokenreviews",
    kind: "TokenReview",
    namespaced: false,
    verbs: ["create"],
    virtual: true,
  },
  {
    gv: "authorization.k8s.io/v1",
    resource: "selfsubjectaccessreviews",
    kind: "SelfSubjectAccessReview",
    namespaced: false,
    verbs: ["create"],
    virtual: true,
  },
  {
    gv: "authorization.k8s.io/v1",
    resource: "subjectaccessreviews",
    kind: "SubjectAccessReview",
    namespaced: false,
    verbs: ["create"],
    virtual: true,
  },
];

function splitGV(gv: string): { group: string; version: string } {
  const i = gv.indexOf("/");
  return i < 0 ? { group: "", version: gv } : { group: gv.slice(0, i), version: gv.slice(i + 1) };
}

/** Events are stored once and served by both "v1" and "events.k8s.io/v1". */
function storageKeyOf(group: string, resource: string): string {
  if (group === "events.k8s.io" && resource === "events") return "/events";
  return `${group}/${resource}`;
}

export function builtinDefs(): ResourceDef[] {
  return builtinSpecs.map((s) => {
    const { group, version } = splitGV(s.gv);
    const def: ResourceDef = {
      group,
      version,
      resource: s.resource,
      kind: s.kind,
      listKind: `${s.kind}List`,
      singular: s.kind.toLowerCase(),
      namespaced: s.namespaced,
      shortNames: s.shortNames ?? [],
      categories: s.categories ?? [],
      verbs: s.verbs ?? allVerbs,
      status: s.status ?? false,
      builtin: true,
      generation: s.status === true && s.resource !== "namespaces" && s.resource !== "nodes",
      storageKey: storageKeyOf(group, s.resource),
      selectableFields: s.fields ?? [],
    };
    if (s.scale) def.scale = replicasScale;
    if (s.virtual) def.virtual = true;
    return def;
  });
}

/** Kubernetes version ordering: GA > beta > alpha, higher numbers first, then others alphabetically. */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const level = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < 3; i++) {
    if (ra[i] !== rb[i]) return (ra[i] as number) - (rb[i] as number);
  }
  return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
}

export class Registry {
  private defs = new Map<string, ResourceDef>();

  constructor(defs: ResourceDef[]) {
    for (const d of defs) this.add(d);
  }

  add(def: ResourceDef): void {
    this.defs.set(`${def.group}/${def.version}/${def.resource}`, def);
  }

  /** Drop every def served by the given CRD. */
  removeCrd(crdName: string): void {
    for (const [k, d] of this.defs) if (d.crdName === crdName) this.defs.delete(k);
  }

  all(): ResourceDef[] {
    return [...this.defs.values()];
  }

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.defs.get(`${group}/${version}/${resource}`);
  }

  byKind(apiVersion: string, kind: string): ResourceDef | undefined {
    const { group, version } = splitGV(apiVersion);
    return this.all().find((d) => d.group === group && d.version === version && d.kind === kind);
  }

  /** Any served def of a storage bucket (used to emit objects in a canonical version). */
  byStorageKey(key: string): ResourceDef[] {
    return this.all().filter((d) => d.storageKey === key);
  }

  groupVersions(group: string): string[] {
    const versions = new Set(
      this.all()
        .filter((d) => d.group === group)
        .map((d) => d.version),
    );
    return [...versions].sort(compareKubeVersions);
  }

  groups(): string[] {
    const seen: string[] = [];
    for (const d of this.all()) if (d.group !== "" && !seen.includes(d.group)) seen.push(d.group);
    return seen;
  }
}

function apiResource(def: ResourceDef): KObj[] {
  const main: KObj = {
    name: def.resource,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length > 0) main.shortNames = def.shortNames;
  if (def.categories.length > 0) main.categories = def.categories;
  const out = [main];
  if (def.status) {
    out.push({
      name: `${def.resource}/status`,
      singularName: "",
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: ["get", "patch", "update"],
    });
  }
  if (def.scale) {
    out.push({
      name: `${def.resource}/scale`,
      singularName: "",
      namespaced: def.namespaced,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
  }
  return out;
}

export function apiResourceList(registry: Registry, group: string, version: string): KObj | undefined {
  const defs = registry.all().filter((d) => d.group === group && d.version === version);
  if (defs.length === 0) return undefined;
  defs.sort((a, b) => a.resource.localeCompare(b.resource));
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group === "" ? version : `${group}/${version}`,
    resources: defs.flatMap(apiResource),
  };
}

export function apiGroup(registry: Registry, group: string): KObj | undefined {
  const versions = registry.groupVersions(group);
  if (versions.length === 0) return undefined;
  const entries = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { kind: "APIGroup", apiVersion: "v1", name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: Registry): KObj {
  const groups = registry.groups().map((g) => {
    const { kind: _k, apiVersion: _a, ...rest } = apiGroup(registry, g)!;
    return rest;
  });
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}
