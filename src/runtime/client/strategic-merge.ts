// Strategic merge patches (controller-runtime's client.StrategicMergeFrom) for the kinds Kubernetes
// builds in. The body is the JSON merge patch of what changed; sent as a strategic merge patch, the
// server merges the lists its types mark with a patchMergeKey (containers by name, env by name,
// finalizers as a set) instead of replacing them, so a container another writer added is kept.
// The API server answers 415 to strategic merge patches of custom resources (it has no Go types to
// read the keys from), so they are refused here before the request.
import { TsopError } from "../../common/errors.js";
import type { ResourceMapping } from "../connect/mapper.js";
import type { KubeObjectLike } from "./object.js";
import { createMergePatch, type Patch } from "./patch.js";

/** API groups Kubernetes serves from its own types (the only ones that take strategic merge). */
const BUILT_IN_GROUPS = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/** Throws, naming the kind and what to use instead, unless the server takes strategic merge for it. */
export function assertStrategicMergeAllowed(mapping: ResourceMapping, name: string | undefined): void {
  if (BUILT_IN_GROUPS.has(mapping.group)) return;
  throw new TsopError(
    `cannot send a strategic merge patch to ${mapping.kind}${name ? ` ${name}` : ""} (${mapping.apiVersion}): the API server takes strategic merge only for built-in kinds, and answers 415 for custom resources`,
    {
      hint: "use mergeFrom(base, { optimisticLock: true }) (lists are replaced whole, the lock keeps other writers' items from being written away) or client.apply",
    },
  );
}

class StrategicMergeFromPatch implements Patch {
  readonly type = "strategic" as const;
  private readonly base: KubeObjectLike;

  constructor(base: KubeObjectLike) {
    // A copy: the caller usually goes on to change the object base was copied from.
    this.base = structuredClone(base);
  }

  data(obj: KubeObjectLike): unknown {
    return createMergePatch(this.base, obj);
  }
}

/**
 * A strategic merge patch of what changed on a built-in object since `base`:
 * `client.patch(deployment, strategicMergeFrom(base))`. Lists the Kubernetes types merge by key
 * (containers, env, volumes, ports, finalizers, …) keep the items other writers added; an item
 * removed from such a list is not removed by it (use mergeFrom with optimisticLock for that).
 * Refused for custom resources.
 */
export function strategicMergeFrom(base: KubeObjectLike): Patch {
  return new StrategicMergeFromPatch(base);
}
