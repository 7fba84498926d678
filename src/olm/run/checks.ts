// What "ready" and "failed" mean for each phase of a run, as checks for kube's watch-based waitFor:
// registry pod, CatalogSource connection, Subscription resolution, InstallPlan, CSV. Each check turns
// OLM's own status (conditions, reasons, messages) into a progress line, and says when a state is
// terminal so tsop fails fast with OLM's words instead of waiting for the timeout.
import type { CheckResult } from "../../kube/wait.js";
import { type ContainerStatus, conditionsOf, findCondition, type KubeObject } from "../../kube/objects.js";
import { formatDuration } from "../../common/duration.js";

/** Waiting reasons a registry pod does not recover from without a change. */
const FATAL_WAITING = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "CrashLoopBackOff",
]);

export function registryPodCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "not created yet" };
  if (obj.metadata.deletionTimestamp)
    return { done: false, status: "being deleted", failed: "the registry pod is being deleted" };
  const status = obj.status ?? {};
  const statuses = [
    ...((status.initContainerStatuses ?? []) as ContainerStatus[]),
    ...((status.containerStatuses ?? []) as ContainerStatus[]),
  ];
  for (const cs of statuses) {
    const waiting = cs.state?.waiting;
    if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
      const text = `container ${cs.name} is waiting: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ""}`;
      return { done: false, status: text, failed: text };
    }
    const terminated = cs.state?.terminated;
    if (terminated && (terminated.exitCode ?? 0) !== 0) {
      const text = `container ${cs.name} exited with code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ""}`;
      return { done: false, status: text, failed: text };
    }
  }
  if (status.phase === "Failed")
    return {
      done: false,
      status: "Failed",
      failed: `pod failed${status.message ? `: ${status.message}` : ""}`,
    };
  const ready = findCondition(obj, "Ready");
  if (status.phase === "Running" && (ready ? ready.status === "True" : true))
    return { done: true, status: "serving the catalog" };
  if (status.phase === "Running")
    return { done: false, status: "running; waiting for opm to answer health checks" };
  return { done: false, status: `phase ${status.phase ?? "Pending"}` };
}

export function catalogReadyCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "not created yet" };
  const status = obj.status ?? {};
  if (status.reason === "SpecInvalidError") {
    const text = `OLM rejected the CatalogSource: ${status.message ?? status.reason}`;
    return { done: false, status: text, failed: text };
  }
  const state = status.connectionState?.lastObservedState as string | undefined;
  if (state === "READY") return { done: true, status: "READY" };
  const problem = status.reason ? ` (${status.reason}${status.message ? `: ${status.message}` : ""})` : "";
  return { done: false, status: `connection ${state ?? "not observed by OLM yet"}${problem}` };
}

/** Resolved when the Subscription points at an InstallPlan other than `previousPlan`. */
export function subscriptionCheck(previousPlan: string | undefined) {
  return (obj: KubeObject | undefined): CheckResult => {
    if (!obj) return { done: false, status: "not created yet" };
    const plan = obj.status?.installPlanRef?.name as string | undefined;
    if (plan && plan !== previousPlan) return { done: true, status: `resolved: InstallPlan ${plan}` };
    const resolution = findCondition(obj, "ResolutionFailed");
    if (resolution?.status === "True") {
      const text = `resolution failed${resolution.reason ? ` (${resolution.reason})` : ""}: ${resolution.message ?? ""}`;
      // ConstraintsNotSatisfiable is terminal in OLM; other reasons are retried.
      if (resolution.reason === "ConstraintsNotSatisfiable")
        return { done: false, status: text, failed: text };
      return { done: false, status: text };
    }
    const unpackFailed = findCondition(obj, "BundleUnpackFailed");
    if (unpackFailed?.status === "True") {
      const text = `bundle unpacking failed${unpackFailed.reason ? ` (${unpackFailed.reason})` : ""}: ${unpackFailed.message ?? ""}`;
      return { done: false, status: text, failed: text };
    }
    const unpacking = findCondition(obj, "BundleUnpacking");
    if (unpacking?.status === "True") {
      const text = `unpacking the bundle: ${unpacking.message ?? unpacking.reason ?? ""}`;
      // The cluster cannot pull the bundle image: OLM would only give up after its unpack timeout.
      if (/ImagePullBackOff|InvalidImageName/.test(unpacking.message ?? ""))
        return { done: false, status: text, failed: text };
      return { done: false, status: text };
    }
    const unhealthy = findCondition(obj, "CatalogSourcesUnhealthy");
    if (unhealthy?.status === "True")
      return { done: false, status: `catalog sources unhealthy: ${unhealthy.message ?? ""}` };
    return {
      done: false,
      status: obj.status?.state ? `state ${obj.status.state}` : "waiting for OLM to resolve it",
    };
  };
}

