// The fault controls a Sieve/Acto-style suite needs, on the in-memory server (the fault proxy's
// own test, test/testing/fault-proxy.test.ts, checks the same controls in front of a server):
// watch events held back and released in order, delayed, streams cut by match, 410 Gone on the
// next watch, hanging requests, and one user partitioned from the API server.
import { request } from "node:https";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http, openWatch } from "./helpers.js";

const CMS = "/api/v1/namespaces/default/configmaps";
let cluster: TestCluster;
const operator = () => ({ url: cluster.url, token: "operator-token", caCertificate: cluster.caCertificate });

beforeAll(async () => {
  cluster = await startTestCluster({ users: { "operator-token": "operator" } });
});
afterEach(() => {
  cluster.faults.clear();
  cluster.closeWatches();
});
afterAll(async () => {
  await cluster.stop();
});

const names = (events: Array<{ type: string; object: { metadata: { name: string } } }>) =>
  events.map((e) => `${e.type} ${e.object.metadata.name}`);

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("watch events", () => {
  it("holds back events of matching watches, then releases them in order", async () => {
    const rv = cluster.resourceVersion();
    const held = await openWatch(cluster, `${CMS}?watch=true&resourceVersion=${rv}`);
    const other = await openWatch(
      cluster,
      `/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${rv}`,
    );
    const release = cluster.faults.holdWatchEvents({ path: CMS });
    for (const n of ["h1", "h2", "h3"]) await http(cluster, "POST", CMS, configMap(n));
    await http(cluster, "POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "s1" } });
    // The unheld stream sees its event; the held one has seen nothing of the three.
    await other.next(1);
    expect(held.events).toEqual([]);
    expect(cluster.faults.heldWatchEvents()).toBe(3);
    // A watch opened during the hold is held too.
    const late = await openWatch(cluster, `${CMS}?watch=true&resourceVersion=${rv}`);
    await until(() => cluster.faults.heldWatchEvents() === 6, "the late watch's replay to be held");
    expect(late.events).toEqual([]);
    release();
    expect(names(await held.next(3))).toEqual(["ADDED h1", "ADDED h2", "ADDED h3"]);
    expect(names(await late.next(3))).toEqual(["ADDED h1", "ADDED h2", "ADDED h3"]);
    expect(cluster.faults.heldWatchEvents()).toBe(0);
    // Released means live again.
    await http(cluster, "DELETE", `${CMS}/h1`);
    expect(names(await held.next(4)).at(-1)).toBe("DELETED h1");
    for (const w of [held, other, late]) w.stop();
  });

  it("clear() releases held events too, and a held stream's own end waits behind them", async () => {
    const w = await openWatch(
      cluster,
      `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion()}&timeoutSeconds=1`,
    );
    cluster.faults.holdWatchEvents();
    await http(cluster, "POST", CMS, configMap("c1"));
    // The server's 1 s timeout passes during the hold: the stream stays open until released.
    await new Promise((r) => setTimeout(r, 1200));
    expect(w.ended).toBe(false);
    cluster.faults.clear();
    expect(names(await w.next(1))).toEqual(["ADDED c1"]);
    await w.closed();
  });

  it("delays every event of matching watches, keeping their order", async () => {
    const w = await openWatch(cluster, `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion()}`);
    const stop = cluster.faults.delayWatchEvents(300, { watch: true, path: CMS });
    const sent = Date.now();
    await http(cluster, "POST", CMS, configMap("d1"));
    await http(cluster, "POST", CMS, configMap("d2"));
    stop(); // events already on their way keep their delay
    await http(cluster, "POST", CMS, configMap("d3"));
    expect(names(await w.next(3))).toEqual(["ADDED d1", "ADDED d2", "ADDED d3"]);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(290);
    w.stop();
  });

  it("cuts only the matching streams and answers the next watch 410 Gone", async () => {
    const cms = await openWatch(cluster, `${CMS}?watch=true`);
    const secrets = await openWatch(cluster, "/api/v1/namespaces/default/secrets?watch=true");
    expect(cluster.faults.openWatches({ path: CMS })).toBe(1);
    expect(cluster.faults.expireWatches({ path: CMS })).toBe(1);
    await cms.closed();
    expect(secrets.ended).toBe(false);
    const again = await openWatch(cluster, `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion()}`);
    const [gone] = await again.next(1);
    expect(gone).toMatchObject({ type: "ERROR", object: { code: 410, reason: "Expired" } });
    await again.closed();
    // Only the next one.
    const third = await openWatch(cluster, `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion()}`);
    await http(cluster, "POST", CMS, configMap("after-gone"));
    expect(names(await third.next(1))).toEqual(["ADDED after-gone"]);
    for (const w of [secrets, third]) w.stop();
  });
});

describe("hangs and partitions", () => {
  it("hangs matching requests until released, then answers them", async () => {
    const release = cluster.faults.hang({ method: "GET", path: `${CMS}/hung` });
    await http(cluster, "POST", CMS, configMap("hung", { a: "1" }));
    let answered = false;
    const pending = http(cluster, "GET", `${CMS}/hung`).then((r) => {
      answered = true;
      return r;
    });
    await until(() => cluster.faults.hanging() === 1, "the request to hang");
    // Other requests pass meanwhile.
    expect((await http(cluster, "GET", CMS)).status).toBe(200);
    expect(answered).toBe(false);
    release();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: "1" });
    expect(cluster.faults.hanging()).toBe(0);
  });

  it("a client that gives up on a hung request is forgotten", async () => {
    cluster.faults.hang({ path: `${CMS}/gone` });
    const left = new AbortController();
    const req = request(`${cluster.url}${CMS}/gone`, {
      headers: { authorization: `Bearer ${cluster.token}` },
      ca: cluster.caCertificate,
      signal: left.signal,
    });
    req.on("error", () => {});
    req.end();
    await until(() => cluster.faults.hanging() === 1, "the request to hang");
    left.abort();
    await until(() => cluster.faults.hanging() === 0, "the hang to forget the client");
  });

  it("partitions one user: its requests fail and its watches end; others and healing go on", async () => {
    const mine = await openWatch(operator(), `${CMS}?watch=true`);
    const admins = await openWatch(cluster, `${CMS}?watch=true`);
    const heal = cluster.faults.partition("operator");
    await mine.closed();
    expect(admins.ended).toBe(false);
    const failed = await http(operator(), "GET", CMS);
    expect(failed.status).toBe(503);
    expect(failed.body.message).toContain("injected partition: operator");
    expect((await http(cluster, "GET", CMS)).status).toBe(200);
    expect(cluster.requests.at(-2)).toMatchObject({ status: 503, user: "operator" });
    heal();
    expect((await http(operator(), "GET", CMS)).status).toBe(200);
    admins.stop();
  });

  it("partitions one user by hanging its requests until healed", async () => {
    const heal = cluster.faults.partition("operator", { mode: "hang" });
    const pending = http(operator(), "GET", CMS);
    await until(() => cluster.faults.hanging() === 1, "the partitioned request to hang");
    expect((await http(cluster, "GET", CMS)).status).toBe(200);
    heal();
    expect((await pending).status).toBe(200);
  });
});
