// The CronJob controller of kubebuilder's tutorial (internal/controller/cronjob_controller.go) on
// tsop: Jobs found through a field index on their controller owner (`matchingFields`), status
// rebuilt from them on every reconcile (`patchStatus`), history limits, concurrency policy,
// suspend and the starting deadline, a Job per scheduled time owned by the CronJob
// (`setControllerReference`), and `requeueAfter` to the next run. Time comes from an injectable
// Clock, so tests can move it.
import type { V1JobSpec, V1ObjectReference } from "@kubernetes/client-node";
import {
  type Manager,
  mergeFrom,
  type OwnerReference,
  Rbac,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  setControllerReference,
} from "tsop";
import { CronJob, type CronJobStatus } from "../api/v1/cronjob.js";
import { getNextSchedule } from "./next-schedule.js";

/** Knows the current time; tests inject their own to move time. */
export interface Clock {
  now(): Date;
}

export const realClock: Clock = { now: () => new Date() };

export const JOB = { apiVersion: "batch/v1", kind: "Job" } as const;
/** The annotation on each Job naming the scheduled time it runs for (RFC 3339). */
export const SCHEDULED_TIME_ANNOTATION = "batch.tutorial.kubebuilder.io/scheduled-at";
/** The field index of Jobs by the name of the CronJob that controls them. */
export const JOB_OWNER_KEY = ".metadata.controller";
const API_VERSION = "batch.tutorial.kubebuilder.io/v1";

/** The parts of a batch/v1 Job this controller reads and writes (timestamps arrive as strings). */
export interface Job {
  apiVersion: "batch/v1";
  kind: "Job";
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
  };
  spec?: V1JobSpec;
  status?: {
    startTime?: string;
    conditions?: Array<{ type: string; status: string }>;
  };
}

/** "Complete" or "Failed" once the Job has finished, else undefined (still running). */
export function finishedType(job: Job): "Complete" | "Failed" | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === "Complete" || c.type === "Failed") && c.status === "True") return c.type;
  }
  return undefined;
}

/** The scheduled time a Job was created for, from its annotation; undefined when absent. */
export function scheduledTimeOf(job: Job): Date | undefined {
  const raw = job.metadata.annotations?.[SCHEDULED_TIME_ANNOTATION];
  if (!raw) return undefined;
  const time = new Date(raw);
  if (Number.isNaN(time.getTime()))
    throw new Error(
      `Job ${job.metadata.name}: annotation ${SCHEDULED_TIME_ANNOTATION} "${raw}" is not a time`,
    );
  return time;
}

/**
 * The finished Jobs beyond `limit`, oldest first by status.startTime (Jobs without one count as
 * oldest): the ones to delete. No limit keeps them all.
 */
export function jobsOverLimit(finished: readonly Job[], limit: number | undefined): Job[] {
  if (limit === undefined) return [];
  const byStart = [...finished].sort((a, b) => startMs(a) - startMs(b));
  return byStart.slice(0, Math.max(0, byStart.length - limit));
}

function startMs(job: Job): number {
  const start = job.status?.startTime;
  return start ? new Date(start).getTime() : Number.NEGATIVE_INFINITY;
}

/** Formats a time as Go's time.RFC3339 does for UTC (no fractional seconds). */
function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The Job for one scheduled run: the template's spec, labels and annotations, owned by the CronJob. */
export function constructJobForCronJob(cronJob: CronJob, scheduledTime: Date): Job {
  const template = cronJob.spec?.jobTemplate;
  const job: Job = {
    ...JOB,
    metadata: {
      // One name per scheduled time: a second create for the same run fails instead of running twice.
      name: `${cronJob.metadata.name}-${Math.floor(scheduledTime.getTime() / 1000)}`,
      namespace: cronJob.metadata.namespace ?? "",
      labels: { ...template?.metadata?.labels },
      annotations: {
        ...template?.metadata?.annotations,
        [SCHEDULED_TIME_ANNOTATION]: rfc3339(scheduledTime),
      },
    },
    spec: structuredClone(template?.spec),
  };
  setControllerReference(cronJob, job);
  return job;
}

/** What ref.GetReference makes of a Job: the reference status.active lists. */
function referenceTo(job: Job): V1ObjectReference {
  const { name, namespace, uid, resourceVersion } = job.metadata;
  return { apiVersion: job.apiVersion, kind: job.kind, name, namespace, uid, resourceVersion };
}

@Rbac({
  groups: ["batch.tutorial.kubebuilder.io"],
  resources: ["cronjobs"],
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
})
@Rbac({
  groups: ["batch.tutorial.kubebuilder.io"],
  resources: ["cronjobs/status"],
  verbs: ["get", "update", "patch"],
})
@Rbac({ groups: ["batch.tutorial.kubebuilder.io"], resources: ["cronjobs/finalizers"], verbs: ["update"] })
@Rbac({
  groups: ["batch"],
  resources: ["jobs"],
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
})
@Rbac({ groups: ["batch"], resources: ["jobs/status"], verbs: ["get"] })
export class CronJobReconciler implements Reconciler {
  constructor(private readonly clock: Clock = realClock) {}