export function installPlanCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "not found" };
  const phase = (obj.status?.phase as string | undefined) ?? "";
  if (phase === "Complete") return { done: true, status: "Complete" };
  if (phase === "Failed") {
    const installed = findCondition(obj, "Installed");
    const text = `InstallPlan failed${installed?.reason ? ` (${installed.reason})` : ""}: ${installed?.message ?? obj.status?.message ?? ""}`;
    return { done: false, status: text, failed: text };
  }
  const message = obj.status?.message ? `: ${obj.status.message}` : "";
  return { done: false, status: `phase ${phase || "Planning"}${message}` };
}

/** CSV Failed reasons OLM does not leave by itself. Others are re-evaluated (spec §6.5). */
const TERMINAL_CSV_REASONS = new Set([
  "InstallComponentFailedNoRetry",
  "InvalidInstallModes",
  "InvalidInstallStrategy",
  "InvalidWebhookDescription",
  "OwnerConflict",
  "APIServiceResourceIssue",
]);

export function isTerminalCsvFailure(reason: string | undefined, message: string | undefined): boolean {
  if (TERMINAL_CSV_REASONS.has(reason ?? "")) return true;
  return reason === "InstallCheckFailed" && message === "install timeout";
}

/**
 * Succeeded → done. Failed → fatal at once for terminal reasons; otherwise only once it has stayed
 * Failed for `graceMs` (OLM moves many Failed CSVs back to Pending on its own).
 */
export function csvCheck(graceMs: number, now: () => number = Date.now) {
  let failedSince: number | undefined;
  return (obj: KubeObject | undefined): CheckResult => {
    if (!obj) {
      failedSince = undefined;
      return { done: false, status: "waiting for OLM to create it" };
    }
    const status = obj.status ?? {};
    const phase = (status.phase as string | undefined) ?? "";
    const detail = `${status.reason ? ` (${status.reason})` : ""}${status.message ? `: ${status.message}` : ""}`;
    if (phase === "Succeeded") return { done: true, status: "Succeeded" };
    const unmet = unmetCsvRequirement(obj);
    if (unmet) {
      // The CSV's own requirement (minKubeVersion): OLM keeps it Pending, but the server's version
      // will not change while tsop waits.
      const text = `phase ${phase || "Pending"}${detail}; ${unmet}`;
      return { done: false, status: text, failed: text };
    }
    if (phase !== "Failed") {
      failedSince = undefined;
      return { done: false, status: `phase ${phase || "(none yet)"}${detail}` };
    }
    const text = `phase Failed${detail}`;
    if (isTerminalCsvFailure(status.reason, status.message))
      return { done: false, status: text, failed: text };
    failedSince ??= now();
    if (now() - failedSince >= graceMs) {
      return { done: false, status: text, failed: `${text} (still Failed after ${formatDuration(graceMs)})` };
    }
    return { done: false, status: `${text}; OLM may retry` };
  };
}

/**
 * OLM's message for a requirement of the CSV itself that the cluster does not meet (OLM checks
 * spec.minKubeVersion against the server's version and records it in status.requirementStatus as
 * kind ClusterServiceVersion, PresentNotSatisfied), if the CSV waits on one.
 */
export function unmetCsvRequirement(obj: KubeObject): string | undefined {
  if (obj.status?.reason !== "RequirementsNotMet") return undefined;
  const statuses = (obj.status?.requirementStatus ?? []) as Array<{
    kind?: string;
    name?: string;
    status?: string;
    message?: string;
  }>;
  const own = statuses.find(
    (r) =>
      r.kind === "ClusterServiceVersion" &&
      r.name === obj.metadata.name &&
      r.status === "PresentNotSatisfied",
  );
  return own ? (own.message ?? "a requirement of the CSV itself is not met") : undefined;
}

/** One line per condition, for diagnostics of objects whose conditions the generic describer skips. */
export function conditionLines(obj: KubeObject | undefined): string[] {
  return conditionsOf(obj).map(
    (c) =>
      `condition ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`,
  );
}

/** READY on a given address: after a switch, the old connection's READY does not count. */
export function catalogServingCheck(address: string) {
  return (obj: KubeObject | undefined): CheckResult => {
    const base = catalogReadyCheck(obj);
    const observed = obj?.status?.connectionState?.address as string | undefined;
    if (base.done && observed !== address)
      return { done: false, status: `OLM has not connected to ${address} yet` };
    return base;
  };
}
