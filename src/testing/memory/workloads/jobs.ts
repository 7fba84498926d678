// The Job controller: runs up to parallelism pods until completions succeed, then sets
// SuccessCriteriaMet and Complete.
import { nowTimestamp } from "../engine.js";
import type { KObj } from "../types.js";
import { createPod, isReady, ownedBy, type WorkloadContext, writeStatus } from "./context.js";

/** Runs the Job's pods (parallelism, completions, suspend) and writes its status and conditions. */
export function reconcileJob(ctx: WorkloadContext, ns: string, name: string): void {
  const def = ctx.def("batch", "jobs");
  const podDef = ctx.def("", "pods");
  const job = ctx.engine.store.get(def.storageKey, ns, name);
  if (!job || job.metadata.deletionTimestamp) return;
  if (
    ((job.status?.conditions as KObj[] | undefined) ?? []).some(
      (c) => c.type === "Complete" && c.status === "True",
    )
  )
    return;
  const completions = Number(job.spec?.completions ?? 1);
  const parallelism = Number(job.spec?.parallelism ?? 1);
  const pods = ownedBy(ctx, podDef.storageKey, job);
  const succeeded = pods.filter((p) => p.status?.phase === "Succeeded").length;
  const failed = pods.filter((p) => p.status?.phase === "Failed").length;
  let active = pods.filter(
    (p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed" && !p.metadata.deletionTimestamp,
  ).length;
  const want = Math.min(parallelism, completions - succeeded);
  if (!job.spec?.suspend) {
    for (let i = active; i < want; i++) {
      createPod(ctx, job, "Job", `${name}-`);
      active++;
    }
  }
  const now = nowTimestamp();
  const status: KObj = { ...(job.status ?? {}), startTime: job.status?.startTime ?? now };
  status.active = active;
  status.succeeded = succeeded;
  status.failed = failed;
  status.ready = pods.filter(isReady).length;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  if (succeeded >= completions) {
    status.active = 0;
    status.completionTime = now;
    status.conditions = [
      {
        type: "SuccessCriteriaMet",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: now,
        lastTransitionTime: now,
      },
      {
        type: "Complete",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: now,
        lastTransitionTime: now,
      },
    ];
  }
  for (const k of ["active", "succeeded", "failed"]) if (status[k] === 0) delete status[k];
  writeStatus(ctx, def, job, status);
}
