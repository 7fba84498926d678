// Perturbation testing for operator authors: perturb() runs the author's own controllers against
// fresh clusters (in-memory, or the real control plane), once unperturbed and once under each named scenario (scenarios.ts),
// through the same steps, and checks the invariants: every compared object converges to the
// unperturbed run's state (snapshot.ts normalises), no two reconciles of one key overlap, no
// reconcile error is left unreported (invariants.ts). assertInvariants() fails a test with a
// message naming the scenario, the object and the differing fields.
import { runScenario } from "./run.js";
import {
  apiServerRestart,
  CLEAN,
  conflictingWrites,
  droppedWatches,
  restartBetweenWrites,
  type ScenarioPlan,
  slowRequests,
  staleReads,
} from "./scenarios.js";
import { diffSnapshots } from "./snapshot.js";
import {
  type PerturbFailure,
  type PerturbOptions,
  type PerturbResult,
  SCENARIOS,
  type ScenarioName,
  type ScenarioResult,
} from "./types.js";

export { CONFLICT_ANNOTATION, OPERATOR_USER } from "./operator.js";
export { NORMALISED_PATHS } from "./snapshot.js";
export * from "./types.js";

/** Runs the operator unperturbed, then under each scenario; never throws for a broken invariant. */
export async function perturb(options: PerturbOptions): Promise<PerturbResult> {
  const unknown = (options.scenarios ?? []).filter((s) => !SCENARIOS.includes(s));
  if (unknown.length > 0)
    throw new Error(
      `perturb: unknown scenario ${unknown.join(", ")}; the scenarios are ${SCENARIOS.join(", ")}`,
    );
  if (options.steps.length === 0)
    throw new Error(
      "perturb: options.steps is empty: give it what a user does (create the sample, change it, ...)",
    );
  const real = options.cluster?.controlPlane === "real";
  if (real && options.scenarios?.includes("apiServerRestart"))
    throw new Error(
      "perturb: apiServerRestart runs on the in-memory server only (it emulates the restart there); on the real control plane restart kube-apiserver in a test of your own with cluster.restartApiServer()",
    );
  const clean = await runScenario(options, CLEAN);
  const runs: ScenarioResult[] = [clean.result];
  const failures: PerturbFailure[] = [...clean.result.failures];
  const cleanSnapshot = clean.snapshot;
  if (!cleanSnapshot) return { runs, failures };
  const scenarios = options.scenarios ?? SCENARIOS.filter((s) => !real || s !== "apiServerRestart");
  const planned = scenarios.flatMap((name) => plans(name, options, clean.result.writes));
  // A real control plane per run is two processes and a second or two of CPU: one at a time by default.
  const results = await pool(planned, options.parallel ?? (real ? 1 : 3), async (plan) => {
    const run = await runScenario(options, plan);
    if (run.snapshot) {
      for (const d of diffSnapshots(cleanSnapshot, run.snapshot)) {
        run.result.failures.push({
          scenario: plan.name,
          invariant: "converges",
          object: d.object,
          message: d.message,
        });
      }
    }
    return run.result;
  });
  // In the order planned, whatever order the runs finished in.
  for (const result of results) {
    runs.push(result);
    failures.push(...result.failures);
  }
  return { runs, failures };
}

/** Maps `items` through `fn`, at most `limit` at a time; results in the items' order. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

function plans(name: ScenarioName, options: PerturbOptions, cleanWrites: number): ScenarioPlan[] {
  switch (name) {
    case "staleReads":
      return [staleReads()];
    case "droppedWatches":
      return [droppedWatches()];
    case "restartBetweenWrites": {
      const n = Math.min(cleanWrites, options.maxRestarts ?? 12);
      return Array.from({ length: n }, (_, i) => restartBetweenWrites(i + 1));
    }
    case "conflictingWrites":
      return [conflictingWrites(options.maxConflicts ?? 20)];
    case "slowRequests":
      return [slowRequests(options.latencyMs ?? 20)];
    case "apiServerRestart":
      return [apiServerRestart()];
  }
}

/** A readable report of the broken invariants: scenario, invariant, object, what differs. */
export function formatFailures(result: PerturbResult): string {
  return result.failures
    .map((f) => `[${f.scenario}] ${f.invariant}${f.object ? ` ${f.object}` : ""}: ${f.message}`)
    .join("\n");
}

/** Throws (failing the test) when any invariant broke, listing each broken one. */
export function assertInvariants(result: PerturbResult): void {
  if (result.failures.length === 0) return;
  throw new Error(`perturbation broke ${result.failures.length} invariant(s):\n${formatFailures(result)}`);
}
