// The order `kustomize build` emits objects in: its "legacy" sort (the default) by kind priority,
// then group_version_kind, then namespace|name, all on the objects' final names; or input order with `sortOptions: {order: fifo}`. Only the top kustomization's
// sortOptions count, as in kustomize.
import { InvalidInputError } from "../common/errors.js";
import { asArray, groupOf, isRecord, kindOf, nameOf, namespaceOf, str, versionOf } from "./object.js";
import type { LoadedObject } from "./object.js";

const ORDER_FIRST = [
  "Namespace",
  "ResourceQuota",
  "StorageClass",
  "CustomResourceDefinition",
  "ServiceAccount",
  "PodSecurityPolicy",
  "Role",
  "ClusterRole",
  "RoleBinding",
  "ClusterRoleBinding",
  "ConfigMap",
  "Secret",
  "Endpoints",
  "Service",
  "LimitRange",
  "PriorityClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "Deployment",
  "StatefulSet",
  "CronJob",
  "PodDisruptionBudget",
];
const ORDER_LAST = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

// kustomize's legacy sort strings: group_version_kind and namespace|name, "~" marking a blank.
const gvkString = (o: Record<string, unknown>) =>
  `${groupOf(o) || "~G"}_${versionOf(o) || "~V"}_${kindOf(o) || "~K"}`;
const idString = (o: Record<string, unknown>) => `${namespaceOf(o) || "~X"}|${nameOf(o) || "~N"}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sorts `objects` in place as `kustomize build` orders its output, given the top `sortOptions`. */
export function kustomizeOrder<T extends LoadedObject>(
  objects: T[],
  sortOptions: unknown,
  file: string,
): T[] {
  const options = isRecord(sortOptions) ? sortOptions : {};
  const order = str(options.order) || "legacy";
  if (order === "fifo") return objects;
  if (order !== "legacy") {
    throw new InvalidInputError(`sortOptions.order "${order}" is neither legacy nor fifo`, {
      location: { file },
    });
  }
  const legacy = isRecord(options.legacySortOptions) ? options.legacySortOptions : {};
  const first = legacy.orderFirst === undefined ? ORDER_FIRST : asArray(legacy.orderFirst).map(str);
  const last = legacy.orderLast === undefined ? ORDER_LAST : asArray(legacy.orderLast).map(str);
  const rank = new Map<string, number>();
  first.forEach((kind, i) => rank.set(kind, i - first.length));
  last.forEach((kind, i) => rank.set(kind, i + 1));
  const key = (o: Record<string, unknown>) => rank.get(kindOf(o)) ?? 0;
  return objects.sort((a, b) => {
    const byKind = key(a.object) - key(b.object);
    if (byKind !== 0) return byKind;
    const [ga, gb] = [gvkString(a.object), gvkString(b.object)];
    // kustomize's quirk: Namespaces of the core group sort after those of other groups.
    const flip =
      kindOf(a.object) === "Namespace" &&
      kindOf(b.object) === "Namespace" &&
      (!groupOf(a.object) || !groupOf(b.object));
    return (flip ? compare(gb, ga) : compare(ga, gb)) || compare(idString(a.object), idString(b.object));
  });
}
