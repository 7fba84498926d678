// The manager's cache on the real kube-apiserver (v1.34): reconciles read from the cache (no GET
// of a single object reaches the server), a write from a stale cached copy gets the real 409 and
// converges once the cache catches up, apiReader reads the server while the cache is behind,
// cached lists answer what the real server answers for the same selectors, and informers get
// their initial state as the real server serves it: a resourceVersion="0" list whole from the
// watch cache, a WatchList stream, metadata-only (PartialObjectMetadata) lists and watches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike, type ListOptions } from "../../src/runtime/client/client.js";
import { Informer } from "../../src/runtime/cache/informer.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import type { RequestRecord } from "../../src/testing/index.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;
const CONFIGMAPS = {
  apiVersion: "v1",
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
};

let real: RealTestCluster;
/** Talks to the kube-apiserver directly (not through the recording proxy): the test's own view. */
let direct: Client;
let directRest: RestClient;
const managers: Manager[] = [];
const logs: string[] = [];

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real", namespaces: ["cache-a", "cache-b", "cache-lists"] });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  directRest = new RestClient(real.apiserverUrl, loaded);
  direct = new Client(directRest, new RestMapper(directRest));
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  directRest?.close();
  await real?.stop();
});

async function startManager(options: Parameters<typeof Manager.create>[0] = {}) {
  const manager = await Manager.create({
    kubeconfig: real.kubeconfigPath,
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
    ...options,
  });
  managers.push(manager);
  return manager;
}

function objectGets(requests: RequestRecord[], resource: string): RequestRecord[] {
  const single = new RegExp(`/${resource}/[^/?]+(\\?|$)`);
  return requests.filter((r) => r.method === "GET" && !/[?&]watch=/.test(r.path) && single.test(r.path));
}

