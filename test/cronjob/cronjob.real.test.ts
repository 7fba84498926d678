// kubebuilder's CronJob tutorial, ported to tsop (test/cronjob/project), on the real kube-apiserver:
// its CRD made by `tsop generate` (the built CLI, in a copy of the project) and installed with
// kubectl, the manager started in this process with a test clock, and a CronJob that runs every
// minute. Each run's Job is created by the reconcile that `requeueAfter` schedules for the run's
// time, named for it and owned by the CronJob; the test marks Jobs succeeded or failed by writing
// their status (this bed runs no kube-controller-manager, so no Job controller competes), and the
// history limits delete the oldest finished Jobs while status.active and lastScheduleTime follow.
// kubectl is the independent reader of the end state.
import { execa } from "execa";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Logger, Manager, type Reconciler, type Result } from "tsop";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { linkDependencies } from "../devloop/project.js";
import { waitFor as waitForWithin } from "../runtime/support/wait.js";
import {
  type Clock,
  CronJobReconciler,
  type Job,
  SCHEDULED_TIME_ANNOTATION,
} from "./project/src/controllers/cronjob.controller.js";

/**
 * Waits for a condition, polling every 200 ms (many probes run kubectl) for up to 30 s: the
 * machine is shared, and a reconcile after a requeue or an event can take a few seconds there.
 */
function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | null | Promise<T | undefined | false | null>,
) {
  return waitForWithin(what, probe, 30_000, 200);
}

const PROJECT = fileURLToPath(new URL("./project/", import.meta.url));
const NS = "cron";
const CRONJOBS = "cronjobs.batch.tutorial.kubebuilder.io";
const API_VERSION = "batch.tutorial.kubebuilder.io/v1";

/**
 * The reconciler's clock: frozen at a time the test sets (so a reconcile's requeueAfter is exact),
 * or running at real speed from where it was frozen.
 */
class TestClock implements Clock {
  private frozenAt: number | undefined = undefined;
  private offsetMs = 0;
  now(): Date {
    return new Date(this.frozenAt ?? Date.now() + this.offsetMs);
  }
  freeze(at: number): void {
    this.frozenAt = at;
  }
  run(): void {
    if (this.frozenAt === undefined) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }
}

let cluster: RealTestCluster;
let manager: Manager;
let projectCopy: string;
const clock = new TestClock();
/** Every reconcile's CronJob and result, in order. */
const reconciles: Array<{ name: string; result: Result | undefined }> = [];
const logs: string[] = [];

