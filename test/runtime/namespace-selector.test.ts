// cache.namespaceSelector on tsop/testing's in-memory server: the cache follows the namespaces whose
// labels match. A namespace labelled after start gets its objects reconciled; one whose label is
// removed has its objects dropped from the cache and nothing of it reconciled again. The headline
// case also runs on the real kube-apiserver (crd-lifecycle.real.test.ts).
import { afterEach, expect, it } from "vitest";
import { harness, type Harness } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";
import type { Manager } from "../../src/runtime/manager/manager.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const CONFIG_MAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const WATCHED = { "tsop.io/watched": "true" };

async function namespace(name: string, labels: Record<string, string> = {}) {
  await h!.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
}

async function labelNamespace(name: string, labels: Record<string, string | null>) {
  await h!.client.patch(
    { kind: { apiVersion: "v1", kind: "Namespace" }, key: { name } },
    { metadata: { labels } },
    { type: "merge" },
  );
}

async function configMap(namespace: string, name: string, data: Record<string, string> = {}) {
  await h!.client.create({ ...CONFIG_MAP, metadata: { name, namespace }, data });
}

async function cachedNamespaces(manager: Manager): Promise<string[]> {
  const informer = await manager.informerFor(CONFIG_MAP);
  return [...new Set(informer.list().map((o) => o.metadata?.namespace ?? ""))].sort();
}

it("watches a namespace once it gains the labels, and drops it without reconciles once it loses them", async () => {
  h = await harness();
  await namespace("ns-watched", WATCHED);
  await namespace("ns-later");
  await configMap("ns-watched", "a");
  await configMap("ns-later", "b");
  const manager = await h.startManager({ cache: { namespaceSelector: { matchLabels: WATCHED } } });
  const reconciled: string[] = [];
  await manager
    .controller(CONFIG_MAP)
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  void manager.start();
  await waitFor("ns-watched/a to be reconciled", () => reconciled.includes("ns-watched/a"));
  expect(reconciled).not.toContain("ns-later/b");
  expect(await cachedNamespaces(manager)).toEqual(["ns-watched"]);

  // Labelled after start: its objects are cached and reconciled.
  await labelNamespace("ns-later", WATCHED);
  await waitFor("ns-later/b to be reconciled", () => reconciled.includes("ns-later/b"));
  expect(await cachedNamespaces(manager)).toEqual(["ns-later", "ns-watched"]);

  // Label removed: its objects leave the cache; a later change there reconciles nothing, while one
  // in the watched namespace still does (the order of the two proves the first was not missed).
  const before = reconciled.filter((k) => k === "ns-later/b").length;
  await labelNamespace("ns-later", { "tsop.io/watched": null });
  await waitFor(
    "ns-later to leave the cache",
    async () => (await cachedNamespaces(manager)).join() === "ns-watched",
  );
  await configMap("ns-later", "c");
  await h.client.patch(
    { kind: CONFIG_MAP, key: { namespace: "ns-later", name: "b" } },
    { data: { x: "1" } },
    { type: "merge" },
  );
  await configMap("ns-watched", "after");
  await waitFor("ns-watched/after to be reconciled", () => reconciled.includes("ns-watched/after"));
  expect(reconciled.filter((k) => k === "ns-later/b").length).toBe(before);
  expect(reconciled).not.toContain("ns-later/c");
  // Reads of the dropped namespace go to the server (the cache no longer holds it).
  expect(await manager.client.get(CONFIG_MAP, { namespace: "ns-later", name: "c" })).toBeDefined();
});

it("stops watching a selected namespace that is deleted", async () => {
  h = await harness();
  await namespace("ns-gone", WATCHED);
  await configMap("ns-gone", "a");
  const manager = await h.startManager({ cache: { namespaceSelector: "tsop.io/watched=true" } });
  await manager.controller(CONFIG_MAP).complete(async () => {});
  void manager.start();
  await waitFor("ns-gone to be cached", async () => (await cachedNamespaces(manager)).join() === "ns-gone");
  await h.client.delete({ kind: { apiVersion: "v1", kind: "Namespace" }, key: { name: "ns-gone" } });
  await waitFor(
    "ns-gone to leave the cache",
    async () => (await manager.informerFor(CONFIG_MAP)).namespaces?.length === 0,
  );
});

it("refuses namespaceSelector together with a fixed namespace list, naming both", async () => {
  h = await harness();
  await expect(
    h.startManager({ namespace: "a,b", cache: { namespaceSelector: { matchLabels: WATCHED } } }),
  ).rejects.toThrow(
    /namespace \("a,b", from --namespace or WATCH_NAMESPACE\) and cache\.namespaceSelector are both set/,
  );
  await expect(
    h.startManager({ cache: { namespaces: ["a"], namespaceSelector: { matchLabels: WATCHED } } }),
  ).rejects.toThrow(/cache\.namespaces and cache\.namespaceSelector are both set/);
  await expect(h.startManager({ cache: { namespaceSelector: { matchLabels: {} } } })).rejects.toThrow(
    /cache\.namespaceSelector is invalid: it selects every namespace/,
  );
});
