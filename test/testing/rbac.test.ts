// RBAC of impersonated requests in the in-memory server, as kube-apiserver decides it (the same
// scenario runs against the real server in test/testing/real/rbac.real.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { http } from "./helpers.js";
import { EXPECTED, runScenario, SA_USER } from "./rbac-scenario.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster?.stop());

describe("runAsOperator on the in-memory server", () => {
  it("allows the ServiceAccount exactly what its Roles allow, with kube-apiserver's 403 messages", async () => {
    const { identity, outcomes } = await runScenario(cluster);
    expect(identity.user).toBe(SA_USER);
    expect(outcomes).toEqual(EXPECTED);
  });

  it("leaves the admin and the users without impersonation unrestricted", async () => {
    const answer = await http(cluster, "GET", "/api/v1/namespaces/rbac-x/configmaps");
    expect(answer.status).toBe(200);
  });

  it("answers 403 when the requester may not impersonate the ServiceAccount", async () => {
    const lift = cluster.forbid({ verb: "impersonate", resource: "serviceaccounts" });
    try {
      const answer = await http(cluster, "GET", "/api/v1/namespaces/rbac-x/configmaps", undefined, {
        headers: { "Impersonate-User": SA_USER },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.message).toBe(
        'serviceaccounts "controller-manager" is forbidden: User "tsop-test" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "rbac-x"',
      );
    } finally {
      lift();
    }
  });

  it("a binding to a missing role denies with RBAC's reason", async () => {
    cluster.create({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "dangling", namespace: "rbac-x" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "nowhere" },
      subjects: [{ kind: "ServiceAccount", name: "controller-manager" }],
    });
    const answer = await http(cluster, "GET", "/api/v1/namespaces/rbac-x/pods", undefined, {
      headers: { "Impersonate-User": SA_USER },
    });
    expect(answer.body.message).toMatch(
      /cannot list resource "pods" .*: RBAC: \[role.rbac.authorization.k8s.io "nowhere" not found\]$/,
    );
  });
});
