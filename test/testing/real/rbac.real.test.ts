// The oracle for the in-memory server's RBAC: the same scenario (the operator's RBAC manifests
// applied by runAsOperator, requests impersonating its ServiceAccount) against the real
// kube-apiserver and the in-memory server gives the same 403s, with the same messages, and the same
// successes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster, type TestCluster } from "../../../src/testing/index.js";
import { EXPECTED, runScenario } from "../rbac-scenario.js";

let real: RealTestCluster;
let memory: TestCluster;
beforeAll(async () => {
  [real, memory] = await Promise.all([startTestCluster({ controlPlane: "real" }), startTestCluster()]);
});
afterAll(async () => {
  await Promise.all([real?.stop(), memory?.stop()]);
});

describe("impersonating the operator's ServiceAccount", () => {
  it("meets the same RBAC decisions on kube-apiserver and on the in-memory server", async () => {
    const onReal = await runScenario(real);
    const onMemory = await runScenario(memory);
    expect(onReal.outcomes).toEqual(EXPECTED);
    expect(onMemory.outcomes).toEqual(onReal.outcomes);
    expect(onMemory.identity.groups).toEqual(onReal.identity.groups);
  });
});
