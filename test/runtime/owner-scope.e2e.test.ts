// Owner scope against tsop/testing: the runtime refuses a namespaced owner on a cluster-scoped
// object, and the test server's garbage collector behaves like Kubernetes' (never collects a
// cluster-scoped dependent of a namespaced owner; reports OwnerRefInvalidNamespace). The same
// scenario runs against the real control plane in owner-scope.real.test.ts.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { ownerScopeScenario } from "./support/owner-scope.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.stop();
});

it("refuses a namespaced owner on a cluster-scoped object and never collects one written by hand", async () => {
  const seen = await ownerScopeScenario(cluster.kubeconfigPath, "fast");
  expect(seen.refused).toMatch(
    /^cluster-scoped resource must not have a namespace-scoped owner: ClusterRole refused-fast cannot be owned by ConfigMap owner-scope-fast\/installer$/,
  );
  expect(seen.refusedObjectCreated).toBe(false);
  expect(seen.clusterScopedDependentKept).toBe(true);
  expect(seen.event).toEqual({
    namespace: "default",
    reason: "OwnerRefInvalidNamespace",
    type: "Warning",
    message: expect.stringMatching(
      /^ownerRef \[v1\/ConfigMap, namespace: , name: installer, uid: [0-9a-f-]+\] does not exist in namespace ""$/,
    ),
    component: "garbage-collector-controller",
  });
  expect(seen.clusterOwnedDependentCollected).toBe(true);
});