  /**
   * Indexes Jobs by their controlling CronJob's name and wires the controller: CronJob is the
   * primary kind, and every change to a Job it owns reconciles it again. Tests pass a reconciler
   * with their own clock.
   */
  static async setup(manager: Manager, reconciler: Reconciler = new CronJobReconciler()): Promise<void> {
    await manager.indexField(JOB, JOB_OWNER_KEY, (obj) => {
      const owner = (obj as Job).metadata.ownerReferences?.find((ref) => ref.controller);
      // Only Jobs a CronJob of this API controls.
      if (!owner || owner.apiVersion !== API_VERSION || owner.kind !== "CronJob") return [];
      return [owner.name];
    });
    await manager.controller(CronJob).owns(JOB).named("cronjob").complete(reconciler);
  }

  async reconcile(request: Request, { client, log }: ReconcileContext): Promise<Result | undefined> {
    // 1: Load the CronJob by name (gone: its Jobs go with it through garbage collection).
    const cronJob = await client.get(CronJob, request);
    if (!cronJob) return undefined;

    // 2: List the child Jobs through the index and rebuild the status from them.
    const childJobs = await client.list<Job>(JOB, {
      namespace: request.namespace,
      matchingFields: { [JOB_OWNER_KEY]: request.name },
    });
    const active: Job[] = [];
    const successful: Job[] = [];
    const failed: Job[] = [];
    let mostRecentTime: Date | undefined;
    for (const job of childJobs) {
      const finished = finishedType(job);
      (finished === "Complete" ? successful : finished === "Failed" ? failed : active).push(job);
      let scheduled: Date | undefined;
      try {
        scheduled = scheduledTimeOf(job);
      } catch (error) {
        log.error("unable to parse schedule time for child job", error, { job: job.metadata.name });
        continue;
      }
      if (scheduled && (!mostRecentTime || scheduled > mostRecentTime)) mostRecentTime = scheduled;
    }
    const before = structuredClone(cronJob);
    const status: CronJobStatus = {};
    if (active.length > 0) status.active = active.map(referenceTo);
    if (mostRecentTime)
      status.lastScheduleTime = rfc3339(mostRecentTime) as CronJobStatus["lastScheduleTime"];
    cronJob.status = status;
    log.debug("job count", { active: active.length, successful: successful.length, failed: failed.length });
    // Only what changed goes out, through the status subresource: no conflict with spec edits
    // (and nothing changes on the server when the status is as it was).
    await client.patchStatus(cronJob, mergeFrom(before));

    // 3: Delete the oldest finished Jobs beyond the history limits (best effort: a failure is
    // logged, not retried, as in the tutorial).
    const overLimit = [
      ...jobsOverLimit(failed, cronJob.spec?.failedJobsHistoryLimit),
      ...jobsOverLimit(successful, cronJob.spec?.successfulJobsHistoryLimit),
    ];
    for (const job of overLimit) {
      try {
        // false: already gone (a reconcile whose cache had not yet seen an earlier delete).
        if (await client.delete(job, { propagationPolicy: "Background" }))
          log.info("deleted old finished job", { job: job.metadata.name, result: finishedType(job) });
      } catch (error) {
        log.error("unable to delete old finished job", error, { job: job.metadata.name });
      }
    }

    // 4: A suspended CronJob starts nothing.
    if (cronJob.spec?.suspend) {
      log.debug("cronjob suspended, skipping");
      return undefined;
    }

    // 5: The run we missed (if any) and the next one.
    const now = this.clock.now();
    let missedRun: Date | undefined;
    let nextRun: Date | undefined;
    try {
      ({ lastMissed: missedRun, next: nextRun } = getNextSchedule(cronJob, now));
    } catch (error) {
      // Retrying cannot fix the schedule; the CronJob's next update will.
      log.error("unable to figure out CronJob schedule", error);
      return undefined;
    }
    const scheduledResult: Result | undefined = nextRun
      ? { requeueAfter: Math.max(0, nextRun.getTime() - now.getTime()) }
      : undefined;
    const runLog = log.child({ now: now.toISOString(), nextRun: nextRun?.toISOString() });
    if (!missedRun) {
      runLog.debug("no upcoming scheduled times, sleeping until next");
      return scheduledResult;
    }

    // 6: Run a Job if we are not past the deadline and the concurrency policy lets us.
    const deadline = cronJob.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && missedRun.getTime() + deadline * 1000 < now.getTime()) {
      runLog.debug("missed starting deadline for last run, sleeping till next", {
        run: missedRun.toISOString(),
      });
      return scheduledResult;
    }
    const policy = cronJob.spec?.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && active.length > 0) {
      runLog.debug("concurrency policy blocks concurrent runs, skipping", { active: active.length });
      return scheduledResult;
    }
    if (policy === "Replace") {
      // A Job already gone is fine (delete returns false).
      for (const job of active) await client.delete(job, { propagationPolicy: "Background" });
    }
    const job = constructJobForCronJob(cronJob, missedRun);
    await client.create(job);
    runLog.info("created Job for CronJob run", { job: job.metadata.name });

    // 7: Back when the next run is due; a Job's changes bring us back sooner (owns).
    return scheduledResult;
  }
}
