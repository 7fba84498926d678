// How the garbage collector sees one ownerReference, as kube-controller-manager's does
// (pkg/controller/garbagecollector: isDangling, addDependentToOwners): the owner is looked up by
// name in the dependent's namespace (none for a cluster-scoped owner kind) and must have the
// referenced uid; a cluster-scoped dependent of a namespaced owner kind is invalid and never
// collected; an owner that exists elsewhere under that uid gets an OwnerRefInvalidNamespace event.
import { type Engine, groupVersion } from "./engine.js";
import type { KObj, ResourceDef } from "./types.js";

export type OwnerState =
  | { state: "present"; owner: KObj }
  | { state: "dangling" }
  /** A cluster-scoped dependent naming a namespaced owner kind: Kubernetes never collects it. */
  | { state: "invalid" }
  /** The owner's kind is not served (yet): the real collector retries, so nothing happens. */
  | { state: "unknown" };

export function resolveOwner(
  engine: Engine,
  dependent: { def: ResourceDef; obj: KObj },
  ref: KObj,
): OwnerState {
  const ownerDef = engine.registry.byKind(String(ref.apiVersion ?? ""), String(ref.kind ?? ""));
  if (!ownerDef) return { state: "unknown" };
  if (ownerDef.namespaced && !dependent.def.namespaced) return { state: "invalid" };
  const namespace = ownerDef.namespaced ? (dependent.obj.metadata.namespace ?? "") : "";
  const owner = engine.store.get(ownerDef.storageKey, namespace, String(ref.name ?? ""));
  if (!owner || owner.metadata.uid !== ref.uid) return { state: "dangling" };
  return { state: "present", owner };
}

/**
 * The Warning event the collector records when a dependent's owner exists under the referenced uid
 * but in another namespace (or the dependent is cluster-scoped): same reason, message, source and
 * namespace ("default" for a cluster-scoped dependent) as the real one.
 */
export function ownerRefInvalidNamespaceEvent(
  dependent: { def: ResourceDef; obj: KObj },
  ref: KObj,
  now: string,
): KObj {
  const { def, obj } = dependent;
  const namespace = (obj.metadata.namespace as string | undefined) ?? "";
  const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
  const component = "garbage-collector-controller";
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name: `${obj.metadata.name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`,
      namespace: namespace || "default",
    },
    involvedObject: {
      apiVersion: groupVersion(def),
      kind: def.kind,
      name: obj.metadata.name,
      ...(namespace ? { namespace } : {}),
      uid: obj.metadata.uid,
    },
    reason: "OwnerRefInvalidNamespace",
    message: `ownerRef ${owner} does not exist in namespace "${namespace}"`,
    type: "Warning",
    source: { component },
    reportingComponent: component,
    reportingInstance: "",
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
