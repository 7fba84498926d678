// mergeFrom(base, { optimisticLock }): the JSON merge patch (RFC 7386) of what changed on an object
// since base, as controller-runtime's client.MergeFrom / MergeFromWithOptimisticLock compute it, and
// client.patch(obj, mergeFrom(base)) against the in-memory server.
import { afterEach, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { createMergePatch, isPatch, mergeFrom } from "../../src/runtime/client/patch.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster } from "../../src/testing/index.js";

type Obj = KubeObjectLike & {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
};

describe("createMergePatch", () => {
  it("is {} when nothing changed, whatever the key order or undefined members", () => {
    expect(createMergePatch({ a: 1, b: { c: [1, 2], d: "x" } }, { b: { d: "x", c: [1, 2] }, a: 1 })).toEqual(
      {},
    );
    expect(createMergePatch({ a: 1 }, { a: 1, b: undefined })).toEqual({});
    expect(createMergePatch({}, {})).toEqual({});
  });

  it("sends changed and added members with their new value", () => {
    expect(createMergePatch({ a: 1, b: "x" }, { a: 2, b: "x", c: true })).toEqual({ a: 2, c: true });
    expect(createMergePatch({ a: "1" }, { a: 1 })).toEqual({ a: 1 }); // JSON types differ
  });

  it("sends removed members as null (absent, undefined or null in the object)", () => {
    expect(createMergePatch({ a: 1, b: 2, c: 3, d: 4 }, { a: 1, c: undefined, d: null })).toEqual({
      b: null,
      c: null,
      d: null,
    });
    expect(createMergePatch({ a: null }, {})).toEqual({}); // already absent
    expect(createMergePatch({}, { a: null })).toEqual({});
  });

  it("patches nested objects member by member, and only the branches that changed", () => {
    const before = {
      spec: { replicas: 1, template: { labels: { a: "1", b: "2" }, image: "x" } },
      status: { s: 1 },
    };
    const after = {
      spec: { replicas: 1, template: { labels: { a: "1", c: "3" }, image: "x" } },
      status: { s: 1 },
    };
    expect(createMergePatch(before, after)).toEqual({ spec: { template: { labels: { b: null, c: "3" } } } });
  });

  it("replaces arrays whole (merge patches cannot address items), and only when they differ", () => {
    expect(createMergePatch({ f: ["a", "b"] }, { f: ["a", "b", "c"] })).toEqual({ f: ["a", "b", "c"] });
    expect(createMergePatch({ f: ["a", "b"] }, { f: ["b", "a"] })).toEqual({ f: ["b", "a"] });
    expect(
      createMergePatch({ c: [{ name: "x", env: [{ n: 1 }] }] }, { c: [{ env: [{ n: 1 }], name: "x" }] }),
    ).toEqual({});
    expect(createMergePatch({ f: ["a"] }, { f: [] })).toEqual({ f: [] });
  });

  it("replaces a value whose type changed (object ↔ scalar or array) whole, without undefined members", () => {
    expect(createMergePatch({ a: "x" }, { a: { b: 1, u: undefined } })).toEqual({ a: { b: 1 } });
    expect(createMergePatch({ a: { b: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(createMergePatch({ a: { b: 1 } }, { a: 2 })).toEqual({ a: 2 });
  });

  it("shares nothing with the object it was computed from", () => {
    const after = { list: [{ a: 1 }] };
    const patch = createMergePatch({}, after) as { list: Array<{ a: number }> };
    patch.list[0]!.a = 2;
    expect(after.list[0]!.a).toBe(1);
  });
});

describe("mergeFrom", () => {
  const base: Obj = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", namespace: "d", resourceVersion: "7", labels: { a: "1" } },
    data: { x: "1" },
  };

  it("computes the patch when it is sent, from a copy of base taken when it was made", () => {
    const obj = structuredClone(base);
    const patch = mergeFrom(obj);
    obj.data!.x = "2";
    obj.metadata.labels = undefined;
    expect(patch.type).toBe("merge");
    expect(isPatch(patch)).toBe(true);
    expect(patch.data(obj)).toEqual({ data: { x: "2" }, metadata: { labels: null } });
  });

  it("with optimisticLock carries base's resourceVersion, even when nothing else changed", () => {
    const obj = structuredClone(base);
    const patch = mergeFrom(obj, { optimisticLock: true });
    expect(patch.data(obj)).toEqual({ metadata: { resourceVersion: "7" } });
    obj.metadata.resourceVersion = "9"; // the object's own version does not count: base's does
    obj.data = { x: "3" };
    expect(patch.data(obj)).toEqual({ metadata: { resourceVersion: "7" }, data: { x: "3" } });
  });

  it("without optimisticLock sends no resourceVersion, and none when only it changed", () => {
    const obj = structuredClone(base);
    const patch = mergeFrom(obj);
    obj.metadata.resourceVersion = "9";
    expect(patch.data({ ...obj, metadata: { ...obj.metadata, resourceVersion: "7" } })).toEqual({});
  });

  it("refuses optimisticLock for a base without resourceVersion, naming the object", () => {
    const patch = mergeFrom(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "d" } },
      { optimisticLock: true },
    );
    expect(() => patch.data(base)).toThrow(
      /cannot patch ConfigMap d\/c with optimisticLock: its base has no resourceVersion/,
    );
  });

  it("plain bodies are not patches", () => {
    expect(isPatch({ data: { x: "1" } })).toBe(false);
    expect(isPatch([{ op: "add" }])).toBe(false);
    expect(isPatch(null)).toBe(false);
  });
});

describe("client.patch(obj, mergeFrom(base))", () => {
  let cluster: Awaited<ReturnType<typeof startTestCluster>> | undefined;
  let rest: RestClient | undefined;
  afterEach(async () => {
    rest?.close();
    await cluster?.stop();
    cluster = rest = undefined;
  });

  async function client(): Promise<Client> {
    cluster = await startTestCluster();
    const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
    rest = new RestClient(loaded.server, loaded);
    return new Client(rest, new RestMapper(rest));
  }

  it("writes only what changed: a field missing from the copy stays on the server", async () => {
    const c = await client();
    const live = await c.create<Obj>({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "p", namespace: "default" },
      data: { big: "kept", x: "1" },
    });
    const copy = structuredClone(live);
    delete copy.data!.big; // what a cache transform might have dropped
    const base = structuredClone(copy);
    copy.data!.x = "2";
    copy.metadata.labels = { l: "v" };
    const patched = await c.patch(copy, mergeFrom(base, { optimisticLock: true }));
    expect(patched.data).toEqual({ big: "kept", x: "2" });
    expect(patched.metadata.labels).toEqual({ l: "v" });
  });

  it("with optimisticLock fails with 409 when the object changed since base was read", async () => {
    const c = await client();
    const live = await c.create<Obj>({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "q", namespace: "default" },
      data: { x: "1" },
    });
    await c.patch(
      { kind: { apiVersion: "v1", kind: "ConfigMap" }, key: { namespace: "default", name: "q" } },
      { data: { y: "other" } },
    );
    const base = structuredClone(live);
    live.data = { x: "2" };
    await expect(c.patch(live, mergeFrom(base, { optimisticLock: true }))).rejects.toMatchObject({
      status: 409,
    });
    expect((await c.patch(live, mergeFrom(base))).data).toEqual({ x: "2", y: "other" }); // no lock: merged
  });

  it("refuses a computed patch of { kind, key }: it needs the changed object", async () => {
    const c = await client();
    const target = {
      kind: { apiVersion: "v1", kind: "ConfigMap" },
      key: { namespace: "default", name: "x" },
    };
    await expect(c.patch(target, mergeFrom({ metadata: {} }))).rejects.toThrow(
      /needs the object, not \{ kind, key \}/,
    );
  });
});
