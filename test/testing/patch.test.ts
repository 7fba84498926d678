// Patches: JSON merge, JSON patch, strategic merge (built-ins only; 415 on custom resources) and
// server-side apply with field managers, conflicts and force.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http, memcachedCrd } from "./helpers.js";

let cluster: TestCluster;
const cms = "/api/v1/namespaces/default/configmaps";
const deps = "/apis/apps/v1/namespaces/default/deployments";
const merge = { contentType: "application/merge-patch+json" };
const json = { contentType: "application/json-patch+json" };
const strategic = { contentType: "application/strategic-merge-patch+json" };
const apply = { contentType: "application/apply-patch+yaml" };

function deployment(name: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: "main",
              image: "busybox:1",
              env: [{ name: "A", value: "1" }],
              ports: [{ containerPort: 80 }],
            },
            { name: "side", image: "busybox:1" },
          ],
        },
      },
    },
  };
}

beforeAll(async () => {
  cluster = await startTestCluster();
  await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", memcachedCrd);
});
afterAll(async () => {
  await cluster.stop();
});

describe("merge and JSON patch", () => {
  it("applies a JSON merge patch (null deletes)", async () => {
    await http(cluster, "POST", cms, configMap("m", { a: "1", b: "2" }));
    const r = await http(cluster, "PATCH", `${cms}/m`, { data: { a: null, c: "3" } }, merge);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ b: "2", c: "3" });
  });

  it("applies a JSON patch with test, and answers 422 when an op fails", async () => {
    await http(cluster, "POST", cms, configMap("j", { a: "1" }));
    const ok = await http(
      cluster,
      "PATCH",
      `${cms}/j`,
      [
        { op: "test", path: "/data/a", value: "1" },
        { op: "add", path: "/data/b", value: "2" },
        { op: "remove", path: "/data/a" },
      ],
      json,
    );
    expect(ok.body.data).toEqual({ b: "2" });
    const failed = await http(
      cluster,
      "PATCH",
      `${cms}/j`,
      [{ op: "test", path: "/data/b", value: "nope" }],
      json,
    );
    expect(failed.status).toBe(422);
    const missing = await http(
      cluster,
      "PATCH",
      `${cms}/j`,
      [{ op: "replace", path: "/data/zzz", value: "x" }],
      json,
    );
    expect(missing.status).toBe(422);
  });

  it("answers 404 for a patch of a missing object and 409 for a stale resourceVersion in the patch", async () => {
    expect((await http(cluster, "PATCH", `${cms}/absent`, { data: {} }, merge)).status).toBe(404);
    const r = await http(
      cluster,
      "PATCH",
      `${cms}/m`,
      { metadata: { resourceVersion: "1" }, data: { x: "y" } },
      merge,
    );
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("Conflict");
  });

  it("answers 415 for an unknown patch content type", async () => {
    const r = await http(cluster, "PATCH", `${cms}/m`, { data: {} }, { contentType: "application/json" });
    expect(r.status).toBe(415);
    expect(r.body.message).toContain("application/strategic-merge-patch+json");
  });
});

