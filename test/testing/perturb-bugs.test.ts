// Each planted bug of a kind Sieve reports is caught by the scenario that perturbs what it
// depends on, with a message naming the scenario, the object and the field (perturb-operator.ts).
import { describe, expect, it } from "vitest";
import { assertInvariants, formatFailures, perturb } from "../../src/testing/index.js";
import { options } from "./perturb-operator.js";

describe("perturb catches", () => {
  it("a decision made on a stale read under staleReads", async () => {
    const result = await perturb({ ...options("staleRead"), scenarios: ["staleReads"] });
    expect(formatFailures(result)).toContain(
      '[staleReads] converges Memcached default/cache: status.origin: "adopted" (unperturbed) ≠ "created"',
    );
    expect(() => assertInvariants(result)).toThrow(/perturbation broke 1 invariant/);
  });

  it("an AlreadyExists left unreported after a stale read under staleReads", async () => {
    const result = await perturb({ ...options("unreportedAlreadyExists"), scenarios: ["staleReads"] });
    expect(formatFailures(result)).toBe(
      '[staleReads] errorsReported Memcached default/cache: reconcile of Memcached default/cache failed with "POST /api/v1/namespaces/memcached-data/configmaps: 409 configmaps "default.cache-v2" already exists" (AlreadyExists), and neither a condition on it nor a Warning Event about it says so',
    );
  });

  it("a missed deletion under droppedWatches", async () => {
    const result = await perturb({ ...options("missedDeletion"), scenarios: ["droppedWatches"] });
    expect(formatFailures(result)).toBe(
      "[droppedWatches] converges ConfigMap memcached-data/default.cache-v1: extra: this run has it (1), the unperturbed run does not",
    );
  });

  it("a non-idempotent create under restartBetweenWrites", async () => {
    const result = await perturb({
      ...options("nonIdempotentCreate"),
      scenarios: ["restartBetweenWrites"],
      maxRestarts: 2,
    });
    const failed = result.runs.filter((r) => r.failures.length > 0).map((r) => r.scenario);
    // The crash right after the generated-name create (the 2nd write: status.origin is the 1st)
    // leaves the status unmarked, so the next manager creates another (one per incarnation is right).
    expect(failed).toContain("restartBetweenWrites@2");
    expect(formatFailures(result)).toContain(
      "[restartBetweenWrites@2] converges ConfigMap default/cache-init-*: count: 2 in the unperturbed run, 3 in this run",
    );
  });
});
