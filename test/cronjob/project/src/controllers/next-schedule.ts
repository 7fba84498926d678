// When a CronJob should have run last and when it runs next (the tutorial's getNextSchedule):
// pure arithmetic on the schedule, the CronJob's timestamps and the clock's `now`.
import { CronSchedule } from "../cron/schedule.js";
import type { CronJob } from "../api/v1/cronjob.js";

/** More missed runs than this means a wedged controller or a skewed clock, not a backlog to run. */
export const MAX_MISSED_STARTS = 100;

export class TooManyMissedStartsError extends Error {
  override name = "TooManyMissedStartsError";
}

export interface NextSchedule {
  /** The latest scheduled time in (earliest, now] that has not run yet, if any. */
  lastMissed?: Date;
  /** The first scheduled time after now; undefined when the schedule never fires again. */
  next?: Date;
}

/**
 * Counts from the last run (status.lastScheduleTime, else the CronJob's creation), or from
 * `now - startingDeadlineSeconds` when that is later: runs older than the deadline are not
 * started any more. Throws CronSyntaxError for a bad schedule and TooManyMissedStartsError past
 * MAX_MISSED_STARTS missed runs.
 */
export function getNextSchedule(cronJob: CronJob, now: Date): NextSchedule {
  const schedule = CronSchedule.parse(cronJob.spec?.schedule ?? "");
  const last = cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp;
  let earliest = last ? new Date(last) : now;
  const deadlineSeconds = cronJob.spec?.startingDeadlineSeconds;
  if (deadlineSeconds !== undefined) {
    const schedulingDeadline = new Date(now.getTime() - deadlineSeconds * 1000);
    if (schedulingDeadline > earliest) earliest = schedulingDeadline;
  }
  if (earliest > now) return { next: schedule.next(now) };

  let lastMissed: Date | undefined;
  let starts = 0;
  for (let t = schedule.next(earliest); t && t <= now; t = schedule.next(t)) {
    lastMissed = t;
    if (++starts > MAX_MISSED_STARTS)
      throw new TooManyMissedStartsError(
        `more than ${MAX_MISSED_STARTS} missed start times since ${earliest.toISOString()}: ` +
          "set or decrease .spec.startingDeadlineSeconds, or check the clocks for skew",
      );
  }
  return { lastMissed, next: schedule.next(now) };
}
