// Watch streams over raw HTTP: initial state, resourceVersion replay, cluster-wide and per
// namespace, selectors (including transitions), BOOKMARKs, 410 Gone, timeoutSeconds, server close.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http, openWatch } from "./helpers.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster({ watchCacheSize: 50, bookmarkIntervalMs: 100, namespaces: ["other"] });
});
afterAll(async () => {
  await cluster.stop();
});

describe("watch", () => {
  it("sends current objects as ADDED, then live events with increasing resourceVersions", async () => {
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("w1"));
    const w = await openWatch(cluster, "/api/v1/namespaces/default/configmaps?watch=true");
    expect(w.status).toBe(200);
    await w.next(1);
    expect(w.events[0]).toMatchObject({
      type: "ADDED",
      object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "w1" } },
    });
    await http(
      cluster,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/w1",
      { data: { a: "1" } },
      { contentType: "application/merge-patch+json" },
    );
    await http(cluster, "DELETE", "/api/v1/namespaces/default/configmaps/w1");
    const events = await w.next(3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs[1]!).toBeGreaterThan(rvs[0]!);
    expect(rvs[2]!).toBeGreaterThan(rvs[1]!);
    w.stop();
  });

  it("replays history after a resourceVersion, per namespace and cluster-wide", async () => {
    const start = (await http(cluster, "GET", "/api/v1/configmaps")).body.metadata.resourceVersion;
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("r1"));
    await http(cluster, "POST", "/api/v1/namespaces/other/configmaps", configMap("r2", {}, "other"));
    const ns = await openWatch(
      cluster,
      `/api/v1/namespaces/other/configmaps?watch=1&resourceVersion=${start}`,
    );
    const all = await openWatch(cluster, `/api/v1/watch/configmaps?resourceVersion=${start}`);
    expect((await ns.next(1)).map((e) => e.object.metadata.name)).toEqual(["r2"]);
    expect((await all.next(2)).map((e) => e.object.metadata.name)).toEqual(["r1", "r2"]);
    ns.stop();
    all.stop();
  });

  it("filters by label and field selectors, turning selector transitions into ADDED/DELETED", async () => {
    const w = await openWatch(
      cluster,
      "/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team%3Dblue",
    );
    const byName = await openWatch(
      cluster,
      "/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dsel",
    );
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", {
      ...configMap("sel"),
      metadata: { name: "sel", labels: { team: "red" } },
    });
    await http(
      cluster,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/sel",
      { metadata: { labels: { team: "blue" } } },
      { contentType: "application/merge-patch+json" },
    );
    await http(
      cluster,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/sel",
      { metadata: { labels: { team: "green" } } },
      { contentType: "application/merge-patch+json" },
    );
    expect((await w.next(2)).map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect((await byName.next(3)).map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "MODIFIED"]);
    w.stop();
    byName.stop();
  });

  it("sends BOOKMARK events when asked", async () => {
    const w = await openWatch(
      cluster,
      "/api/v1/namespaces/other/secrets?watch=true&allowWatchBookmarks=true",
    );
    const events = await w.next(1);
    expect(events[0]).toMatchObject({
      type: "BOOKMARK",
      object: { kind: "Secret", apiVersion: "v1", metadata: { resourceVersion: cluster.resourceVersion() } },
    });
    w.stop();
  });

  it("marks the end of initial events with a bookmark (sendInitialEvents)", async () => {
    await http(cluster, "POST", "/api/v1/namespaces/other/configmaps", configMap("initial", {}, "other"));
    const w = await openWatch(
      cluster,
      "/api/v1/namespaces/other/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
    );
    const events = await w.next(2);
    const end = events.findIndex((e) => e.type === "BOOKMARK");
    expect(events.slice(0, end).every((e) => e.type === "ADDED")).toBe(true);
    expect(events[end]!.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" });
    w.stop();
  });

  it("answers a too-old resourceVersion with an ERROR event carrying a 410 Expired Status, then closes", async () => {
    for (let i = 0; i < 60; i++)
      await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap(`fill-${i}`));
    const w = await openWatch(cluster, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2");
    await w.closed();
    expect(w.status).toBe(200);
    expect(w.events).toHaveLength(1);
    expect(w.events[0]!.type).toBe("ERROR");
    expect(w.events[0]!.object).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Expired",
      code: 410,
    });
    expect(w.events[0]!.object.message).toMatch(/^too old resource version: 2 \(\d+\)$/);
  });

  it("compact() makes every older resourceVersion answer 410", async () => {
    const rv = cluster.resourceVersion();
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("after-compact"));
    cluster.compact();
    const w = await openWatch(
      cluster,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
    );
    await w.closed();
    expect(w.events[0]!.object.code).toBe(410);
  });

  it("honours timeoutSeconds and closeWatches()", async () => {
    const started = Date.now();
    const timed = await openWatch(cluster, "/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1");
    await timed.closed();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const w = await openWatch(cluster, "/api/v1/namespaces/default/pods?watch=true");
    expect(cluster.openWatches()).toBeGreaterThanOrEqual(1);
    cluster.closeWatches();
    await w.closed();
    expect(cluster.openWatches()).toBe(0);
  });

  it("watches a single object through /watch/namespaces/NS/RESOURCE/NAME", async () => {
    const w = await openWatch(cluster, "/api/v1/watch/namespaces/default/configmaps/single");
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("other-one"));
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("single"));
    const events = await w.next(1);
    expect(events.map((e) => e.object.metadata.name)).toEqual(["single"]);
    w.stop();
  });
});

