// Owner scope on the real kube-apiserver + kube-controller-manager, compared with tsop/testing: the
// same scenario (test/runtime/support/owner-scope.ts) must observe the same things on both servers:
// the runtime's refusal of a namespaced owner on a ClusterRole, the real garbage collector keeping
// a hand-written cluster-scoped dependent of a deleted namespaced owner and reporting
// OwnerRefInvalidNamespace, and collecting a cluster-scoped dependent of a cluster-scoped owner.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { type OwnerScopeObservations, ownerScopeScenario } from "./support/owner-scope.js";

let real: RealTestCluster;
let memory: TestCluster;
beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real", workloads: true });
  memory = await startTestCluster();
});
afterAll(async () => {
  await real?.stop();
  await memory?.stop();
});

/** The owner's uid differs between servers; everything else must match. */
function comparable(seen: OwnerScopeObservations): OwnerScopeObservations {
  return {
    ...seen,
    event: { ...seen.event, message: seen.event.message.replace(/uid: [^\]]+\]/, "uid: <uid>]") },
  };
}

it("the in-memory server and the real control plane agree on owner scope and garbage collection", async () => {
  const onReal = await ownerScopeScenario(real.kubeconfigPath, "real");
  const onMemory = await ownerScopeScenario(memory.kubeconfigPath, "real");
  expect(onReal.clusterScopedDependentKept).toBe(true);
  expect(onReal.event.reason).toBe("OwnerRefInvalidNamespace");
  expect(comparable(onMemory)).toEqual(comparable(onReal));
});
