// perturb() on a small operator (perturb-operator.ts): the correct reconciler keeps every
// invariant under every scenario (perturb-bugs.test.ts: each planted bug is caught).
import { describe, expect, it } from "vitest";
import { assertInvariants, formatFailures, perturb } from "../../src/testing/index.js";
import { options } from "./perturb-operator.js";

describe("perturb", () => {
  it("keeps every invariant of the correct operator under every scenario", async () => {
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

  it("refuses apiServerRestart on the real control plane before starting anything", async () => {
    await expect(
      perturb({
        ...options(),
        cluster: { controlPlane: "real", binaryAssetsDirectory: "/nonexistent" },
        scenarios: ["apiServerRestart"],
      }),
    ).rejects.toThrow(
      "perturb: apiServerRestart runs on the in-memory server only (it emulates the restart there); on the real control plane restart kube-apiserver in a test of your own with cluster.restartApiServer()",
    );
  });
});
