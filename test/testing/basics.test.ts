// Discovery, health, authentication and CRUD of built-in kinds through raw HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http } from "./helpers.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster({ users: { "other-token": "jane" } });
});
afterAll(async () => {
  await cluster.stop();
});

describe("discovery and health", () => {
  it("serves /api, /api/v1, /apis, /apis/G, /apis/G/V", async () => {
    const api = await http(cluster, "GET", "/api");
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const v1 = await http(cluster, "GET", "/api/v1");
    expect(v1.body.kind).toBe("APIResourceList");
    const names = v1.body.resources.map((r: { name: string }) => r.name);
    for (const n of [
      "namespaces",
      "pods",
      "pods/status",
      "services",
      "serviceaccounts",
      "configmaps",
      "secrets",
      "events",
    ]) {
      expect(names).toContain(n);
    }
    expect(v1.body.resources.find((r: { name: string }) => r.name === "pods")).toMatchObject({
      namespaced: true,
      kind: "Pod",
      shortNames: ["po"],
    });
    const apis = await http(cluster, "GET", "/apis");
    const groups = apis.body.groups.map((g: { name: string }) => g.name);
    for (const g of [
      "apps",
      "batch",
      "rbac.authorization.k8s.io",
      "apiextensions.k8s.io",
      "coordination.k8s.io",
      "admissionregistration.k8s.io",
      "apiregistration.k8s.io",
      "events.k8s.io",
    ]) {
      expect(groups).toContain(g);
    }
    const apps = await http(cluster, "GET", "/apis/apps");
    expect(apps.body).toMatchObject({
      kind: "APIGroup",
      name: "apps",
      preferredVersion: { groupVersion: "apps/v1" },
    });
    const appsV1 = await http(cluster, "GET", "/apis/apps/v1");
    expect(appsV1.body.resources.find((r: { name: string }) => r.name === "deployments/scale")).toMatchObject(
      {
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
      },
    );
    const missing = await http(cluster, "GET", "/apis/nope.example.com/v1");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      kind: "Status",
      reason: "NotFound",
      message: "the server could not find the requested resource",
    });
  });

  it("answers /version, /healthz, /readyz, /livez without a token", async () => {
    const version = await http(cluster, "GET", "/version", undefined, { token: null });
    expect(version.body).toMatchObject({ major: "1", gitVersion: expect.stringMatching(/^v1\./) });
    for (const p of ["/healthz", "/readyz", "/livez"]) {
      const r = await http(cluster, "GET", p, undefined, { token: null });
      expect(r.status).toBe(200);
      expect(r.text).toBe("ok");
    }
  });

  it("answers 401 with a Status for a missing or wrong token", async () => {
    for (const token of [null, "wrong"]) {
      const r = await http(cluster, "GET", "/api/v1/namespaces", undefined, { token });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
    }
    const other = await http(cluster, "GET", "/api/v1/namespaces", undefined, { token: "other-token" });
    expect(other.status).toBe(200);
    cluster.revokeToken("other-token");
    const revoked = await http(cluster, "GET", "/api/v1/namespaces", undefined, { token: "other-token" });
    expect(revoked.status).toBe(401);
  });
});

