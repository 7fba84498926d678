// The CronJob kind of kubebuilder's CronJob tutorial (api/v1/cronjob_types.go), declared with
// tsop's decorators: `tsop generate` makes its CRD from this file.
import type { V1JobTemplateSpec, V1ObjectReference } from "@kubernetes/client-node";
import { CustomResource, type DateTime, type Int32, type Int64, KubeObject, Status } from "tsop";

/**
 * ConcurrencyPolicy describes how the job will be handled.
 * Only one of the following concurrent policies may be specified.
 * If none of the following policies is specified, the default one
 * is Allow.
 */
export type ConcurrencyPolicy = "Allow" | "Forbid" | "Replace";

/** CronJobSpec defines the desired state of CronJob. */
export interface CronJobSpec {
  /**
   * The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
   * @minLength 0
   */
  schedule: string;
  /**
   * Optional deadline in seconds for starting the job if it misses scheduled
   * time for any reason.  Missed jobs executions will be counted as failed ones.
   * @minimum 0
   */
  startingDeadlineSeconds?: Int64;
  /**
   * Specifies how to treat concurrent executions of a Job.
   * Valid values are:
   * - "Allow" (default): allows CronJobs to run concurrently;
   * - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
   * - "Replace": cancels currently running job and replaces it with a new one
   */
  concurrencyPolicy?: ConcurrencyPolicy;
  /**
   * This flag tells the controller to suspend subsequent executions, it does
   * not apply to already started executions.  Defaults to false.
   */
  suspend?: boolean;
  /** Specifies the job that will be created when executing a CronJob. */
  jobTemplate: V1JobTemplateSpec;
  /**
   * The number of successful finished jobs to retain.
   * Absent means no limit; 0 keeps none.
   * @minimum 0
   */
  successfulJobsHistoryLimit?: Int32;
  /**
   * The number of failed finished jobs to retain.
   * Absent means no limit; 0 keeps none.
   * @minimum 0
   */
  failedJobsHistoryLimit?: Int32;
}

/** CronJobStatus defines the observed state of CronJob. */
export interface CronJobStatus {
  /**
   * A list of pointers to currently running jobs.
   * @listType atomic
   */
  active?: V1ObjectReference[];
  /** Information when was the last time the job was successfully scheduled. */
  lastScheduleTime?: DateTime;
}

/** CronJob is the Schema for the cronjobs API. */
@CustomResource({ group: "batch.tutorial.kubebuilder.io", version: "v1", plural: "cronjobs" })
@Status()
export class CronJob extends KubeObject<CronJobSpec, CronJobStatus> {}
