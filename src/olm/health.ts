// Health of one OLM object, shared by `olm status` (rows) and `olm install` (what to wait for).
import { type CheckResult, crdEstablishedCheck, deploymentCheck, type KubeObject } from "../kube/index.js";

export function healthOf(kind: string, obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "Missing" };
  switch (kind) {
    case "CustomResourceDefinition": {
      const r = crdEstablishedCheck(obj);
      return r.done ? { done: true, status: "Established" } : r;
    }
    case "Deployment": {
      const r = deploymentCheck(obj);
      return r.done
        ? { done: true, status: `Available (${r.status.replace(/^available \(|\)$/g, "")})` }
        : { done: false, status: `Unavailable: ${r.status}` };
    }
    case "ClusterServiceVersion":
      return csvCheck(obj);
    case "CatalogSource": {
      const state = obj.status?.connectionState?.lastObservedState as string | undefined;
      if (state === "READY") return { done: true, status: "READY" };
      if (obj.status?.reason)
        return { done: false, status: `${obj.status.reason}: ${obj.status.message ?? ""}`.trim() };
      return { done: false, status: state ?? "no connection yet" };
    }
    default:
      return { done: true, status: "Installed" };
  }
}

/** CSV Succeeded. Failed is reported but not treated as final: OLM retries several Failed reasons. */
export function csvCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "Missing" };
  const phase = (obj.status?.phase as string | undefined) ?? "";
  if (phase === "Succeeded") return { done: true, status: "Succeeded" };
  const reason = obj.status?.reason
    ? ` (${obj.status.reason}${obj.status.message ? `: ${obj.status.message}` : ""})`
    : "";
  return { done: false, status: `${phase || "no phase yet"}${reason}` };
}
