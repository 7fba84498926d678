// What perturb() is given and what it answers: the author's operator (its controllers, the kinds
// to compare, the steps a user takes) and, per scenario, the invariants that broke.
import type { Client, KindRef, KubeObjectLike, LogSink, Manager } from "../../runtime/index.js";
import type { TestCluster, TestClusterOptions } from "../memory/server.js";
import type { RealTestCluster, RealTestClusterOptions } from "../real/types.js";

/** Each run's cluster: the in-memory server's options, or the real control plane's. */
export type PerturbClusterOptions = TestClusterOptions | RealTestClusterOptions;

/** The named perturbations (their names are API: docs/testing.md, "Perturbation testing"). */
export const SCENARIOS = [
  "staleReads",
  "droppedWatches",
  "restartBetweenWrites",
  "conflictingWrites",
  "slowRequests",
  "apiServerRestart",
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** One thing a user does to the cluster, e.g. create the sample or change its spec. */
export interface PerturbStep {
  name: string;
  /** Acts through `admin` (system:masters, reads and writes the API server directly). */
  run(admin: Client): Promise<unknown>;
}

export interface PerturbOptions {
  /** Registers the operator's controllers on a manager, as src/main.ts does. */
  controllers(manager: Manager): Promise<unknown> | unknown;
  /** Prepares each run's fresh cluster before the operator starts: CRDs, namespaces. */
  arrange?(admin: Client, cluster: TestCluster | RealTestCluster): Promise<unknown>;
  /** What users do, in order; each run waits for the operator to settle after every step. */
  steps: PerturbStep[];
  /** The kinds whose objects are compared with the unperturbed run (all namespaces). */
  kinds: Array<KindRef<KubeObjectLike>>;
  /** Scenarios to run (default: all that the control plane supports; see docs). */
  scenarios?: ScenarioName[];
  /**
   * More paths to leave out of the comparison, dotted, `*` for any key or index, e.g.
   * "status.lastBackup" or "metadata.annotations.example\\.com/seen".
   */
  ignore?: string[];
  /** restartBetweenWrites: crash after at most this many different writes of the clean run (default 12). */
  maxRestarts?: number;
  /** slowRequests: latency added to each of the operator's requests (default 20 ms). */
  latencyMs?: number;
  /** conflictingWrites: how many of the operator's writes another actor races (default 20). */
  maxConflicts?: number;
  /** Runs (each on its own cluster) going on at once after the unperturbed one (default 3; 1 on the real control plane). */
  parallel?: number;
  /** How long a run may take to settle after a step (default 15 s); beyond it the run fails. */
  settleTimeoutMs?: number;
  /**
   * Where the operator's log lines (level error) go; default nowhere: reconcile errors are expected
   * under perturbation, and the ones that matter are in the result.
   */
  operatorLog?: LogSink;
  /**
   * Options of each run's cluster: the in-memory server's (e.g. `{ workloads: true }`), or
   * `{ controlPlane: "real", ... }` for etcd and kube-apiserver behind the fault proxy (each run
   * starts its own; apiServerRestart is not run there).
   */
  cluster?: PerturbClusterOptions;
}

/** One reconcile of one key, by one manager of the run (a restart starts generation 2). */
export interface ReconcileSpan {
  key: string;
  generation: number;
  /** Order numbers from one counter: no clock involved. */
  start: number;
  end?: number;
  error?: ReconcileError;
}

export interface ReconcileError {
  key: string;
  kind: string;
  message: string;
  reason?: string;
  /** How it was surfaced: "condition <type>" or "event <reason>"; undefined when it was not. */
  reportedAs?: string;
}

/** A broken invariant, with what an author needs to find it. */
export interface PerturbFailure {
  scenario: string;
  invariant: "converges" | "noOverlap" | "errorsReported" | "settles";
  /** The object ("Kind namespace/name"). */
  object?: string;
  message: string;
}

export interface ScenarioResult {
  /** "staleReads", or "restartBetweenWrites@3" for the run crashed after the 3rd write. */
  scenario: string;
  failures: PerturbFailure[];
  writes: number;
  reconciles: number;
}

export interface PerturbResult {
  /** The unperturbed run first, then each scenario's runs. */
  runs: ScenarioResult[];
  failures: PerturbFailure[];
}