describe("list", () => {
  beforeAll(async () => {
    for (const [name, labels] of [
      ["l-a", { tier: "web", env: "prod" }],
      ["l-b", { tier: "db", env: "prod" }],
      ["l-c", { tier: "web" }],
    ] as const) {
      await http(cluster, "POST", "/api/v1/namespaces/other/configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, labels },
      });
    }
  });
  const names = async (query: string) => {
    const r = await http(cluster, "GET", `/api/v1/namespaces/other/configmaps?${query}`);
    expect(r.status).toBe(200);
    return r.body.items
      .map((i: { metadata: { name: string } }) => i.metadata.name)
      .filter((n: string) => n.startsWith("l-"));
  };

  it("returns a typed list with the current resourceVersion and items without kind", async () => {
    const r = await http(cluster, "GET", "/api/v1/namespaces/other/configmaps");
    expect(r.body).toMatchObject({ kind: "ConfigMapList", apiVersion: "v1" });
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(r.body.items[0].kind).toBeUndefined();
  });

  it("filters with every label selector operator", async () => {
    const q = (s: string) => names(`labelSelector=${encodeURIComponent(s)}`);
    expect(await q("tier=web")).toEqual(["l-a", "l-c"]);
    expect(await q("tier==web,env=prod")).toEqual(["l-a"]);
    expect(await q("tier!=web")).toEqual(["l-b"]);
    expect(await q("tier in (db, web),env")).toEqual(["l-a", "l-b"]);
    expect(await q("tier notin (web)")).toEqual(["l-b"]);
    expect(await q("!env")).toEqual(["l-c"]);
    const bad = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/other/configmaps?labelSelector=${encodeURIComponent("a in b")}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe("BadRequest");
  });

  it("filters with field selectors on metadata.name and metadata.namespace", async () => {
    expect(await names(`fieldSelector=${encodeURIComponent("metadata.name=l-b")}`)).toEqual(["l-b"]);
    expect(await names(`fieldSelector=${encodeURIComponent("metadata.name!=l-b")}`)).toEqual(["l-a", "l-c"]);
    const all = await http(
      cluster,
      "GET",
      `/api/v1/configmaps?fieldSelector=${encodeURIComponent("metadata.namespace=other")}`,
    );
    expect(
      all.body.items.every((i: { metadata: { namespace: string } }) => i.metadata.namespace === "other"),
    ).toBe(true);
    const bad = await http(
      cluster,
      "GET",
      `/api/v1/configmaps?fieldSelector=${encodeURIComponent("spec.nope=1")}`,
    );
    expect(bad.status).toBe(400);
  });

  it("pages with limit and continue", async () => {
    const first = await http(
      cluster,
      "GET",
      "/api/v1/namespaces/other/configmaps?limit=2&labelSelector=tier",
    );
    expect(first.body.items).toHaveLength(2);
    expect(first.body.metadata.remainingItemCount).toBe(1);
    const token = first.body.metadata.continue;
    expect(token).toBeTruthy();
    const second = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/other/configmaps?limit=2&labelSelector=tier&continue=${token}`,
    );
    expect(second.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["l-c"]);
    expect(second.body.metadata.continue).toBeUndefined();
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const bad = await http(cluster, "GET", "/api/v1/namespaces/other/configmaps?limit=2&continue=garbage!");
    expect(bad.status).toBe(400);
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("moves-rv"));
    cluster.compact();
    const expired = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/other/configmaps?limit=2&continue=${token}`,
    );
    expect(expired.status).toBe(410);
    expect(expired.body.reason).toBe("Expired");
  });

  it("deletes a collection by label selector", async () => {
    const r = await http(cluster, "DELETE", "/api/v1/namespaces/other/configmaps?labelSelector=tier%3Dweb");
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe("ConfigMapList");
    expect(r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["l-a", "l-c"]);
    expect(await names("")).toEqual(["l-b"]);
  });
});
