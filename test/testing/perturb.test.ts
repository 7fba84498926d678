// perturb() on a small operator (perturb-operator.ts): the correct reconciler keeps every
// invariant under every scenario, and each planted bug of a kind Sieve reports is caught by the
// scenario that perturbs what it depends on, with a message naming the object and the field.
import { describe, expect, it } from "vitest";
import { assertInvariants, formatFailures, perturb, type PerturbOptions } from "../../src/testing/index.js";
import { arrange, controllers, KINDS, type PlantedBug, STEPS } from "./perturb-operator.js";

const options = (bug?: PlantedBug): PerturbOptions => ({
  controllers: controllers(bug),
  arrange,
  steps: STEPS,
  kinds: KINDS,
  maxRestarts: 3,
});

describe("perturb", () => {
  it("passes the correct operator under every scenario", async () => {
    const result = await perturb(options());
    expect(formatFailures(result)).toBe("");
    expect(() => assertInvariants(result)).not.toThrow();
    expect(result.runs.map((r) => r.scenario)).toEqual([
      "unperturbed",
      "staleReads",
      "droppedWatches",
      ...[1, 2, 3].map((n) => `restartBetweenWrites@${n}`),
      "conflictingWrites",
      "slowRequests",
      "apiServerRestart",
    ]);
  });

  it("catches a decision made on a stale read under staleReads", async () => {
    const result = await perturb({ ...options("staleRead"), scenarios: ["staleReads"] });
    expect(formatFailures(result)).toContain(
      '[staleReads] converges Memcached default/cache: status.origin: "adopted" (unperturbed) ≠ "created"',
    );
    expect(() => assertInvariants(result)).toThrow(/perturbation broke 1 invariant/);
  });

  it("catches a missed deletion under droppedWatches", async () => {
    const result = await perturb({ ...options("missedDeletion"), scenarios: ["droppedWatches"] });
    expect(formatFailures(result)).toBe(
      "[droppedWatches] converges ConfigMap memcached-data/default.cache-v1: extra: this run has it (1), the unperturbed run does not",
    );
  });

  it("catches a non-idempotent create under restartBetweenWrites", async () => {
    const result = await perturb({ ...options("nonIdempotentCreate"), scenarios: ["restartBetweenWrites"] });
    const failed = result.runs.filter((r) => r.failures.length > 0).map((r) => r.scenario);
    // The crash right after the generated-name create (the 2nd write: status.origin is the 1st)
    // leaves the status unmarked, so the next manager creates another (one per incarnation is right).
    expect(failed).toContain("restartBetweenWrites@2");
    expect(formatFailures(result)).toContain(
      "[restartBetweenWrites@2] converges ConfigMap default/cache-init-*: count: 2 in the unperturbed run, 3 in this run",
    );
  });
});