describe("the cache on the real kube-apiserver", () => {
  it("reads from the cache; a stale write gets the real 409 and converges; apiReader reads the server", async () => {
    const ns = "cache-a";
    const key = { namespace: ns, name: "target" };
    await direct.create({ ...SECRET, metadata: key, data: {} });
    await direct.create({ ...CM, metadata: { name: "source", namespace: ns }, data: { input: "a" } });
    const manager = await startManager();
    const controller = await manager
      .controller(CM)
      .watches(SECRET, (s) => ({ namespace: (s as Obj).metadata.namespace, name: "source" }))
      .complete(async (req, { client }) => {
        if (req.namespace !== ns || req.name !== "source") return;
        const source = await client.get<Obj>(CM, req);
        const target = await client.get<Obj>(SECRET, key);
        if (!source || !target) return;
        const want = Buffer.from(source.data?.input ?? "").toString("base64");
        if (target.data?.value === want) return;
        target.data = { value: want };
        await client.update(target);
      });
    manager.start().catch(() => {});
    const value = async () => (await direct.get<Obj>(SECRET, key))?.data?.value;
    await waitFor("the target to follow input a", async () => (await value()) === "YQ==", 60_000);
    await waitFor(
      "the cache to see it",
      async () => (await manager.client.get<Obj>(SECRET, key))?.data?.value === "YQ==",
    );
    await waitFor("the queue idle", () => controller.queue.idle());
    expect(objectGets(real.requests, "configmaps")).toEqual([]);
    expect(objectGets(real.requests, "secrets")).toEqual([]);

    real.faults.add({ path: "/api/v1/secrets", watch: true, status: 500, count: Infinity });
    real.closeWatches();
    await direct.patch({ kind: SECRET, key }, { metadata: { annotations: { touched: "yes" } } });
    expect((await manager.apiReader.get<Obj>(SECRET, key))?.metadata.annotations).toEqual({ touched: "yes" });
    expect((await manager.client.get<Obj>(SECRET, key))?.metadata.annotations).toBeUndefined();

    await direct.patch({ kind: CM, key: { namespace: ns, name: "source" } }, { data: { input: "b" } });
    await waitFor("a conflicting update", () =>
      real.requests.some((r) => r.method === "PUT" && r.status === 409 && r.path.includes("/secrets/target")),
    );
    real.faults.clear();
    await waitFor("the target to follow input b", async () => (await value()) === "Yg==", 60_000);
    expect((await direct.get<Obj>(SECRET, key))?.metadata.annotations).toEqual({ touched: "yes" });
    expect(objectGets(real.requests, "secrets")).toHaveLength(1); // the apiReader's
    const parsed = logs.map((l) => JSON.parse(l) as { msg: string });
    expect(parsed.filter((l) => l.msg === "reconcile failed")).toEqual([]);
    await manager.stop();
  });

  it("lists from the cache what the real server lists for the same selectors, in the same order", async () => {
    const ns = "cache-lists";
    const objects: Array<[string, string, Record<string, string>]> = [
      ["zeta", ns, { app: "web", tier: "front" }],
      ["alpha", "cache-b", { app: "web", tier: "back" }],
      ["mid", ns, { app: "db" }],
      ["beta", ns, { legacy: "true" }],
    ];
    for (const [name, namespace, labels] of objects)
      await direct.create({
        ...CM,
        metadata: { name, namespace, labels, annotations: { test: "lists" } },
        data: {},
      });
    const manager = await startManager({ cache: { namespaces: [ns, "cache-b"] } });
    await manager.informerFor(CM);
    manager.start().catch(() => {});
    await waitFor("the cache synced", () => manager.cachesSynced(), 60_000);
    // Created after the first list: the informer holds it last, the lists must still sort it first.
    await direct.create({
      ...CM,
      metadata: { name: "aardvark", namespace: ns, labels: { app: "db", tier: "back" } },
      data: {},
    });
    await waitFor(
      "all cached",
      async () => (await manager.client.list(CM, { labelSelector: "app" })).length === 4,
      60_000,
    );
    const cases: ListOptions[] = [
      { labelSelector: "app" },
      { namespace: ns, labelSelector: "app" },
      { labelSelector: { app: "web" } },
      { labelSelector: "app==web,tier!=front" },
      { labelSelector: "tier!=front" },
      { labelSelector: "app in (web,db)" },
      { labelSelector: "app notin (web),test!=nothing" },
      { labelSelector: "!tier,!legacy,app" },
      { namespace: ns, fieldSelector: "metadata.name!=zeta" },
      { fieldSelector: "metadata.namespace==cache-b,metadata.name=alpha" },
    ];
    const names = (items: Obj[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    for (const options of cases) {
      const cached = names(await manager.client.list<Obj>(CM, options));
      const server = names(await direct.list<Obj>(CM, options));
      // The server also has the other tests' objects, outside the cached namespaces.
      const inScope = server.filter((n) => n.startsWith(`${ns}/`) || n.startsWith("cache-b/"));
      expect({ options, cached }).toEqual({ options, cached: inScope });
    }
    await manager.stop();
  });
});

describe("informers on the real kube-apiserver", () => {
  async function informer(namespace: string, options: Partial<ConstructorParameters<typeof Informer>[2]>) {
    const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
    const rest = new RestClient(loaded.server, loaded);
    const inf = new Informer(rest, CONFIGMAPS, {
      namespace,
      logger: new Logger({ sink: { write: () => {} } }),
      ...options,
    });
    return { inf, close: async () => (await inf.stop(), rest.close()) };
  }
  const reads = (namespace: string) =>
    real.requests
      .filter((r) => r.path.startsWith(`/api/v1/namespaces/${namespace}/configmaps?`))
      .map((r) => ({ query: new URLSearchParams(r.path.split("?")[1]), status: r.status }));

  it("the first list (resourceVersion 0) comes whole from the watch cache, whatever the page size", async () => {
    const ns = "paged";
    await direct.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (let i = 0; i < 5; i++)
      await direct.create({ ...CM, metadata: { name: `cm-${i}`, namespace: ns }, data: {} });
    const { inf, close } = await informer(ns, { pageSize: 2 });
    inf.start();
    await inf.waitForSync();
    const lists = reads(ns).filter((r) => r.query.get("watch") !== "true");
    expect(lists.map((r) => [r.query.get("resourceVersion"), r.query.get("limit")])).toEqual([["0", "2"]]);
    expect(inf.list().length).toBe(5);
    // A consistent list (how a relist after 410 asks) is paged by the server.
    const page = await directRest.request<{ items: unknown[]; metadata: { continue?: string } }>(
      "GET",
      `/api/v1/namespaces/${ns}/configmaps`,
      { query: { limit: 2 } },
    );
    expect(page.items).toHaveLength(2);
    expect(page.metadata.continue).toBeTruthy();
    await close();
  });

  it("streams the initial state with WatchList (v1.34 serves it): one watch, no list", async () => {
    const ns = "watchlist";
    await direct.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (let i = 0; i < 3; i++)
      await direct.create({ ...CM, metadata: { name: `cm-${i}`, namespace: ns }, data: {} });
    const { inf, close } = await informer(ns, { watchList: true });
    inf.start();
    await inf.waitForSync();
    expect(
      inf
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(["cm-0", "cm-1", "cm-2"]);
    await direct.create({ ...CM, metadata: { name: "later", namespace: ns }, data: {} });
    await waitFor("a later create", () => inf.get({ namespace: ns, name: "later" }));
    const all = reads(ns);
    expect(all.map((r) => [r.query.get("watch"), r.query.get("sendInitialEvents"), r.status])).toEqual([
      ["true", "true", 200],
    ]);
    await close();
  });

  it("caches metadata only when asked (PartialObjectMetadata from the real server)", async () => {
    const ns = "metadata";
    await direct.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    await direct.create({
      ...CM,
      metadata: { name: "big", namespace: ns, labels: { a: "b" } },
      data: { large: "x".repeat(1000) },
    });
    const { inf, close } = await informer(ns, { metadataOnly: true });
    inf.start();
    await inf.waitForSync();
    await direct.create({ ...CM, metadata: { name: "later", namespace: ns }, data: { large: "y" } });
    await waitFor("a later create", () => inf.get({ namespace: ns, name: "later" }));
    for (const name of ["big", "later"]) {
      const o = inf.get({ namespace: ns, name }) as Obj;
      expect(Object.keys(o).sort()).toEqual(["apiVersion", "kind", "metadata"]);
      expect(o.kind).toBe("PartialObjectMetadata");
    }
    expect((inf.get({ namespace: ns, name: "big" }) as Obj).metadata.labels).toEqual({ a: "b" });
    // What the informer asked for, straight from the server: metadata only.
    const raw = await directRest.request<{ kind: string; items: Array<Record<string, unknown>> }>(
      "GET",
      `/api/v1/namespaces/${ns}/configmaps`,
      { accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" },
    );
    expect(raw.kind).toBe("PartialObjectMetadataList");
    expect(raw.items.every((i) => i.data === undefined)).toBe(true);
    await close();
  });
});
