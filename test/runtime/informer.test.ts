// Informer behaviour that needs precise control over the server: a scripted fake API server for one
// resource (lists, watch streams that hang, end, or report 410 Gone as an ERROR event).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Informer, type InformerObject } from "../../src/runtime/cache/informer.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry, runtimeMetrics } from "../../src/runtime/metrics/metrics.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { kubeconfigFor, waitFor } from "./support/wait.js";

type WatchBehaviour = (res: http.ServerResponse, rv: string) => void;

interface Fake {
  url: string;
  items: Map<string, InformerObject>;
  rv: number;
  lists: number;
  watches: Array<{ rv: string; timeoutSeconds: string; bookmarks: string; initial?: string }>;
  onWatch: WatchBehaviour[];
  listDelayMs: number;
  silentWatches: boolean;
  auth: string[];
  close(): Promise<void>;
}

const servers: Fake[] = [];
const stoppers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stoppers.splice(0)) await s();
  for (const f of servers.splice(0)) await f.close();
});

async function fakeServer(): Promise<Fake> {
  const open = new Set<http.ServerResponse>();
  const fake = {
    items: new Map<string, InformerObject>(),
    rv: 10,
    lists: 0,
    watches: [],
    onWatch: [],
    listDelayMs: 0,
    auth: [],
  } as unknown as Fake;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    fake.auth.push(req.headers.authorization ?? "");
    if (url.pathname !== "/api/v1/configmaps") {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get("watch") === "true") {
      fake.watches.push({
        rv: url.searchParams.get("resourceVersion") ?? "",
        timeoutSeconds: url.searchParams.get("timeoutSeconds") ?? "",
        bookmarks: url.searchParams.get("allowWatchBookmarks") ?? "",
        ...(url.searchParams.has("sendInitialEvents")
          ? { initial: url.searchParams.get("sendInitialEvents") ?? "" }
          : {}),
      });
      open.add(res);
      res.on("close", () => open.delete(res));
      if (fake.silentWatches) return; // accepted, never answered
      res.writeHead(200, { "Content-Type": "application/json" });
      res.flushHeaders();
      const behaviour = fake.onWatch.shift() ?? (() => {});
      behaviour(res, url.searchParams.get("resourceVersion") ?? "");
      return;
    }
    fake.lists += 1;
    setTimeout(() => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "ConfigMapList",
          metadata: { resourceVersion: String(fake.rv) },
          items: [...fake.items.values()],
        }),
      );
    }, fake.listDelayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const res of open) res.destroy();
    await new Promise((r) => server.close(r));
    server.closeAllConnections();
  };
  servers.push(fake);
  return fake;
}

const cm = (name: string, rv: number): InformerObject => ({
  metadata: { name, namespace: "default", resourceVersion: String(rv) },
});

