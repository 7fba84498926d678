// Fault injection (status, count, 429 Retry-After, latency, closed watches) and authorization
// (forbid rules, the authorize hook, SelfSubjectAccessReview) with real Forbidden messages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http, openWatch } from "./helpers.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster({
    users: { "sa-token": "system:serviceaccount:ops:operator" },
    authorize: (a) =>
      a.resource === "secrets" && a.verb === "delete" ? "RBAC: secrets are precious" : undefined,
  });
});
afterAll(async () => {
  await cluster.stop();
});

describe("fault injection", () => {
  it("fails the next N matching requests with the given status, then recovers", async () => {
    cluster.faults.add({
      method: "GET",
      path: "/api/v1/namespaces/default/configmaps",
      status: 500,
      count: 2,
    });
    const a = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps");
    const other = await http(cluster, "GET", "/api/v1/namespaces/default/secrets");
    const b = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps");
    const c = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps");
    expect([a.status, other.status, b.status, c.status]).toEqual([500, 200, 500, 200]);
    expect(a.body).toMatchObject({ kind: "Status", reason: "InternalError", code: 500 });
    expect(cluster.faults.pending()).toBe(0);
  });

  it("answers 429 with Retry-After and matches prefixes and RegExps", async () => {
    cluster.faults.add({ path: "/apis/apps/*", status: 429, retryAfterSeconds: 3 });
    const r = await http(cluster, "GET", "/apis/apps/v1/namespaces/default/deployments");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("3");
    expect(r.body).toMatchObject({ reason: "TooManyRequests", details: { retryAfterSeconds: 3 }, code: 429 });
    cluster.faults.add({ method: "POST", path: /configmaps$/, status: 409, message: "injected conflict" });
    const post = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("f"));
    expect(post.status).toBe(409);
    expect(post.body).toMatchObject({ reason: "Conflict", message: "injected conflict" });
  });

  it("adds latency to matching requests", async () => {
    cluster.faults.latency(500, { path: "/api/v1/namespaces/default/services" });
    const started = Date.now();
    await http(cluster, "GET", "/api/v1/namespaces/default/services");
    expect(Date.now() - started).toBeGreaterThanOrEqual(490);
    cluster.faults.clear();
    const again = Date.now();
    await http(cluster, "GET", "/api/v1/namespaces/default/services");
    expect(Date.now() - again).toBeLessThan(400);
  });

  it("closes open watches", async () => {
    const w = await openWatch(cluster, "/api/v1/namespaces/default/configmaps?watch=true");
    cluster.closeWatches();
    await w.closed();
  });

  it("records requests", async () => {
    await http(cluster, "GET", "/api/v1/namespaces/default/pods?limit=1");
    expect(cluster.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/v1/namespaces/default/pods?limit=1",
      status: 200,
      user: "tsop-test",
    });
  });
});

describe("authorization", () => {
  const as = { token: "sa-token" };

  it("answers 403 with the apiserver's message for forbid rules", async () => {
    const lift = cluster.forbid({
      user: "system:serviceaccount:ops:operator",
      verb: "list",
      resource: "pods",
    });
    const r = await http(cluster, "GET", "/api/v1/namespaces/default/pods", undefined, as);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'pods is forbidden: User "system:serviceaccount:ops:operator" cannot list resource "pods" in API group "" in the namespace "default"',
      reason: "Forbidden",
      details: { kind: "pods" },
      code: 403,
    });
    const cluster403 = await http(cluster, "GET", "/api/v1/pods", undefined, as);
    expect(cluster403.body.message).toBe(
      'pods is forbidden: User "system:serviceaccount:ops:operator" cannot list resource "pods" in API group "" at the cluster scope',
    );
    expect((await http(cluster, "GET", "/api/v1/namespaces/default/pods")).status).toBe(200);
    lift();
    expect((await http(cluster, "GET", "/api/v1/namespaces/default/pods", undefined, as)).status).toBe(200);
  });

  it("names the object, group and subresource", async () => {
    const lift = cluster.forbid({
      verb: "update",
      group: "apps",
      resource: "deployments",
      subresource: "status",
    });
    const r = await http(cluster, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/status", {}, as);
    expect(r.body.message).toBe(
      'deployments.apps "web" is forbidden: User "system:serviceaccount:ops:operator" cannot update resource "deployments/status" in API group "apps" in the namespace "default"',
    );
    expect(r.body.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
    lift();
  });

  it("appends the authorize hook's reason", async () => {
    await http(cluster, "POST", "/api/v1/namespaces/default/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
    });
    const r = await http(cluster, "DELETE", "/api/v1/namespaces/default/secrets/s");
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(
      /cannot delete resource "secrets" in API group "" in the namespace "default": RBAC: secrets are precious$/,
    );
  });

  it("answers SelfSubjectAccessReviews from the same rules", async () => {
    const lift = cluster.forbid({
      user: "system:serviceaccount:ops:operator",
      verb: "create",
      resource: "leases",
      group: "coordination.k8s.io",
    });
    const review = (verb: string) =>
      http(
        cluster,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: {
            resourceAttributes: {
              namespace: "default",
              verb,
              group: "coordination.k8s.io",
              resource: "leases",
            },
          },
        },
        as,
      );
    const denied = await review("create");
    expect(denied.status).toBe(201);
    expect(denied.body.status).toMatchObject({ allowed: false });
    expect((await review("get")).body.status).toEqual({ allowed: true });
    lift();
  });
});
