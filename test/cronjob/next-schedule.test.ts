// getNextSchedule (the tutorial's scheduling arithmetic) and the reconciler's pure helpers: which
// run was missed, the next one, the starting deadline, the guard against too many missed starts,
// the Job made for a run and the finished Jobs a history limit deletes.
import { describe, expect, it } from "vitest";
import type { CronJob } from "./project/src/api/v1/cronjob.js";
import { CronSyntaxError } from "./project/src/cron/schedule.js";
import {
  constructJobForCronJob,
  type Job,
  jobsOverLimit,
  SCHEDULED_TIME_ANNOTATION,
} from "./project/src/controllers/cronjob.controller.js";
import {
  getNextSchedule,
  MAX_MISSED_STARTS,
  TooManyMissedStartsError,
} from "./project/src/controllers/next-schedule.js";

function cronJob(
  spec: Partial<NonNullable<CronJob["spec"]>>,
  created: string,
  lastScheduleTime?: string,
): CronJob {
  return {
    apiVersion: "batch.tutorial.kubebuilder.io/v1",
    kind: "CronJob",
    metadata: { name: "hello", namespace: "ns", uid: "uid-1", creationTimestamp: created },
    spec: { schedule: "* * * * *", jobTemplate: {}, ...spec },
    status: lastScheduleTime ? { lastScheduleTime: lastScheduleTime as never } : {},
  } as CronJob;
}
const iso = (d: Date | undefined) => d?.toISOString();

describe("getNextSchedule", () => {
  it("nothing missed yet: only the next run", () => {
    const r = getNextSchedule(cronJob({}, "2026-01-01T10:00:30Z"), new Date("2026-01-01T10:00:50Z"));
    expect(iso(r.lastMissed)).toBeUndefined();
    expect(iso(r.next)).toBe("2026-01-01T10:01:00.000Z");
  });

  it("missed runs since the creation: the latest of them, and the next", () => {
    const r = getNextSchedule(cronJob({}, "2026-01-01T10:00:30Z"), new Date("2026-01-01T10:03:30Z"));
    expect(iso(r.lastMissed)).toBe("2026-01-01T10:03:00.000Z");
    expect(iso(r.next)).toBe("2026-01-01T10:04:00.000Z");
  });

  it("counts from status.lastScheduleTime when there is one (that run is not missed again)", () => {
    const job = cronJob({ schedule: "*/5 * * * *" }, "2026-01-01T09:00:00Z", "2026-01-01T10:05:00Z");
    expect(getNextSchedule(job, new Date("2026-01-01T10:09:59Z"))).toEqual({
      lastMissed: undefined,
      next: new Date("2026-01-01T10:10:00Z"),
    });
    expect(iso(getNextSchedule(job, new Date("2026-01-01T10:10:00Z")).lastMissed)).toBe(
      "2026-01-01T10:10:00.000Z",
    );
  });

  it(`allows ${MAX_MISSED_STARTS} missed starts and refuses one more`, () => {
    const job = cronJob({}, "2026-01-01T10:00:00Z");
    const hundred = new Date(Date.parse("2026-01-01T10:00:00Z") + MAX_MISSED_STARTS * 60_000);
    expect(iso(getNextSchedule(job, hundred).lastMissed)).toBe(hundred.toISOString());
    const more = new Date(hundred.getTime() + 60_000);
    expect(() => getNextSchedule(job, more)).toThrow(TooManyMissedStartsError);
    expect(() => getNextSchedule(job, more)).toThrow(
      "more than 100 missed start times since 2026-01-01T10:00:00.000Z: set or decrease .spec.startingDeadlineSeconds",
    );
  });

  it("startingDeadlineSeconds: runs older than the deadline are not counted (no error after a long outage)", () => {
    const job = cronJob({ startingDeadlineSeconds: 150 as never }, "2026-01-01T10:00:00Z");
    const r = getNextSchedule(job, new Date("2026-01-03T10:00:30Z"));
    expect(iso(r.lastMissed)).toBe("2026-01-03T10:00:00.000Z");
    expect(iso(r.next)).toBe("2026-01-03T10:01:00.000Z");
    // A deadline shorter than the time since the last run: nothing left to start.
    const tight = cronJob(
      { schedule: "0 * * * *", startingDeadlineSeconds: 60 as never },
      "2026-01-01T10:00:00Z",
    );
    expect(getNextSchedule(tight, new Date("2026-01-01T11:05:00Z")).lastMissed).toBeUndefined();
  });

  it("a creation time after now (clock skew): only the next run", () => {
    const r = getNextSchedule(cronJob({}, "2026-01-01T10:10:00Z"), new Date("2026-01-01T10:00:30Z"));
    expect(r).toEqual({ next: new Date("2026-01-01T10:01:00Z") });
  });

  it("a schedule that never fires again has no next run; a bad one throws CronSyntaxError", () => {
    const never = getNextSchedule(
      cronJob({ schedule: "0 0 30 2 *" }, "2026-01-01T10:00:00Z"),
      new Date("2026-03-01T00:00:00Z"),
    );
    expect(never).toEqual({ lastMissed: undefined, next: undefined });
    expect(() =>
      getNextSchedule(cronJob({ schedule: "61 * * * *" }, "2026-01-01T10:00:00Z"), new Date()),
    ).toThrow(CronSyntaxError);
  });
});

describe("the Job for a run", () => {
  it("is named by the run's Unix time, carries the template and the run's time, and is owned by the CronJob", () => {
    const owner = cronJob(
      {
        jobTemplate: {
          metadata: { labels: { app: "hello" }, annotations: { note: "x" } },
          spec: {
            template: { spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } },
          },
        },
      },
      "2026-01-01T10:00:00Z",
    );
    const job = constructJobForCronJob(owner, new Date("2026-01-01T10:05:00Z"));
    expect(job.metadata).toEqual({
      name: "hello-1767261900",
      namespace: "ns",
      labels: { app: "hello" },
      annotations: { note: "x", [SCHEDULED_TIME_ANNOTATION]: "2026-01-01T10:05:00Z" },
      ownerReferences: [
        {
          apiVersion: "batch.tutorial.kubebuilder.io/v1",
          kind: "CronJob",
          name: "hello",
          uid: "uid-1",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(job.spec).toEqual(owner.spec!.jobTemplate.spec);
    expect(job.spec).not.toBe(owner.spec!.jobTemplate.spec); // a copy
  });
});

describe("jobsOverLimit", () => {
  const job = (name: string, startTime?: string): Job => ({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: "ns" },
    status: startTime ? { startTime } : {},
  });
  const names = (jobs: Job[]) => jobs.map((j) => j.metadata.name);
  const finished = [
    job("c", "2026-01-01T10:03:00Z"),
    job("a", "2026-01-01T10:01:00Z"),
    job("none"),
    job("b", "2026-01-01T10:02:00Z"),
  ];

  it("deletes the oldest by startTime (none counts as oldest) beyond the limit", () => {
    expect(names(jobsOverLimit(finished, 2))).toEqual(["none", "a"]);
    expect(names(jobsOverLimit(finished, 0))).toEqual(["none", "a", "b", "c"]);
    expect(jobsOverLimit(finished, 4)).toEqual([]);
    expect(jobsOverLimit(finished, undefined)).toEqual([]); // no limit: keep all
  });
});