describe("start-up", () => {
  it("starts an independent cluster quickly", async () => {
    const started = Date.now();
    const other = await startTestCluster();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(other.url).not.toBe(cluster.url);
    expect((await http(other, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    expect((await http(cluster, "GET", "/api/v1/namespaces", undefined, { token: other.token })).status).toBe(
      401,
    );
    await other.stop();
  });
});

describe("CRUD of built-in kinds", () => {
  it("decodes percent-encoded names in the path, as the real server does", async () => {
    const role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:controller:demo" },
      rules: [],
    };
    const created = await http(cluster, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", role);
    expect(created.status).toBe(201);
    const encoded = await http(
      cluster,
      "GET",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Acontroller%3Ademo",
    );
    expect(encoded.status).toBe(200);
    expect(encoded.body.metadata.name).toBe("system:controller:demo");
  });

  it("creates, gets, updates and deletes with server-set metadata", async () => {
    const created = await http(
      cluster,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      configMap("crud", { a: "1" }),
    );
    expect(created.status).toBe(201);
    const meta = created.body.metadata;
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(meta.resourceVersion)).toBeGreaterThan(0);
    expect(meta.managedFields[0]).toMatchObject({ operation: "Update", fieldsType: "FieldsV1" });

    const got = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps/crud");
    expect(got.body).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } });

    const dup = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("crud"));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({
      reason: "AlreadyExists",
      message: 'configmaps "crud" already exists',
      details: { name: "crud", kind: "configmaps" },
      code: 409,
    });

    const updated = await http(cluster, "PUT", "/api/v1/namespaces/default/configmaps/crud", {
      ...got.body,
      data: { a: "2" },
    });
    expect(updated.status).toBe(200);
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(Number(meta.resourceVersion));

    const stale = await http(cluster, "PUT", "/api/v1/namespaces/default/configmaps/crud", {
      ...got.body,
      data: { a: "3" },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: "Conflict",
      message:
        'Operation cannot be fulfilled on configmaps "crud": the object has been modified; please apply your changes to the latest version and try again',
    });

    const deleted = await http(cluster, "DELETE", "/api/v1/namespaces/default/configmaps/crud");
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "crud", kind: "configmaps", uid: meta.uid },
    });
    const gone = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps/crud");
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "crud" not found',
      reason: "NotFound",
      details: { name: "crud", kind: "configmaps" },
      code: 404,
    });
  });

  it("refuses ConfigMap and Secret data that are not strings, as the real server's decoder does", async () => {
    const bool = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      ...configMap("flags"),
      data: { enabled: true },
    });
    expect(bool.status).toBe(400);
    expect(bool.body).toMatchObject({
      reason: "BadRequest",
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string',
    });
    const number = await http(cluster, "POST", "/api/v1/namespaces/default/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "n", namespace: "default" },
      stringData: { port: 8080 },
    });
    expect(number.status).toBe(400);
    expect(number.body.message).toContain("cannot unmarshal number into Go struct field Secret.stringData");
    const ok = await http(
      cluster,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      configMap("flags", { on: "off" }),
    );
    expect(ok.status).toBe(201);
    const patched = await http(
      cluster,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/flags",
      { data: { on: false } },
      { contentType: "application/merge-patch+json" },
    );
    expect(patched.status).toBe(400);
  });

  it("names group resources in messages (deployments.apps)", async () => {
    const r = await http(cluster, "GET", "/apis/apps/v1/namespaces/default/deployments/nope");
    expect(r.body).toMatchObject({
      message: 'deployments.apps "nope" not found',
      details: { name: "nope", group: "apps", kind: "deployments" },
    });
  });

  it("serves core and events.k8s.io Events from one storage", async () => {
    const core = await http(cluster, "POST", "/api/v1/namespaces/default/events", {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "ev1" },
      involvedObject: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Started",
      message: "started the thing",
      type: "Normal",
    });
    expect(core.status).toBe(201);
    const v1 = await http(cluster, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/ev1");
    expect(v1.body).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      note: "started the thing",
      regarding: { name: "p" },
      reason: "Started",
    });
    const byField = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent("involvedObject.name=p,reason=Started")}`,
    );
    expect(byField.body.items).toHaveLength(1);
  });

  it("drops unknown metadata fields and ignores client-set server fields", async () => {
    const r = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "meta", bogus: 1, uid: "mine", deletionTimestamp: "2020-01-01T00:00:00Z" },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.bogus).toBeUndefined();
    expect(r.body.metadata.uid).not.toBe("mine");
    expect(r.body.metadata.deletionTimestamp).toBeUndefined();
    const withRv = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      ...configMap("meta2"),
      metadata: { name: "meta2", resourceVersion: "5" },
    });
    expect(withRv.status).toBe(400);
    expect(withRv.body.message).toBe("resourceVersion should not be set on objects to be created");
  });

  it("generates names from generateName", async () => {
    const r = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { generateName: "gen-" },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("rejects invalid names and missing names with 422 Invalid", async () => {
    const bad = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("Bad_Name"));
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe("Invalid");
    expect(bad.body.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(bad.body.details.causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
    const none = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {},
    });
    expect(none.status).toBe(422);
    expect(none.body.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  it("answers 404 for a missing namespace and 400 for a namespace mismatch", async () => {
    const r = await http(cluster, "POST", "/api/v1/namespaces/nope/configmaps", configMap("x", {}, "nope"));
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('namespaces "nope" not found');
    const mismatch = await http(
      cluster,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      configMap("x", {}, "kube-system"),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.reason).toBe("BadRequest");
  });

  it("answers 405 for methods a path does not allow, 400 for bad JSON, 415 for a bad content type", async () => {
    const post = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps/x", configMap("x"));
    expect(post.status).toBe(405);
    expect(post.body.reason).toBe("MethodNotAllowed");
    const badJson = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", "{nope");
    expect(badJson.status).toBe(400);
    const text = await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", "x", {
      contentType: "text/plain",
    });
    expect(text.status).toBe(415);
    expect(text.body.reason).toBe("UnsupportedMediaType");
  });
});
