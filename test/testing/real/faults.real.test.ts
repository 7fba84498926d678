// The fault proxy in front of the real kube-apiserver: the in-memory server's fault tests, ported
// (same assertions, real server behind), and the same faults seen through @kubernetes/client-node.
import { ApiException, CoreV1Api, KubeConfig, Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster } from "../../../src/testing/index.js";
import { configMap, http, openWatch } from "../helpers.js";

let cluster: RealTestCluster;
let core: CoreV1Api;
let kc: KubeConfig;

beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => {
  await cluster?.stop();
});

async function failure(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiException) return e as ApiException<string>;
    throw e;
  }
  throw new Error("expected the call to fail");
}

describe("fault injection (ported from the in-memory server's tests)", () => {
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
    expect(c.body).toMatchObject({ kind: "ConfigMapList" });
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
    // The faulted create never reached the server.
    expect((await http(cluster, "GET", "/api/v1/namespaces/default/configmaps/f")).status).toBe(404);
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
    expect(w.status).toBe(200);
    expect(cluster.openWatches()).toBe(1);
    await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap("watched"));
    const events = await w.next(1);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toContain("ADDED watched");
    cluster.closeWatches();
    await w.closed();
    expect(cluster.openWatches()).toBe(0);
  });

  it("records requests", async () => {
    await http(cluster, "GET", "/api/v1/namespaces/default/pods?limit=1");
    expect(cluster.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/api/v1/namespaces/default/pods?limit=1",
      status: 200,
      user: "(bearer token)",
    });
  });
});

describe("faults through @kubernetes/client-node (client certificate via the front proxy)", () => {
  it("500 then success", async () => {
    cluster.faults.add({ method: "GET", path: "/api/v1/namespaces/default/configmaps", status: 500 });
    const err = await failure(core.listNamespacedConfigMap({ namespace: "default" }));
    expect(err.code).toBe(500);
    expect(JSON.parse(err.body)).toMatchObject({ reason: "InternalError" });
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    expect(list.items.map((c) => c.metadata?.name)).toContain("watched");
    expect(cluster.requests.at(-1)).toMatchObject({ status: 200, user: "tsop-admin" });
  });

  it("429 carries Retry-After to the client", async () => {
    cluster.faults.add({
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      status: 429,
      retryAfterSeconds: 7,
    });
    const err = await failure(
      core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "throttled" } } }),
    );
    expect(err.code).toBe(429);
    expect(err.headers["retry-after"]).toBe("7");
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "throttled" } } });
  });

  it("409 on update, then the real server's own optimistic-concurrency 409", async () => {
    const cm = await core.readNamespacedConfigMap({ namespace: "default", name: "throttled" });
    cluster.faults.add({
      method: "PUT",
      path: "/api/v1/namespaces/default/configmaps/throttled",
      status: 409,
    });
    expect(
      (await failure(core.replaceNamespacedConfigMap({ namespace: "default", name: "throttled", body: cm })))
        .code,
    ).toBe(409);
    await core.replaceNamespacedConfigMap({
      namespace: "default",
      name: "throttled",
      body: { ...cm, data: { a: "1" } },
    });
    const stale = await failure(
      core.replaceNamespacedConfigMap({
        namespace: "default",
        name: "throttled",
        body: { ...cm, data: { a: "2" } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(JSON.parse(stale.body).message).toContain("the object has been modified");
  });

  it("a cut watch ends client-node's Watch (done is called) while the server stays up", async () => {
    const watch = new Watch(kc);
    const seen: string[] = [];
    let done!: (err: unknown) => void;
    const ended = new Promise((resolve) => (done = resolve));
    const req = await watch.watch(
      "/api/v1/namespaces/default/configmaps",
      {},
      (type, obj: { metadata: { name: string } }) => seen.push(`${type} ${obj.metadata.name}`),
      (err) => done(err),
    );
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "seen" } } });
    const deadline = Date.now() + 10_000;
    while (!seen.includes("ADDED seen") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toContain("ADDED seen");
    expect(cluster.openWatches()).toBe(1);
    cluster.closeWatches();
    await ended;
    expect(cluster.openWatches()).toBe(0);
    req.abort();
    expect((await core.readNamespacedConfigMap({ namespace: "default", name: "seen" })).metadata?.name).toBe(
      "seen",
    );
  });
});

describe("the fault controls a fault suite needs, against the real apiserver", () => {
  it("holds a real watch's events back and releases them in order", async () => {
    const list = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps");
    const rv = list.body.metadata.resourceVersion as string;
    const w = await openWatch(
      cluster,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
    );
    const release = cluster.faults.holdWatchEvents({
      watch: true,
      path: "/api/v1/namespaces/default/configmaps",
    });
    for (const n of ["held-1", "held-2"]) {
      await http(cluster, "POST", "/api/v1/namespaces/default/configmaps", configMap(n));
    }
    const deadline = Date.now() + 10_000;
    while (cluster.faults.heldWatchEvents() < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(cluster.faults.heldWatchEvents()).toBe(2);
    expect(w.events).toEqual([]);
    release();
    const events = await w.next(2);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      "ADDED held-1",
      "ADDED held-2",
    ]);
    w.stop();
  });

  it("partitions one client-certificate user and answers its next watch 410 Gone", async () => {
    const operator = new KubeConfig();
    operator.loadFromString(cluster.kubeconfigFor("partitioned", ["system:masters"]));
    const api = operator.makeApiClient(CoreV1Api);
    const heal = cluster.faults.partition("partitioned");
    expect((await failure(api.listNamespacedConfigMap({ namespace: "default" }))).code).toBe(503);
    expect((await core.listNamespacedConfigMap({ namespace: "default" })).items.length).toBeGreaterThan(0);
    heal();
    expect((await api.listNamespacedConfigMap({ namespace: "default" })).items.length).toBeGreaterThan(0);
    expect(cluster.requests.filter((r) => r.user === "partitioned").map((r) => r.status)).toEqual([503, 200]);
    cluster.faults.expireWatches({ user: "(bearer token)" });
    const gone = await openWatch(
      cluster,
      "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1",
    );
    expect((await gone.next(1))[0]).toMatchObject({
      type: "ERROR",
      object: { code: 410, reason: "Expired" },
    });
  });

  it("restarts kube-apiserver on its port with the same etcd: data kept, watches ended, then served again", async () => {
    const w = await openWatch(cluster, "/api/v1/namespaces/default/configmaps?watch=true");
    const pid = cluster.processes().find((p) => p.name === "kube-apiserver")!.pid;
    await cluster.stopApiServer();
    await w.closed(10_000);
    expect(cluster.processes().map((p) => p.name)).toEqual(["etcd"]);
    expect((await http(cluster, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(502);
    await cluster.startApiServer();
    const after = cluster.processes().find((p) => p.name === "kube-apiserver")!;
    expect(after.pid).not.toBe(pid);
    const cm = await http(cluster, "GET", "/api/v1/namespaces/default/configmaps/held-1");
    expect(cm.status).toBe(200);
    await cluster.restartApiServer();
    expect((await http(cluster, "GET", "/api/v1/namespaces/default/configmaps/held-2")).status).toBe(200);
  }, 120_000);
});