describe("strategic merge patch", () => {
  it("merges containers, env and ports by key and honours $patch directives", async () => {
    expect((await http(cluster, "POST", deps, deployment("web"))).status).toBe(201);
    const r = await http(
      cluster,
      "PATCH",
      `${deps}/web`,
      {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: "main",
                  image: "busybox:2",
                  env: [{ name: "B", value: "2" }],
                  ports: [{ containerPort: 80, name: "http" }],
                },
                { name: "side", $patch: "delete" },
              ],
            },
          },
        },
      },
      strategic,
    );
    expect(r.status).toBe(200);
    const containers = r.body.spec.template.spec.containers;
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({
      name: "main",
      image: "busybox:2",
      env: [
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ],
      ports: [{ containerPort: 80, name: "http", protocol: "TCP" }],
    });
    const replaced = await http(
      cluster,
      "PATCH",
      `${deps}/web`,
      {
        metadata: { labels: { $patch: "replace", only: "this" } },
      },
      strategic,
    );
    expect(replaced.body.metadata.labels).toEqual({ only: "this" });
    expect(replaced.body.metadata.generation).toBe(2);
  });

  it("supports $deleteFromPrimitiveList, $setElementOrder and finalizers as a set", async () => {
    await http(cluster, "POST", cms, {
      ...configMap("prim"),
      metadata: { name: "prim", finalizers: ["a/x", "b/y"] },
    });
    const added = await http(
      cluster,
      "PATCH",
      `${cms}/prim`,
      { metadata: { finalizers: ["c/z", "a/x"] } },
      strategic,
    );
    expect(added.body.metadata.finalizers).toEqual(["a/x", "b/y", "c/z"]);
    const removed = await http(
      cluster,
      "PATCH",
      `${cms}/prim`,
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["b/y"] } },
      strategic,
    );
    expect(removed.body.metadata.finalizers).toEqual(["a/x", "c/z"]);
    await http(cluster, "PATCH", `${cms}/prim`, { metadata: { finalizers: null } }, merge);
    const ordered = await http(
      cluster,
      "PATCH",
      `${deps}/web`,
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "extra" }, { name: "main" }],
              containers: [{ name: "extra", image: "busybox:3" }],
            },
          },
        },
      },
      strategic,
    );
    expect(ordered.body.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual([
      "extra",
      "main",
    ]);
  });

  it("merges a Service's ports by port, not by containerPort (manifests/merge-keys.ts)", async () => {
    const svcs = "/api/v1/namespaces/default/services";
    await http(cluster, "POST", svcs, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "metrics-svc" },
      spec: { selector: { app: "x" }, ports: [{ name: "https", port: 8443, targetPort: 8443 }] },
    });
    const patched = await http(
      cluster,
      "PATCH",
      `${svcs}/metrics-svc`,
      { spec: { ports: [{ name: "metrics", port: 8080, targetPort: 8080 }] } },
      strategic,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.spec.ports.map((p: { name: string; port: number }) => `${p.name}:${p.port}`)).toEqual(
      ["https:8443", "metrics:8080"],
    );
  });

  it("answers 415 UnsupportedMediaType for custom resources, as the real server does", async () => {
    await http(cluster, "POST", "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds", {
      apiVersion: "cache.example.com/v1alpha1",
      kind: "Memcached",
      metadata: { name: "smp" },
      spec: { size: 1 },
    });
    const r = await http(
      cluster,
      "PATCH",
      "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/smp",
      { spec: { size: 2 } },
      strategic,
    );
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({
      reason: "UnsupportedMediaType",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    });
  });
});

