// How informers get their initial state from the in-memory API server: a first list at
// resourceVersion "0" (served whole, as the watch cache does), a relist after 410 Gone that is a
// consistent read in pages, and WatchList streams (sendInitialEvents) with their fallback to
// list+watch when the server refuses them.
import { afterEach, describe, expect, it } from "vitest";
import { Informer } from "../../src/runtime/cache/informer.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry, runtimeMetrics } from "../../src/runtime/metrics/metrics.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster, type TestClusterOptions } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CONFIGMAPS = {
  apiVersion: "v1",
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function cluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const c = await startTestCluster(options);
  cleanups.push(() => c.stop());
  return c;
}

async function informer(c: TestCluster, options: Partial<ConstructorParameters<typeof Informer>[2]> = {}) {
  const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
  const rest = new RestClient(loaded.server, loaded);
  const metrics = runtimeMetrics(new MetricsRegistry());
  const inf = new Informer(rest, CONFIGMAPS, {
    logger: new Logger({ sink: { write: () => {} } }),
    metrics,
    backoffBaseMs: 10,
    backoffMaxMs: 50,
    ...options,
  });
  const events: string[] = [];
  inf.addHandler({
    onAdd: (o) => events.push(`add ${o.metadata?.name}`),
    onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  cleanups.push(async () => {
    await inf.stop();
    rest.close();
  });
  return { informer: inf, events, metrics };
}

async function removeConfigMap(c: TestCluster, name: string) {
  const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
  const rest = new RestClient(loaded.server, loaded);
  await rest.request("DELETE", `/api/v1/namespaces/default/configmaps/${name}`);
  rest.close();
}

function create(c: TestCluster, name: string) {
  return c.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default" },
    data: {},
  });
}

/** The informer's requests on configmaps: lists and watches, with their query. */
function reads(c: TestCluster) {
  return c.requests
    .filter((r) => r.path.startsWith("/api/v1/configmaps"))
    .map((r) => ({ query: new URLSearchParams(r.path.split("?")[1] ?? ""), status: r.status }));
}

const names = (inf: Informer) =>
  inf
    .list()
    .map((o) => o.metadata?.name)
    .sort();
const serverNames = (c: TestCluster) =>
  c
    .list("v1", "ConfigMap", "default")
    .map((o) => o.metadata.name as string)
    .sort();

describe("informer initial state", () => {
  it("lists first at resourceVersion 0 (whole), relists after 410 Gone consistently, in pages", async () => {
    const c = await cluster();
    for (let i = 0; i < 7; i++) await create(c, `cm-${i}`);
    const { informer: inf, events } = await informer(c, { pageSize: 3 });
    inf.start();
    await inf.waitForSync();
    const first = reads(c).filter((r) => r.query.get("watch") !== "true");
    expect(
      first.map((r) => [r.query.get("resourceVersion"), r.query.get("limit"), r.query.get("continue")]),
    ).toEqual([["0", "3", null]]);
    expect(names(inf)).toEqual(serverNames(c));

    // Disconnected: the watch cannot come back while objects change and history is compacted.
    c.faults.add({ path: "/api/v1/configmaps", watch: true, status: 500, count: Infinity });
    c.closeWatches();
    const before = reads(c).length;
    await create(c, "cm-new");
    await removeConfigMap(c, "cm-0");
    c.compact();
    c.faults.clear();
    await waitFor("the relist", () => names(inf).includes("cm-new") && !names(inf).includes("cm-0"));
    const relist = reads(c)
      .slice(before)
      .filter((r) => r.query.get("watch") !== "true");
    expect(
      relist.map((r) => [
        r.query.get("resourceVersion"),
        r.query.get("limit"),
        Boolean(r.query.get("continue")),
      ]),
    ).toEqual([
      [null, "3", false],
      [null, "3", true],
      [null, "3", true],
    ]);
    expect(names(inf)).toEqual(serverNames(c));
    expect(events).toEqual(expect.arrayContaining(["add cm-new", "delete cm-0"]));
  });

  it("streams the initial state with WatchList: one watch, no list", async () => {
    const c = await cluster();
    for (let i = 0; i < 3; i++) await create(c, `cm-${i}`);
    const { informer: inf, events } = await informer(c, { watchList: true });
    inf.start();
    await inf.waitForSync();
    expect(names(inf)).toEqual(["cm-0", "cm-1", "cm-2"]);
    await create(c, "later");
    await waitFor("a later create", () => events.includes("add later"));
    const all = reads(c);
    expect(all).toHaveLength(1);
    expect(Object.fromEntries(all[0]!.query)).toEqual(
      expect.objectContaining({
        watch: "true",
        sendInitialEvents: "true",
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: "true",
      }),
    );
    expect(all[0]!.query.get("resourceVersion")).toBeNull();
  });

  it("falls back to list+watch when the server refuses WatchList (422), and does not ask again", async () => {
    const c = await cluster({ watchList: false });
    await create(c, "a");
    const { informer: inf, events } = await informer(c, { watchList: true });
    inf.start();
    await inf.waitForSync();
    expect(names(inf)).toEqual(["a"]);
    await create(c, "b");
    await waitFor("a later create", () => events.includes("add b"));
    const all = reads(c);
    expect(
      all.map((r) => [r.query.get("watch") ?? "list", r.query.get("sendInitialEvents"), r.status]),
    ).toEqual([
      ["true", "true", 422],
      ["list", null, 200],
      ["true", null, 200],
    ]);
  });
});
