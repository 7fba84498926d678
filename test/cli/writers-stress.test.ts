// The fast-tier version of `npm run stress:writers` (bench/stress-writers.ts): a few rounds of
// two `tsop bundle` runs and a `tsop generate` at once on one project, kill -9 at random points.
// Every round ends with a complete output of one run (or the old one), the user's files in the
// bundle directory intact, and every run that was not killed exits 0 or with a readable message.
import { describe, expect, test } from "vitest";
import { stressWriters } from "../support/writers-stress.js";

describe("concurrent writers on one project", () => {
  test("bundle ×2 + generate per round, kill -9 at random points", { timeout: 900_000 }, async () => {
    // 32 MiB of the user's in bundle/: each commit takes long enough for the writers to overlap.
    const figures = await stressWriters({ rounds: 6, ballastMiB: 32 });
    expect(figures.problems, `seed ${figures.seed}`).toEqual([]);
    expect(figures.rounds).toBe(6);
    expect(figures.succeeded).toBeGreaterThan(0);
  });
});