describe("server-side apply", () => {
  const cmYaml = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n${data}`;

  it("keeps a map applied empty when a later apply adds keys to it", async () => {
    const yaml = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa-empty\n${data}`;
    const first = await http(
      cluster,
      "PATCH",
      `${cms}/ssa-empty?fieldManager=tsop`,
      yaml("data: {}\n"),
      apply,
    );
    expect(first.status).toBe(201);
    const second = await http(
      cluster,
      "PATCH",
      `${cms}/ssa-empty?fieldManager=tsop`,
      yaml("data:\n  a: '1'\n"),
      apply,
    );
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ a: "1" });
  });

  it("requires fieldManager (422) and rejects force on other patch types", async () => {
    const r = await http(cluster, "PATCH", `${cms}/ssa`, cmYaml("data:\n  a: '1'\n"), apply);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const f = await http(cluster, "PATCH", `${cms}/m?force=true`, { data: {} }, merge);
    expect(f.status).toBe(422);
  });

  it("creates a missing object (201), records the manager, and updates in place (200)", async () => {
    const created = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=alice`,
      cmYaml("data:\n  a: '1'\n  b: '2'\n"),
      apply,
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: "1", b: "2" });
    expect(created.body.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: "alice",
        operation: "Apply",
        fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } },
      }),
    ]);
    const again = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=alice`,
      cmYaml("data:\n  a: '1'\n"),
      apply,
    );
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ a: "1" });
  });

  it("answers 409 Conflict when another manager owns a changed field, and force takes it", async () => {
    const conflict = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=bob`,
      cmYaml("data:\n  a: '9'\n"),
      apply,
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      kind: "Status",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      details: {
        causes: [{ reason: "FieldManagerConflict", message: 'conflict with "alice"', field: ".data.a" }],
      },
    });
    const same = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=bob`,
      cmYaml("data:\n  a: '1'\n  c: '3'\n"),
      apply,
    );
    expect(same.status).toBe(200);
    const forced = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=bob&force=true`,
      cmYaml("data:\n  a: '9'\n"),
      apply,
    );
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ a: "9" });
    const managers = forced.body.metadata.managedFields.map((m: { manager: string }) => m.manager);
    expect(managers).toEqual(["bob"]);
  });

  it("conflicts with Update managers name the apiVersion", async () => {
    await http(cluster, "PATCH", `${cms}/ssa?fieldManager=kubectl-edit`, { data: { a: "10" } }, merge);
    const r = await http(
      cluster,
      "PATCH",
      `${cms}/ssa?fieldManager=bob`,
      cmYaml("data:\n  a: '11'\n"),
      apply,
    );
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(
      /^Apply failed with 1 conflict: conflict with "kubectl-edit" using v1 at \S+Z: \.data\.a$/,
    );
  });

  it("honours dryRun=All on create and apply without storing anything", async () => {
    const created = await http(cluster, "POST", `${cms}?dryRun=All`, configMap("dry"));
    expect(created.status).toBe(201);
    expect(created.body.metadata.uid).toBeTruthy();
    expect((await http(cluster, "GET", `${cms}/dry`)).status).toBe(404);
    const bad = await http(cluster, "POST", `${cms}?dryRun=Some`, configMap("dry"));
    expect(bad.status).toBe(422);
  });

  it("merges x-kubernetes-list-type=map lists of custom resources by key", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "pools.test.io" },
      spec: {
        group: "test.io",
        scope: "Namespaced",
        names: { plural: "pools", kind: "Pool" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    properties: {
                      members: {
                        type: "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        items: {
                          type: "object",
                          required: ["name"],
                          properties: { name: { type: "string" }, weight: { type: "integer" } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect(
      (await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
    ).toBe(201);
    const path = "/apis/test.io/v1/namespaces/default/pools/p";
    const doc = (members: string) =>
      `apiVersion: test.io/v1\nkind: Pool\nmetadata:\n  name: p\nspec:\n  members:\n${members}`;
    await http(cluster, "PATCH", `${path}?fieldManager=a`, doc("  - name: x\n    weight: 1\n"), apply);
    const both = await http(
      cluster,
      "PATCH",
      `${path}?fieldManager=b`,
      doc("  - name: y\n    weight: 2\n"),
      apply,
    );
    expect(both.body.spec.members).toEqual([
      { name: "x", weight: 1 },
      { name: "y", weight: 2 },
    ]);
    const conflict = await http(
      cluster,
      "PATCH",
      `${path}?fieldManager=b`,
      doc("  - name: x\n    weight: 5\n"),
      apply,
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.details.causes[0].field).toBe('.spec.members[name="x"].weight');
    const dup = await http(cluster, "PUT", path, {
      ...both.body,
      spec: { members: [{ name: "x" }, { name: "x" }] },
    });
    expect(dup.status).toBe(422);
    expect(dup.body.details.causes[0]).toMatchObject({
      reason: "FieldValueDuplicate",
      field: "spec.members[1]",
    });
  });

  it("applies custom resources and status through the status subresource", async () => {
    const path = "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/applied";
    const doc =
      "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: applied\nspec:\n  size: 2\n";
    const created = await http(cluster, "PATCH", `${path}?fieldManager=op`, doc, apply);
    expect(created.status).toBe(201);
    expect(created.body.spec).toEqual({ size: 2, image: "memcached:1.6" });
    const status = await http(
      cluster,
      "PATCH",
      `${path}/status?fieldManager=op`,
      "apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: applied\nstatus:\n  replicas: 2\n",
      apply,
    );
    expect(status.status).toBe(200);
    expect(status.body.status).toEqual({ replicas: 2 });
    const invalid = await http(
      cluster,
      "PATCH",
      `${path}?fieldManager=op`,
      doc.replace("size: 2", "size: 100"),
      apply,
    );
    expect(invalid.status).toBe(422);
  });
});
