// Defaulting and validation of built-in kinds: the subset clients notice (namespace phase and
// finalizers, Secret stringData, Service clusterIP, Deployment/ReplicaSet/Job selectors and defaults,
// Pod containers), with the apiserver's field paths.
import type { Admission } from "./admission.js";
import { labelSelectorToString, labelsMatch, parseLabelSelector } from "./selectors.js";
import { type FieldError, invalidValue, required } from "./status.js";
import type { KObj, ResourceDef } from "./types.js";

const is = (def: ResourceDef, group: string, resource: string) =>
  def.builtin && def.group === group && def.resource === resource;

let nextClusterIp = 10;

const STRING_MAPS: Record<string, string[]> = {
  configmaps: ["data", "binaryData"],
  secrets: ["data", "stringData"],
};

function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * Why the real server could not decode this built-in object (its Go struct has map[string]string
 * there: a number or boolean in a ConfigMap's data is a 400, not a value), or undefined.
 */
export function decodeProblem(def: ResourceDef, obj: KObj): string | undefined {
  const fields = def.builtin && def.group === "" ? STRING_MAPS[def.resource] : undefined;
  for (const field of fields ?? []) {
    const map = obj[field];
    if (map === undefined || map === null) continue;
    if (typeof map !== "object" || Array.isArray(map))
      return `json: cannot unmarshal ${jsonTypeName(map)} into Go struct field ${def.kind}.${field} of type map[string]string`;
    for (const value of Object.values(map as Record<string, unknown>)) {
      if (value === null || typeof value === "string") continue;
      return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${def.kind}.${field} of type string`;
    }
  }
  return undefined;
}

function defaultContainers(containers: unknown): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers as KObj[]) {
    if (!c || typeof c !== "object") continue;
    const image = String(c.image ?? "");
    c.imagePullPolicy ??=
      image.endsWith(":latest") || (!image.includes(":") && !image.includes("@")) ? "Always" : "IfNotPresent";
    c.terminationMessagePath ??= "/dev/termination-log";
    c.terminationMessagePolicy ??= "File";
    c.resources ??= {};
    for (const p of Array.isArray(c.ports) ? c.ports : [])
      if (p && typeof p === "object") p.protocol ??= "TCP";
  }
}

function defaultPodSpec(spec: KObj | undefined): void {
  if (!spec || typeof spec !== "object") return;
  spec.restartPolicy ??= "Always";
  spec.dnsPolicy ??= "ClusterFirst";
  spec.schedulerName ??= "default-scheduler";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  defaultContainers(spec.containers);
  defaultContainers(spec.initContainers);
}

function validatePodSpec(spec: KObj | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    errors.push(required(`${path}.containers`));
    return errors;
  }
  containers.forEach((c: KObj, i: number) => {
    if (!c?.name) errors.push(required(`${path}.containers[${i}].name`));
    if (!c?.image) errors.push(required(`${path}.containers[${i}].image`));
  });
  return errors;
}

function validateSelector(obj: KObj, path = "spec"): FieldError[] {
  const selector = obj.spec?.selector;
  if (
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  ) {
    return [required(`${path}.selector`)];
  }
  const labels = obj.spec?.template?.metadata?.labels ?? {};
  const reqs = parseLabelSelector(labelSelectorToString(selector));
  if (!labelsMatch(labels, reqs)) {
    return [
      invalidValue(`${path}.template.metadata.labels`, labels, "`selector` does not match template `labels`"),
    ];
  }
  return [];
}

function immutableSelector(obj: KObj, old: KObj | undefined): FieldError[] {
  if (!old) return [];
  if (JSON.stringify(old.spec?.selector) !== JSON.stringify(obj.spec?.selector)) {
    return [invalidValue("spec.selector", obj.spec?.selector, "field is immutable")];
  }
  return [];
}

export const builtinAdmissions: Admission[] = [
  {
    appliesTo: (d) => is(d, "", "namespaces"),
    mutate: (_d, obj, old) => {
      obj.metadata.labels = {
        ...(obj.metadata.labels ?? {}),
        "kubernetes.io/metadata.name": obj.metadata.name,
      };
      obj.spec = {
        ...(obj.spec ?? {}),
        finalizers: obj.spec?.finalizers ?? old?.spec?.finalizers ?? ["kubernetes"],
      };
      if (!old) obj.status = { phase: "Active" };
    },
  },
  {
    appliesTo: (d) => is(d, "", "secrets"),
    mutate: (_d, obj) => {
      obj.type ??= "Opaque";
      if (obj.stringData && typeof obj.stringData === "object") {
        obj.data = { ...(obj.data ?? {}) };
        for (const [k, v] of Object.entries(obj.stringData))
          obj.data[k] = Buffer.from(String(v)).toString("base64");
        delete obj.stringData;
      }
    },
    validate: (_d, obj, old) =>
      old && old.type !== obj.type ? [invalidValue("type", obj.type, "field is immutable")] : [],
  },
  {
    appliesTo: (d) => is(d, "", "services"),
    mutate: (_d, obj, old) => {
      obj.spec ??= {};
      const spec = obj.spec;
      spec.type ??= "ClusterIP";
      spec.sessionAffinity ??= "None";
      if (spec.clusterIP === undefined || spec.clusterIP === "") {
        spec.clusterIP =
          old?.spec?.clusterIP ?? `10.96.${Math.floor(nextClusterIp / 250)}.${(nextClusterIp++ % 250) + 1}`;
      }
      if (spec.clusterIP !== "None") spec.clusterIPs ??= [spec.clusterIP];
      for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
        if (p && typeof p === "object") {
          p.protocol ??= "TCP";
          p.targetPort ??= p.port;
        }
      }
    },
    validate: (_d, obj, old) =>
      old?.spec?.clusterIP && obj.spec?.clusterIP !== old.spec.clusterIP
        ? [invalidValue("spec.clusterIPs[0]", obj.spec?.clusterIP, "field is immutable")]
        : [],
  },
  {
    appliesTo: (d) => is(d, "", "pods"),
    mutate: (_d, obj) => defaultPodSpec(obj.spec),
    validate: (_d, obj) => validatePodSpec(obj.spec, "spec"),
  },
  {
    appliesTo: (d) =>
      is(d, "apps", "deployments") || is(d, "apps", "replicasets") || is(d, "apps", "statefulsets"),
    mutate: (d, obj) => {
      obj.spec ??= {};
      const spec = obj.spec;
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      if (d.resource === "deployments") {
        spec.progressDeadlineSeconds ??= 600;
        spec.strategy ??= {
          type: "RollingUpdate",
          rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
        };
      }
      defaultPodSpec(spec.template?.spec);
    },
    validate: (_d, obj, old) => [
      ...validateSelector(obj),
      ...validatePodSpec(obj.spec?.template?.spec, "spec.template.spec"),
      ...immutableSelector(obj, old),
      ...(typeof obj.spec?.replicas === "number" && obj.spec.replicas < 0
        ? [invalidValue("spec.replicas", obj.spec.replicas, "must be greater than or equal to 0")]
        : []),
    ],
  },
  {
    appliesTo: (d) => is(d, "apps", "daemonsets"),
    mutate: (_d, obj) => defaultPodSpec(obj.spec?.template?.spec),
    validate: (_d, obj) => [
      ...validateSelector(obj),
      ...validatePodSpec(obj.spec?.template?.spec, "spec.template.spec"),
    ],
  },
  {
    appliesTo: (d) => is(d, "batch", "jobs"),
    mutate: (_d, obj, old) => {
      obj.spec ??= {};
      const spec = obj.spec;
      spec.completions ??= 1;
      spec.parallelism ??= 1;
      spec.backoffLimit ??= 6;
      if (!old && !spec.selector) {
        const uid = obj.metadata.uid;
        spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
        spec.template ??= {};
        const tmeta = spec.template.metadata ?? {};
        tmeta.labels = {
          ...(tmeta.labels ?? {}),
          "batch.kubernetes.io/controller-uid": uid,
          "batch.kubernetes.io/job-name": obj.metadata.name,
          "controller-uid": uid,
          "job-name": obj.metadata.name,
        };
        spec.template.metadata = tmeta;
      }
      if (spec.template?.spec) spec.template.spec.restartPolicy ??= "Never";
      defaultPodSpec(spec.template?.spec);
    },
    validate: (_d, obj, old) => {
      const errors = validatePodSpec(obj.spec?.template?.spec, "spec.template.spec");
      const rp = obj.spec?.template?.spec?.restartPolicy;
      if (rp !== undefined && rp !== "Never" && rp !== "OnFailure") {
        errors.push({
          field: "spec.template.spec.restartPolicy",
          type: "FieldValueNotSupported",
          message: `Unsupported value: "${rp}": supported values: "OnFailure", "Never"`,
        });
      }
      if (old && JSON.stringify(old.spec?.template) !== JSON.stringify(obj.spec?.template)) {
        errors.push(invalidValue("spec.template", obj.spec?.template, "field is immutable"));
      }
      return errors;
    },
  },
  {
    appliesTo: (d) =>
      is(d, "rbac.authorization.k8s.io", "rolebindings") ||
      is(d, "rbac.authorization.k8s.io", "clusterrolebindings"),
    validate: (_d, obj, old) => {
      const errors: FieldError[] = [];
      if (!obj.roleRef?.kind) errors.push(required("roleRef.kind"));
      if (!obj.roleRef?.name) errors.push(required("roleRef.name"));
      if (old && JSON.stringify(old.roleRef) !== JSON.stringify(obj.roleRef)) {
        errors.push(invalidValue("roleRef", obj.roleRef, "cannot change roleRef"));
      }
      return errors;
    },
  },
  {
    appliesTo: (d) => is(d, "", "configmaps") || is(d, "", "secrets"),
    validate: (_d, obj, old) =>
      old?.immutable === true &&
      (JSON.stringify(old.data) !== JSON.stringify(obj.data) || obj.immutable !== true)
        ? [
            {
              field: "data",
              type: "FieldValueForbidden",
              message: "Forbidden: field is immutable when `immutable` is set",
            },
          ]
        : [],
  },
];
