// One run: a fresh cluster (in-memory, or the real control plane: cluster.ts), the author's arrangement, the operator started, the steps
// taken under one scenario, the run settled, its objects snapshot and its invariants checked.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, Manager } from "../../runtime/index.js";
import { type RunCluster, startRunCluster } from "./cluster.js";
import { uncoveredErrors } from "./invariants.js";
import { PerturbedOperator } from "./operator.js";
import { RunRecorder } from "./recorder.js";
import type { ScenarioContext, ScenarioPlan } from "./scenarios.js";
import { type SettleMode, settle } from "./settle.js";
import { type Snapshot, takeSnapshot } from "./snapshot.js";
import type { PerturbFailure, PerturbOptions, ScenarioResult } from "./types.js";

export interface RunOutcome {
  result: ScenarioResult;
  snapshot: Snapshot | undefined;
}

export async function runScenario(options: PerturbOptions, plan: ScenarioPlan): Promise<RunOutcome> {
  const cluster = await startRunCluster(options.cluster);
  const dir = await mkdtemp(join(tmpdir(), "tsop-perturb-"));
  const recorder = new RunRecorder();
  const failures: PerturbFailure[] = [];
  const fail = (failure: Omit<PerturbFailure, "scenario">) =>
    failures.push({ scenario: plan.name, ...failure });
  let operator: PerturbedOperator | undefined;
  let snapshot: Snapshot | undefined;
  try {
    const admin = await adminClient(cluster);
    await options.arrange?.(admin, cluster.handle);
    await cluster.arranged(admin);
    const kubeconfigPath = await cluster.operatorKubeconfig(dir);
    operator = new PerturbedOperator(
      kubeconfigPath,
      options.controllers,
      recorder,
      admin,
      plan.hooks,
      options.operatorLog,
    );
    await operator.start();
    const ctx: ScenarioContext = {
      cluster,
      faults: cluster.faults,
      primaryWatchPaths: await watchPaths(operator),
    };
    const timeout = options.settleTimeoutMs ?? 15_000;
    const settled = async (mode: SettleMode, after: string) => {
      const why = await settle(cluster, operator!, admin, options.kinds, mode, timeout);
      if (why) throw new SettleError(`after ${after}: ${why}`);
    };
    await settled("full", "start");
    plan.begin?.(ctx);
    for (const [index, step] of options.steps.entries()) {
      plan.beforeStep?.(ctx, index, options.steps.length);
      await step.run(admin);
      await plan.afterStep?.(ctx, index);
      const mode = typeof plan.between === "function" ? plan.between(index) : plan.between;
      await settled(mode, `step "${step.name}"`);
    }
    plan.end?.(ctx);
    await settled("full", "the perturbation ended");
    snapshot = await takeSnapshot(admin, options.kinds, options.ignore ?? []);
    await operator.stop();
    for (const [a, b] of recorder.overlaps()) {
      fail({
        invariant: "noOverlap",
        object: a.key,
        message: `two reconciles of ${a.key} ran at the same time (manager ${a.generation}, started #${a.start}; manager ${b.generation}, started #${b.start})`,
      });
    }
    for (const error of await uncoveredErrors(admin, recorder.errors)) {
      fail({
        invariant: "errorsReported",
        object: error.key,
        message: `reconcile of ${error.key} failed with "${error.message}"${error.reason ? ` (${error.reason})` : ""}, and neither a condition on it nor a Warning Event about it says so`,
      });
    }
  } catch (error) {
    if (!(error instanceof SettleError)) throw error;
    fail({ invariant: "settles", message: error.message });
  } finally {
    await operator?.stop().catch(() => undefined);
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    result: { scenario: plan.name, failures, writes: recorder.writes, reconciles: recorder.spans.length },
    snapshot,
  };
}

class SettleError extends Error {}

async function adminClient(cluster: RunCluster): Promise<Client> {
  const manager = await Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    logger: { level: "error", sink: { write: () => undefined } },
  });
  return manager.client;
}

/** The collection paths a watch of each reconciled kind uses (cluster-wide and per namespace). */
async function watchPaths(operator: PerturbedOperator): Promise<string[]> {
  const mapper = operator.manager!.mapper;
  const paths: string[] = [];
  for (const kind of operator.primaries) {
    const m = await mapper.mapping(kind);
    const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
    paths.push(`${escape(base)}(?:/namespaces/[^/]+)?/${escape(m.plural)}`);
  }
  return paths;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