async function kubectl(...args: string[]): Promise<string> {
  const done = await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], { reject: false });
  if (done.exitCode !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${done.stderr}`);
  return done.stdout;
}
async function kubectlJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await kubectl(...args, "-o", "json")) as T;
}

beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real", namespaces: [NS] });
  // The CRD, as a user makes it: `tsop generate` in the project.
  projectCopy = await mkdtemp(join(tmpdir(), "tsop-cronjob-"));
  await cp(PROJECT, projectCopy, { recursive: true });
  await linkDependencies(projectCopy);
  const generate = await runTsop(["generate"], { cwd: projectCopy, timeoutMs: 180_000 });
  expect(generate.exitCode, generate.stderr).toBe(0);
  const crdFile = join(projectCopy, "config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml");
  expect(await readFile(crdFile, "utf8")).toContain("name: cronjobs.batch.tutorial.kubebuilder.io");
  // Server-side: the CRD (with the Job template's full schema) is too big for client-side apply.
  await kubectl("apply", "--server-side", "-f", crdFile);
  // (Not `kubectl wait`: it fails instead of waiting while the CRD has no conditions yet.)
  await waitFor("the CRD to be established", async () => {
    const crd = await kubectlJson<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
      "get",
      "crd",
      CRONJOBS,
    );
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });

  manager = await Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    namespace: NS,
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
  });
  const inner = new CronJobReconciler(clock);
  const recording: Reconciler = {
    async reconcile(request, ctx) {
      const result = await inner.reconcile(request, ctx);
      reconciles.push({ name: request.name, result });
      return result;
    },
  };
  await CronJobReconciler.setup(manager, recording);
  manager.start().catch((error: unknown) => logs.push(`manager failed: ${String(error)}`));
  await waitFor("the caches to sync", () => manager.cachesSynced());
}, 600_000);

afterAll(async () => {
  await manager?.stop();
  await cluster?.stop();
  if (projectCopy) await rm(projectCopy, { recursive: true, force: true });
});

/** Where the Job of a run is: what the server has, read live. */
async function serverJobs(): Promise<Job[]> {
  return (await kubectlJson<{ items: Job[] }>("get", "jobs", "-n", NS)).items;
}

const MINUTE = 60_000;
/** Frozen this long before each run: the reconcile it provokes must answer requeueAfter = LEAD. */
const LEAD = 3000;

describe("the CronJob tutorial on the real kube-apiserver", () => {
  it("rejects a CronJob the generated CRD's schema forbids", async () => {
    const bad = JSON.stringify({
      apiVersion: API_VERSION,
      kind: "CronJob",
      metadata: { name: "bad", namespace: NS },
      spec: { schedule: "* * * * *", concurrencyPolicy: "Sometimes", jobTemplate: {} },
    });
    const done = await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, "create", "-f", "-"], {
      input: bad,
      reject: false,
    });
    expect(done.exitCode).not.toBe(0);
    expect(done.stderr).toContain('spec.concurrencyPolicy: Unsupported value: "Sometimes"');
  });

  it("creates a Job per run on schedule, owned by the CronJob, and keeps the history limits", async () => {
    // Frozen well before the CronJob exists: no run can be due when it is first reconciled.
    clock.freeze(Date.now() - 2 * MINUTE);
    const cronJob = {
      apiVersion: API_VERSION,
      kind: "CronJob",
      metadata: { name: "hello", namespace: NS },
      spec: {
        schedule: "*/1 * * * *",
        concurrencyPolicy: "Allow",
        successfulJobsHistoryLimit: 2,
        failedJobsHistoryLimit: 1,
        // No jobTemplate.metadata: the CRD keeps an embedded ObjectMeta as a bare object (as
        // controller-gen does without generateEmbeddedObjectMeta), so the server would prune it.
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: "OnFailure", containers: [{ name: "hello", image: "busybox:1.36" }] },
            },
          },
        },
      },
    };
    await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, "create", "-f", "-"], {
      input: JSON.stringify(cronJob),
    });
    const created = await kubectlJson<{ metadata: { uid: string; creationTimestamp: string } }>(
      "get",
      CRONJOBS,
      "hello",
      "-n",
      NS,
    );
    const uid = created.metadata.uid;
    await waitFor("the first reconcile", () => reconciles.length > 0);
    expect(await serverJobs()).toEqual([]);

    // The runs: every whole minute after the creation.
    const firstRun = Math.floor(Date.parse(created.metadata.creationTimestamp) / MINUTE) * MINUTE + MINUTE;
    const runs = [0, 1, 2, 3, 4, 5].map((i) => firstRun + i * MINUTE);
    const jobName = (run: number) => `hello-${run / 1000}`;
    // How each run's Job ends (the last one stays running).
    const outcomes = ["Complete", "Complete", "Failed", "Complete", "Failed"] as const;

    for (const [i, run] of runs.entries()) {
      // Just before the run, something happens that reconciles the CronJob: a user's edit at first,
      // then the previous Job finishing. That reconcile must wait for the run with requeueAfter.
      const mark = reconciles.length;
      clock.freeze(run - LEAD);
      if (i === 0) await kubectl("annotate", CRONJOBS, "hello", "-n", NS, "example.com/poke=1");
      else await finishJob(jobName(runs[i - 1]!), runs[i - 1]!, outcomes[i - 1]!);
      await waitFor(`a reconcile before run ${i + 1} to requeue for it`, () =>
        reconciles.slice(mark).some((r) => r.result?.requeueAfter === LEAD),
      );
      expect(await serverJobs().then((jobs) => jobs.map((j) => j.metadata.name))).not.toContain(jobName(run));
      // From here only the requeue can start the run: no event comes until the Job exists.
      clock.run();
      const job = await waitFor(`run ${i + 1}'s Job ${jobName(run)}`, async () =>
        (await manager.apiReader.list<Job>({ apiVersion: "batch/v1", kind: "Job" }, { namespace: NS })).find(
          (j) => j.metadata.name === jobName(run),
        ),
      );
      expect(job.metadata.annotations?.[SCHEDULED_TIME_ANNOTATION]).toBe(
        new Date(run).toISOString().replace(".000", ""),
      );
    }

    // Kept: the 2 newest successful Jobs, the newest failed one, and the running one.
    const kept = [runs[1]!, runs[3]!, runs[4]!, runs[5]!].map(jobName);
    const listed = await waitFor("the history limits", async () => {
      const jobs = await serverJobs();
      return jobs.map((j) => j.metadata.name).join() === kept.join() ? jobs : undefined;
    });
    for (const job of listed)
      expect(job.metadata.ownerReferences).toEqual([
        {
          apiVersion: API_VERSION,
          kind: "CronJob",
          name: "hello",
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    const running = listed.find((j) => j.metadata.name === jobName(runs[5]!))!;
    const status = await waitFor("the CronJob's status to list only the running Job", async () => {
      const cj = await kubectlJson<{
        status?: { active?: Array<Record<string, string>>; lastScheduleTime?: string };
      }>("get", CRONJOBS, "hello", "-n", NS);
      return cj.status?.active?.length === 1 ? cj.status : undefined;
    });
    expect(status.active![0]).toMatchObject({
      apiVersion: "batch/v1",
      kind: "Job",
      name: running.metadata.name,
      namespace: NS,
      uid: running.metadata.uid,
    });
    expect(status.lastScheduleTime).toBe(new Date(runs[5]!).toISOString().replace(".000", ""));
    expect(logs.filter((l) => l.includes('"deleted old finished job"'))).toHaveLength(2);
  });
});

