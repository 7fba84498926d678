// CRD registration, serving of custom resources, schema validation/defaulting/pruning, subresources.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { http, memcachedCrd } from "./helpers.js";

let cluster: TestCluster;
const base = "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds";

function memcached(name: string, spec: Record<string, unknown> = { size: 1 }) {
  return { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached", metadata: { name }, spec };
}

beforeAll(async () => {
  cluster = await startTestCluster();
  const r = await http(
    cluster,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    memcachedCrd,
  );
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await cluster.stop();
});

describe("CRD registration", () => {
  it("becomes Established with NamesAccepted and is served in discovery", async () => {
    const crd = await http(
      cluster,
      "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/memcacheds.cache.example.com",
    );
    const conds = crd.body.status.conditions.map(
      (c: { type: string; status: string }) => `${c.type}=${c.status}`,
    );
    expect(conds).toEqual(["NamesAccepted=True", "Established=True"]);
    expect(crd.body.status.acceptedNames).toMatchObject({ kind: "Memcached", plural: "memcacheds" });
    expect(crd.body.status.storedVersions).toEqual(["v1alpha1"]);
    expect(crd.body.metadata.finalizers).toContain("customresourcecleanup.apiextensions.k8s.io");
    const group = await http(cluster, "GET", "/apis/cache.example.com");
    expect(group.body.preferredVersion.version).toBe("v1alpha1");
    const apis = await http(cluster, "GET", "/apis");
    expect(apis.body.groups.map((g: { name: string }) => g.name)).toContain("cache.example.com");
    const list = await http(cluster, "GET", "/apis/cache.example.com/v1alpha1");
    const names = list.body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(["memcacheds", "memcacheds/status", "memcacheds/scale"]);
  });

  it("rejects an invalid CRD with 422 and field causes", async () => {
    const bad = structuredClone(memcachedCrd) as typeof memcachedCrd & { metadata: { name: string } };
    bad.metadata.name = "wrong.cache.example.com";
    (bad.spec.versions[0] as Record<string, unknown>).storage = false;
    const r = await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", bad);
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe("Invalid");
    expect(r.body.message).toMatch(
      /^CustomResourceDefinition.apiextensions.k8s.io "wrong.cache.example.com" is invalid: \[/,
    );
    const fields = r.body.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toContain("metadata.name");
    expect(fields).toContain("spec.versions");
    const noType = structuredClone(memcachedCrd);
    noType.metadata.name = "others.cache.example.com";
    noType.spec.names = {
      ...noType.spec.names,
      plural: "others",
      kind: "Other",
      singular: "other",
      listKind: "OtherList",
      shortNames: [],
    };
    (
      noType.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.size as Record<
        string,
        unknown
      >
    ).type = undefined;
    const r2 = await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", noType);
    expect(r2.status).toBe(422);
    expect(r2.body.details.causes).toContainEqual({
      reason: "FieldValueRequired",
      message: "Required value: must not be empty for specified object fields",
      field: "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type",
    });
  });
});

describe("custom resources", () => {
  it("creates with defaults applied, unknown fields pruned and generation 1", async () => {
    const r = await http(cluster, "POST", base, {
      ...memcached("a", { size: 2, unknown: true }),
      extra: "x",
    });
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ size: 2, image: "memcached:1.6" });
    expect(r.body.extra).toBeUndefined();
    expect(r.body.metadata.generation).toBe(1);
  });

  it("validates against the schema with 422 Invalid and field paths", async () => {
    const r = await http(cluster, "POST", base, memcached("bad", { size: 0 }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message:
        'Memcached.cache.example.com "bad" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
      details: {
        name: "bad",
        group: "cache.example.com",
        kind: "Memcached",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: "Invalid value: 0: spec.size in body should be greater than or equal to 1",
            field: "spec.size",
          },
        ],
      },
    });
    const missing = await http(cluster, "POST", base, memcached("bad", {}));
    expect(missing.body.details.causes).toEqual([
      { reason: "FieldValueRequired", message: "Required value", field: "spec.size" },
    ]);
    const wrongType = await http(cluster, "POST", base, memcached("bad", { size: "two" }));
    expect(wrongType.body.details.causes[0]).toMatchObject({
      field: "spec.size",
      message: expect.stringContaining("must be of type integer"),
    });
    const noKind = await http(cluster, "POST", base, { metadata: { name: "nokind" }, spec: { size: 1 } });
    expect(noKind.status).toBe(400);
  });

  it("answers field selectors like the real server for custom resources", async () => {
    const ok = await http(cluster, "GET", `${base}?fieldSelector=${encodeURIComponent("metadata.name=a")}`);
    expect(ok.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["a"]);
    const bad = await http(cluster, "GET", `${base}?fieldSelector=${encodeURIComponent("spec.size=1")}`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      '"spec.size" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const clusterWide = await http(
      cluster,
      "POST",
      "/apis/cache.example.com/v1alpha1/memcacheds",
      memcached("x"),
    );
    expect(clusterWide.status).toBe(405);
  });

  it("answers NotFound with the qualified resource name", async () => {
    const r = await http(cluster, "GET", `${base}/foo`);
    expect(r.body).toMatchObject({
      message: 'memcacheds.cache.example.com "foo" not found',
      details: { name: "foo", group: "cache.example.com", kind: "memcacheds" },
    });
  });

  it("ignores status on main writes and spec on status writes; bumps generation on spec changes only", async () => {
    const created = await http(cluster, "POST", base, {
      ...memcached("s", { size: 1 }),
      status: { replicas: 9 },
    });
    expect(created.body.status).toBeUndefined();
    const withStatus = await http(cluster, "PUT", `${base}/s/status`, {
      ...created.body,
      spec: { size: 5 },
      status: { replicas: 3 },
    });
    expect(withStatus.status).toBe(200);
    expect(withStatus.body.status).toEqual({ replicas: 3 });
    expect(withStatus.body.spec.size).toBe(1);
    expect(withStatus.body.metadata.generation).toBe(1);
    const specChange = await http(cluster, "PUT", `${base}/s`, {
      ...withStatus.body,
      spec: { size: 2 },
      status: { replicas: 0 },
    });
    expect(specChange.body.metadata.generation).toBe(2);
    expect(specChange.body.status).toEqual({ replicas: 3 });
    const labelsOnly = await http(cluster, "PUT", `${base}/s`, {
      ...specChange.body,
      metadata: { ...specChange.body.metadata, labels: { a: "b" } },
    });
    expect(labelsOnly.body.metadata.generation).toBe(2);
    const noop = await http(cluster, "PUT", `${base}/s`, labelsOnly.body);
    expect(noop.body.metadata.resourceVersion).toBe(labelsOnly.body.metadata.resourceVersion);
  });

  it("serves the scale subresource", async () => {
    await http(cluster, "POST", base, memcached("sc", { size: 2 }));
    const scale = await http(cluster, "GET", `${base}/sc/scale`);
    expect(scale.body).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 2 },
      status: { replicas: 0 },
    });
    const put = await http(cluster, "PUT", `${base}/sc/scale`, { ...scale.body, spec: { replicas: 4 } });
    expect(put.body.spec.replicas).toBe(4);
    const obj = await http(cluster, "GET", `${base}/sc`);
    expect(obj.body.spec.size).toBe(4);
    const patched = await http(
      cluster,
      "PATCH",
      `${base}/sc/scale`,
      { spec: { replicas: 3 } },
      { contentType: "application/merge-patch+json" },
    );
    expect(patched.body.spec.replicas).toBe(3);
  });

  it("serves every served version and cluster-scoped CRDs", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.org" },
      spec: {
        group: "example.org",
        scope: "Cluster",
        names: { plural: "widgets", kind: "Widget" },
        versions: [
          {
            name: "v1beta1",
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    };
    expect(
      (await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
    ).toBe(201);
    const group = await http(cluster, "GET", "/apis/example.org");
    expect(group.body.versions.map((v: { version: string }) => v.version)).toEqual(["v1", "v1beta1"]);
    const created = await http(cluster, "POST", "/apis/example.org/v1beta1/widgets", {
      apiVersion: "example.org/v1beta1",
      kind: "Widget",
      metadata: { name: "w" },
      anything: { goes: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.metadata.namespace).toBeUndefined();
    const v1 = await http(cluster, "GET", "/apis/example.org/v1/widgets/w");
    expect(v1.body).toMatchObject({ apiVersion: "example.org/v1", kind: "Widget", anything: { goes: 1 } });
    const namespaced = await http(cluster, "GET", "/apis/example.org/v1/namespaces/default/widgets");
    expect(namespaced.status).toBe(404);
  });

  it("deleting a CRD removes its objects and stops serving", async () => {
    await http(cluster, "POST", "/apis/example.org/v1/widgets", {
      apiVersion: "example.org/v1",
      kind: "Widget",
      metadata: { name: "w2" },
    });
    const del = await http(
      cluster,
      "DELETE",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.org",
    );
    expect(del.status).toBe(200);
    await cluster.waitFor(
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      "widgets.example.org",
      undefined,
      (o) => o === undefined,
    );
    const r = await http(cluster, "GET", "/apis/example.org/v1/widgets");
    expect(r.status).toBe(404);
    const apis = await http(cluster, "GET", "/apis");
    expect(apis.body.groups.map((g: { name: string }) => g.name)).not.toContain("example.org");
  });
});

describe("schema keywords", () => {
  const props = {
    str: { type: "string", minLength: 2, maxLength: 4, pattern: "^[a-z]+$" },
    mode: { type: "string", enum: ["a", "b"] },
    num: {
      type: "number",
      minimum: 1,
      exclusiveMinimum: true,
      maximum: 10,
      exclusiveMaximum: true,
      multipleOf: 0.5,
    },
    list: { type: "array", minItems: 1, maxItems: 2, uniqueItems: true, items: { type: "string" } },
    map: { type: "object", minProperties: 1, maxProperties: 2, additionalProperties: { type: "integer" } },
    port: { "x-kubernetes-int-or-string": true },
    maybe: { type: "string", nullable: true },
    dropped: { type: "string", default: "d" },
    free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    embedded: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    },
  };
  beforeAll(async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "things.test.io" },
      spec: {
        group: "test.io",
        scope: "Namespaced",
        names: { plural: "things", kind: "Thing" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: props } },
              },
            },
          },
        ],
      },
    };
    expect(
      (await http(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
    ).toBe(201);
  });
  const post = (name: string, spec: unknown) =>
    http(cluster, "POST", "/apis/test.io/v1/namespaces/default/things", {
      apiVersion: "test.io/v1",
      kind: "Thing",
      metadata: { name },
      spec,
    });
  const causes = async (spec: unknown) => {
    const r = await post("t", spec);
    expect(r.status).toBe(422);
    return r.body.details.causes as Array<{ field: string; message: string; reason: string }>;
  };

  it("accepts a valid object and keeps preserved/embedded fields", async () => {
    const r = await post("ok", {
      str: "abc",
      mode: "a",
      num: 2.5,
      list: ["x", "y"],
      map: { a: 1 },
      port: "http",
      maybe: null,
      dropped: null,
      free: { any: { thing: [1] } },
      embedded: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: {} },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec.free).toEqual({ any: { thing: [1] } });
    expect(r.body.spec.embedded.metadata).toEqual({ name: "c" });
    expect(r.body.spec.maybe).toBeNull();
    expect(r.body.spec.dropped).toBe("d");
    expect((await post("ok2", { port: 8080 })).status).toBe(201);
  });

  it("reports each keyword with its field path", async () => {
    expect(await causes({ str: "A" })).toEqual([
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "A": spec.str in body should be at least 2 chars long',
        field: "spec.str",
      },
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: \"A\": spec.str in body should match '^[a-z]+$'",
        field: "spec.str",
      },
    ]);
    expect(await causes({ str: "abcde" })).toContainEqual({
      reason: "FieldValueTooLong",
      message: "Too long: may not be longer than 4",
      field: "spec.str",
    });
    expect(await causes({ mode: "c" })).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "c": supported values: "a", "b"',
        field: "spec.mode",
      },
    ]);
    expect((await causes({ num: 1 }))[0]!.message).toBe(
      "Invalid value: 1: spec.num in body should be greater than 1",
    );
    expect((await causes({ num: 10 }))[0]!.message).toBe(
      "Invalid value: 10: spec.num in body should be less than 10",
    );
    expect((await causes({ num: 2.2 }))[0]!.message).toBe(
      "Invalid value: 2.2: spec.num in body should be a multiple of 0.5",
    );
    expect((await causes({ list: [] }))[0]!.message).toBe(
      "Invalid value: []: spec.list in body should have at least 1 items",
    );
    expect((await causes({ list: ["a", "b", "c"] }))[0]).toMatchObject({
      reason: "FieldValueTooMany",
      message: "Too many: 3: must have at most 2 items",
    });
    expect((await causes({ list: ["a", "a"] }))[0]).toMatchObject({
      reason: "FieldValueDuplicate",
      field: "spec.list[1]",
    });
    expect((await causes({ list: [1] }))[0]).toMatchObject({
      field: "spec.list[0]",
      reason: "FieldValueTypeInvalid",
    });
    expect((await causes({ map: {} }))[0]!.message).toBe(
      "Invalid value: {}: spec.map in body should have at least 1 properties",
    );
    expect((await causes({ map: { a: 1, b: 2, c: 3 } }))[0]).toMatchObject({ reason: "FieldValueTooMany" });
    expect((await causes({ map: { a: "x" } }))[0]).toMatchObject({ field: "spec.map.a" });
    expect((await causes({ port: true }))[0]).toMatchObject({
      field: "spec.port",
      message: expect.stringContaining("integer,string"),
    });
    expect((await causes({ embedded: { metadata: {} } })).map((c) => c.field)).toEqual([
      "spec.embedded.apiVersion",
      "spec.embedded.kind",
    ]);
  });
});