async function informerFor(fake: Fake, options: Partial<ConstructorParameters<typeof Informer>[2]> = {}) {
  const loaded = await loadKubeConfig({ kubeconfigText: kubeconfigFor(fake.url, "s3cret") });
  const rest = new RestClient(loaded.server, loaded);
  const metrics = runtimeMetrics(new MetricsRegistry());
  const informer = new Informer(
    rest,
    { apiVersion: "v1", group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
    {
      logger: new Logger({ sink: { write: () => {} } }),
      metrics,
      backoffBaseMs: 10,
      backoffMaxMs: 50,
      ...options,
    },
  );
  const events: string[] = [];
  informer.addHandler({
    onAdd: (o) => events.push(`add ${o.metadata?.name}`),
    onUpdate: (a, b) => events.push(`update ${b.metadata?.name}${a === b ? " (resync)" : ""}`),
    onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  stoppers.push(async () => {
    await informer.stop();
    rest.close();
  });
  return { informer, events, metrics };
}

const send = (res: http.ServerResponse, type: string, object: unknown) =>
  res.write(`${JSON.stringify({ type, object })}\n`);

describe("Informer", () => {
  it("lists, then watches from the list's version with bookmarks and a bounded lifetime", async () => {
    const fake = await fakeServer();
    fake.items.set("a", cm("a", 5));
    fake.onWatch.push((res) => {
      send(res, "ADDED", cm("b", 11));
      send(res, "MODIFIED", cm("a", 12));
      send(res, "BOOKMARK", { metadata: { resourceVersion: "15" } });
      send(res, "DELETED", cm("b", 16));
      res.end(); // server-side timeout: re-watch from the last version, no relist
    });
    const { informer, events } = await informerFor(fake, { watchTimeoutSeconds: 60 });
    informer.start();
    await informer.waitForSync();
    await waitFor("second watch", () => fake.watches.length >= 2);
    expect(events).toEqual(["add a", "add b", "update a", "delete b"]);
    expect(fake.lists).toBe(1);
    expect(fake.watches[0]).toEqual({ rv: "10", timeoutSeconds: expect.any(String), bookmarks: "true" });
    const timeout = Number(fake.watches[0]?.timeoutSeconds);
    expect(timeout).toBeGreaterThanOrEqual(60);
    expect(timeout).toBeLessThan(120);
    expect(fake.watches[1]?.rv).toBe("16");
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(["a"]);
    expect(informer.get({ namespace: "default", name: "a" })?.metadata?.resourceVersion).toBe("12");
    expect(fake.auth.every((a) => a === "Bearer s3cret")).toBe(true);
  });

  it("relists on 410 Gone and delivers what changed meanwhile, deletes included", async () => {
    const fake = await fakeServer();
    fake.items.set("keep", cm("keep", 1));
    fake.items.set("gone", cm("gone", 2));
    fake.onWatch.push((res) => {
      // While "disconnected": one object deleted, one changed, one created.
      fake.items.delete("gone");
      fake.items.set("keep", cm("keep", 20));
      fake.items.set("new", cm("new", 21));
      fake.rv = 21;
      send(res, "ERROR", {
        kind: "Status",
        code: 410,
        reason: "Expired",
        message: "too old resource version",
      });
      res.end();
    });
    const { informer, events, metrics } = await informerFor(fake);
    informer.start();
    await waitFor("relist", () => fake.lists >= 2 && fake.watches.length >= 2);
    expect(events).toEqual(["add keep", "add gone", "update keep", "add new", "delete gone"]);
    expect(fake.watches[1]?.rv).toBe("21");
    expect(metrics.relists.get({ resource: "configmaps" })).toBe(2);
    expect(metrics.watchRestarts.get({ resource: "configmaps", reason: "gone" })).toBe(1);
  });

  it("aborts a wedged watch (silent past its lifetime) and reconnects", async () => {
    const fake = await fakeServer();
    fake.onWatch.push(() => {}); // accepts, then never sends or closes
    const { informer, metrics } = await informerFor(fake, { watchTimeoutSeconds: 0.2, wedgedGraceMs: 50 });
    informer.start();
    await waitFor("re-watch after the wedged one", () => fake.watches.length >= 2, 5000);
    expect(metrics.watchRestarts.get({ resource: "configmaps", reason: "wedged" })).toBeGreaterThanOrEqual(1);
    expect(fake.lists).toBe(1);
    expect(informer.health().healthy).toBe(true);
  });

  it("keeps retrying with backoff when the server is unreachable and reports it unhealthy", async () => {
    const fake = await fakeServer();
    fake.listDelayMs = 60_000; // the list hangs: no progress at all
    const { informer } = await informerFor(fake, { staleAfterMs: 100 });
    informer.start();
    expect(informer.hasSynced()).toBe(false);
    const health = await waitFor("unhealthy", () => {
      const h = informer.health();
      return h.healthy ? undefined : h;
    });
    expect(health.detail).toMatch(/no list\/watch progress/);
  });

  it("re-delivers cached objects on resync", async () => {
    const fake = await fakeServer();
    fake.items.set("a", cm("a", 1));
    const { informer, events } = await informerFor(fake, { resyncPeriodMs: 30 });
    informer.start();
    await waitFor("resync", () => events.includes("update a (resync)"));
  });

  it("resumes from the last bookmark's version after a dropped watch, without relisting", async () => {
    const fake = await fakeServer();
    fake.items.set("a", cm("a", 5));
    fake.onWatch.push((res) => {
      send(res, "MODIFIED", cm("a", 12));
      res.write(
        `${JSON.stringify({ type: "BOOKMARK", object: { metadata: { resourceVersion: "40" } } })}\n`,
        () => res.destroy(),
      ); // then a reset
    });
    const { informer, events } = await informerFor(fake);
    informer.start();
    await waitFor("re-watch", () => fake.watches.length >= 2);
    expect(fake.watches.map((w) => w.rv)).toEqual(["10", "40"]);
    expect(fake.lists).toBe(1);
    expect(events).toEqual(["add a", "update a"]);
  });

  it("falls back to list+watch when the server ignores sendInitialEvents (a plain bookmark comes first)", async () => {
    const fake = await fakeServer();
    fake.items.set("a", cm("a", 5));
    fake.onWatch.push((res) => {
      // An old server: a plain watch from "now", synthetic ADDED events, ordinary bookmarks.
      send(res, "ADDED", cm("a", 5));
      send(res, "BOOKMARK", { metadata: { resourceVersion: "10" } });
    });
    const { informer, events } = await informerFor(fake, { watchList: true });
    informer.start();
    await informer.waitForSync();
    await waitFor("the watch after the list", () => fake.watches.length >= 2);
    expect(fake.watches.map((w) => [w.rv, w.initial])).toEqual([
      ["", "true"],
      ["10", undefined],
    ]);
    expect(fake.lists).toBe(1);
    expect(events).toEqual(["add a"]);
  });

  it("starts a WatchList stream over when it stalls before its initial events are complete", async () => {
    const fake = await fakeServer();
    fake.onWatch.push((res) => send(res, "ADDED", cm("a", 5))); // then silence: wedged
    fake.onWatch.push((res) => {
      send(res, "ADDED", cm("a", 5));
      send(res, "BOOKMARK", {
        metadata: { resourceVersion: "10", annotations: { "k8s.io/initial-events-end": "true" } },
      });
    });
    const { informer, events } = await informerFor(fake, {
      watchList: true,
      watchTimeoutSeconds: 0.2,
      wedgedGraceMs: 50,
    });
    informer.start();
    await informer.waitForSync();
    expect(fake.watches.slice(0, 2).map((w) => [w.rv, w.initial])).toEqual([
      ["", "true"],
      ["", "true"],
    ]);
    expect(fake.lists).toBe(0);
    expect(events).toEqual(["add a"]);
  });

  it("reconnects after the connection drops mid-stream", async () => {
    const fake = await fakeServer();
    fake.onWatch.push((res) => {
      res.write(`${JSON.stringify({ type: "ADDED", object: cm("x", 11) })}\n`, () => res.destroy()); // then a reset
    });
    const { informer, events } = await informerFor(fake);
    informer.start();
    await waitFor("re-watch", () => fake.watches.length >= 2);
    expect(events).toEqual(["add x"]);
    expect(fake.watches[1]?.rv).toBe("11");
  });
});

describe("Informer liveness", () => {
  it("does not count a watch the server never answers as progress", async () => {
    const fake = await fakeServer();
    const { informer } = await informerFor(fake, {
      watchTimeoutSeconds: 0.1,
      wedgedGraceMs: 50,
      staleAfterMs: 600,
    });
    fake.silentWatches = true; // every watch request hangs without even sending headers
    informer.start();
    await informer.waitForSync();
    const health = await waitFor(
      "unhealthy",
      () => {
        const h = informer.health();
        return h.healthy ? undefined : h;
      },
      10_000,
    );
    expect(health.detail).toMatch(/no list\/watch progress/);
    expect(fake.watches.length).toBeGreaterThanOrEqual(2); // it kept re-trying meanwhile
  });

  it("stopped by a handler of the first list (a wait that is satisfied), it opens no watch and stops at once", async () => {
    const fake = await fakeServer();
    fake.items.set("a", cm("a", 5));
    const { informer } = await informerFor(fake, { watchTimeoutSeconds: 60 });
    let stopped: Promise<void> | undefined;
    informer.addHandler({ onAdd: () => (stopped ??= informer.stop()) });
    const started = Date.now();
    informer.start();
    await waitFor("the handler to run", () => stopped !== undefined);
    await stopped;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.watches).toEqual([]);
  });
});