describe("the CronJob tutorial's policies on the real kube-apiserver", () => {
  it("Forbid skips a run while a Job runs, Replace deletes it, suspend starts nothing, a run past startingDeadlineSeconds is not started", async () => {
    await kubectl("delete", CRONJOBS, "hello", "-n", NS, "--ignore-not-found");
    clock.freeze(Date.now() - 2 * MINUTE);
    const cronJob = {
      apiVersion: API_VERSION,
      kind: "CronJob",
      metadata: { name: "policy", namespace: NS },
      spec: {
        schedule: "* * * * *",
        concurrencyPolicy: "Forbid",
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] },
            },
          },
        },
      },
    };
    await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, "create", "-f", "-"], {
      input: JSON.stringify(cronJob),
    });
    const created = await kubectlJson<{ metadata: { creationTimestamp: string } }>(
      "get",
      CRONJOBS,
      "policy",
      "-n",
      NS,
    );
    const run = (i: number) =>
      Math.floor(Date.parse(created.metadata.creationTimestamp) / MINUTE) * MINUTE + i * MINUTE;
    const jobName = (i: number) => `policy-${run(i) / 1000}`;
    const policyJobs = async () =>
      (await serverJobs()).map((j) => j.metadata.name).filter((name) => name.startsWith("policy-"));
    /** Runs `act` and waits for a reconcile of "policy" after it whose result passes `done`. */
    async function reconciled(
      what: string,
      act: () => Promise<unknown>,
      done: (r: Result | undefined) => boolean,
    ) {
      const mark = reconciles.length;
      await act();
      await waitFor(what, () => reconciles.slice(mark).some((r) => r.name === "policy" && done(r.result)));
    }
    let pokes = 0;
    const poke = () =>
      kubectl("annotate", "--overwrite", CRONJOBS, "policy", "-n", NS, `example.com/poke=${++pokes}`);
    const spec = (patch: object) =>
      kubectl("patch", CRONJOBS, "policy", "-n", NS, "--type=merge", "-p", JSON.stringify({ spec: patch }));

    // Run 1 is due: its Job starts (and never finishes).
    clock.freeze(run(1) + 1000);
    await poke();
    await waitFor("run 1's Job", async () => (await policyJobs()).includes(jobName(1)));

    // Run 2 is due while run 1's Job is active: Forbid skips it, waiting for run 3.
    clock.freeze(run(2) + 1000);
    await reconciled("Forbid to skip run 2", poke, (r) => r?.requeueAfter === MINUTE - 1000);
    expect(await policyJobs()).toEqual([jobName(1)]);

    // Replace: run 1's Job makes way for run 2's.
    await spec({ concurrencyPolicy: "Replace" });
    await waitFor("Replace to swap the Jobs", async () => (await policyJobs()).join() === jobName(2));

    // Suspended: run 3 comes and nothing starts.
    await reconciled(
      "the suspended CronJob's reconcile",
      () => spec({ suspend: true }),
      (r) => r === undefined,
    );
    clock.freeze(run(3) + 1000);
    await reconciled("a reconcile while suspended at run 3", poke, (r) => r === undefined);
    expect(await policyJobs()).toEqual([jobName(2)]);

    // Resumed 30 s after run 3 with a 10 s starting deadline: run 3 is too late to start; run 4 starts.
    clock.freeze(run(3) + 30_000);
    await reconciled(
      "the resumed CronJob to wait for run 4",
      () => spec({ suspend: false, startingDeadlineSeconds: 10 }),
      (r) => r?.requeueAfter === 30_000,
    );
    expect(await policyJobs()).toEqual([jobName(2)]);
    clock.freeze(run(4) + 5000);
    await poke();
    // (Replace still holds: run 2's Job, still running, makes way.)
    await waitFor("run 4's Job", async () => (await policyJobs()).join() === jobName(4));
  });
});

