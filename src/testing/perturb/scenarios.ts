// Each named perturbation as what it does around the user's steps: before the first, between
// steps (and how settled the operator must be before the next), after the last.
import type { Faults } from "../faults.js";
import type { RunCluster } from "./cluster.js";
import { OPERATOR_USER, type OperatorHooks } from "./operator.js";
import type { SettleMode } from "./settle.js";

export interface ScenarioContext {
  cluster: RunCluster;
  faults: Faults;
  /** Watch paths of the kinds the operator reconciles (RegExp sources). */
  primaryWatchPaths: string[];
}

export interface ScenarioPlan {
  /** "staleReads", "restartBetweenWrites@3", ... */
  name: string;
  hooks?: OperatorHooks;
  /** Before the first step (the operator has started and synced). */
  begin?(ctx: ScenarioContext): void;
  /** Around step `index` (0-based) of `count`. */
  beforeStep?(ctx: ScenarioContext, index: number, count: number): void;
  afterStep?(ctx: ScenarioContext, index: number): Promise<void> | void;
  /** After the last step; the run then settles fully and is compared. */
  end?(ctx: ScenarioContext): void;
  /** How settled the operator must be after step `index` (settle.ts). */
  between: SettleMode | ((index: number) => SettleMode);
}

const operatorWatches = { user: OPERATOR_USER, watch: true } as const;

/** The unperturbed run every scenario is compared with. */
export const CLEAN: ScenarioPlan = { name: "unperturbed", between: "full" };

export function staleReads(): ScenarioPlan {
  let release: (() => void) | undefined;
  return {
    name: "staleReads",
    between: "primaries",
    // The reconciled kinds' events still arrive (so reconciles run), every other kind's are held
    // back: the operator decides on the latest primary object and a stale view of the rest.
    begin: ({ faults, primaryWatchPaths }) => {
      const path = new RegExp(`^(?!(?:${primaryWatchPaths.join("|")})$)`);
      release = faults.holdWatchEvents({ ...operatorWatches, path });
    },
    end: () => release?.(),
  };
}

export function droppedWatches(): ScenarioPlan {
  let heal: (() => void) | undefined;
  return {
    name: "droppedWatches",
    // The operator sees the first step. Then every watch is cut and re-watches wait; after the last
    // step they are answered 410 Gone and the operator relists: it never sees the states in
    // between (a deletion and a re-creation, say), only where they ended.
    between: (index) => (index === 0 ? "full" : "idle"),
    beforeStep: ({ faults }, index, count) => {
      if (index !== Math.min(1, count - 1)) return;
      faults.expireWatches(operatorWatches);
      heal = faults.hang(operatorWatches);
    },
    end: () => heal?.(),
  };
}

export function restartBetweenWrites(write: number): ScenarioPlan {
  return { name: `restartBetweenWrites@${write}`, between: "full", hooks: { crashAfterWrite: write } };
}

export function conflictingWrites(count: number): ScenarioPlan {
  return { name: "conflictingWrites", between: "full", hooks: { conflicts: count } };
}

export function slowRequests(ms: number): ScenarioPlan {
  return {
    name: "slowRequests",
    between: "full",
    begin: ({ faults }) => faults.latency(ms, { user: OPERATOR_USER }),
    end: ({ faults }) => faults.clear(),
  };
}

/**
 * What a client sees of an API server restart, on the in-memory server: during each step every
 * request of the operator fails 503 and its watches end; then the server is back with its watch
 * history gone (the next watch from an old resourceVersion answers 410 Gone, the operator relists).
 */
export function apiServerRestart(): ScenarioPlan {
  let heal: (() => void) | undefined;
  return {
    name: "apiServerRestart",
    between: "full",
    beforeStep: ({ faults }) => {
      heal = faults.partition(OPERATOR_USER, { status: 503 });
    },
    afterStep: ({ cluster }) => {
      heal?.();
      cluster.compact();
    },
  };
}
