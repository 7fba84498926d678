// The one table of strategic-merge list keys (the Kubernetes API types' patchMergeKey tags), by
// kind and field, used by the config/ reader's patches (smp.ts) and by tsop/testing's PATCH and
// server-side apply. A list not named here is atomic: a patch replaces it whole. This module has no
// imports, so the test kit can use it without loading the rest of tsop.

interface MergeKeyRule {
  /** The list field. */
  field: string;
  /** The patchMergeKey of its items. */
  key: string;
  /** The field that holds the list (the object or list it sits in); any when absent. */
  parents?: readonly string[];
  /** The kinds whose objects hold the list; any kind when absent. */
  kinds?: readonly string[];
}

const CONTAINER_LISTS = ["containers", "initContainers", "ephemeralContainers"] as const;
const WEBHOOK_CONFIGURATIONS = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"] as const;

/** First matching rule wins; rules with a narrower scope come first. */
const RULES: readonly MergeKeyRule[] = [
  // Service.spec.ports merge by port; a container's ports by containerPort; Endpoints' are atomic.
  { field: "ports", key: "port", parents: ["spec"], kinds: ["Service"] },
  { field: "ports", key: "containerPort", parents: CONTAINER_LISTS },
  { field: "containers", key: "name" },
  { field: "initContainers", key: "name" },
  { field: "ephemeralContainers", key: "name" },
  { field: "env", key: "name", parents: CONTAINER_LISTS },
  { field: "volumeMounts", key: "mountPath" },
  { field: "volumeDevices", key: "devicePath" },
  { field: "volumes", key: "name" },
  { field: "imagePullSecrets", key: "name" },
  { field: "hostAliases", key: "ip" },
  { field: "topologySpreadConstraints", key: "topologyKey" },
  { field: "schedulingGates", key: "name" },
  { field: "resourceClaims", key: "name", parents: ["spec"] },
  { field: "conditions", key: "type" },
  { field: "ownerReferences", key: "uid", parents: ["metadata"] },
  { field: "containerStatuses", key: "name", parents: ["status"] },
  { field: "podIPs", key: "ip", parents: ["status"] },
  { field: "hostIPs", key: "ip", parents: ["status"] },
  { field: "addresses", key: "type", parents: ["status"], kinds: ["Node"] },
  { field: "secrets", key: "name", kinds: ["ServiceAccount"] },
  { field: "webhooks", key: "name", kinds: WEBHOOK_CONFIGURATIONS },
  { field: "matchConditions", key: "name" },
];

/** Primitive lists with patchStrategy merge: items are kept as a set. */
const SET_LISTS: ReadonlyArray<{ field: string; parent: string }> = [
  { field: "finalizers", parent: "metadata" },
];

/**
 * The merge key of the list `field` held by `parent` in an object of `kind`, or undefined for an
 * atomic list. `kind` undefined means "not known": rules limited to some kinds still apply by field
 * and parent.
 */
export function mergeKeyFor(kind: string | undefined, parent: string, field: string): string | undefined {
  for (const rule of RULES) {
    if (rule.field !== field) continue;
    if (rule.parents && !rule.parents.includes(parent)) continue;
    if (rule.kinds && kind !== undefined && !rule.kinds.includes(kind)) continue;
    return rule.key;
  }
  return undefined;
}

/** Whether the primitive list `field` held by `parent` merges as a set (metadata.finalizers). */
export function isSetList(parent: string, field: string): boolean {
  return SET_LISTS.some((s) => s.field === field && s.parent === parent);
}