describe("the CronJob tutorial as the operator's own process", () => {
  it("src/main.ts on the real clock starts the first run's Job at the next whole minute", async () => {
    await manager.stop(); // this process's manager (and its test clock) steps aside
    const operator = execa(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/main.ts",
        "--namespace",
        NS,
        "--metrics-bind-address",
        "0",
        "--health-probe-bind-address",
        "0",
      ],
      { cwd: PROJECT, env: { KUBECONFIG: cluster.kubeconfigPath }, reject: false, all: true },
    );
    try {
      const cronJob = {
        apiVersion: API_VERSION,
        kind: "CronJob",
        metadata: { name: "live", namespace: NS },
        spec: {
          schedule: "* * * * *",
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1.36" }] },
              },
            },
          },
        },
      };
      await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, "create", "-f", "-"], {
        input: JSON.stringify(cronJob),
      });
      const created = await kubectlJson<{ metadata: { creationTimestamp: string } }>(
        "get",
        CRONJOBS,
        "live",
        "-n",
        NS,
      );
      const firstRun = Math.floor(Date.parse(created.metadata.creationTimestamp) / MINUTE) * MINUTE + MINUTE;
      // Up to a minute of real time until the run, then the requeue's reconcile.
      await waitForWithin(
        `the operator to start live-${firstRun / 1000}`,
        async () => {
          if (operator.exitCode !== null) throw new Error(`the operator exited: ${(await operator).all}`);
          return (await serverJobs()).some((j) => j.metadata.name === `live-${firstRun / 1000}`);
        },
        firstRun - Date.now() + 30_000,
        500,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(firstRun);
    } finally {
      operator.kill("SIGTERM");
      await operator;
    }
    // A graceful shutdown on SIGTERM: manager.start() resolves and the process ends by itself.
    const ended = await operator;
    expect(ended.exitCode, ended.all).toBe(0);
  }, 150_000);
});

/** Writes a Job's status as the Job controller would when it ends (a minute after its run). */
async function finishJob(name: string, run: number, outcome: "Complete" | "Failed"): Promise<void> {
  const startTime = new Date(run + 1000).toISOString().replace(".000", "");
  const status =
    outcome === "Complete"
      ? {
          startTime,
          completionTime: new Date(run + 30_000).toISOString().replace(".000", ""),
          succeeded: 1,
          conditions: [
            { type: "SuccessCriteriaMet", status: "True" },
            { type: "Complete", status: "True" },
          ],
        }
      : {
          startTime,
          failed: 1,
          conditions: [
            { type: "FailureTarget", status: "True" },
            { type: "Failed", status: "True" },
          ],
        };
  await kubectl(
    "patch",
    "job",
    name,
    "-n",
    NS,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status }),
  );
}
