// The fault proxy's controls, in front of a small HTTPS server standing in for kube-apiserver (the
// real one is on the real tier: test/testing/real/faults.real.test.ts): watch lines re-framed
// across chunks, held back and released in order, delayed, the server's end kept behind them,
// client-certificate users partitioned, hung requests released.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clientCertificate, type Pki, writePki } from "../../src/testing/real/pki.js";
import { type FaultProxy, startFaultProxy } from "../../src/testing/real/proxy.js";

let dir: string;
let pki: Pki;
let upstream: Server;
let proxy: FaultProxy;
/** Open watch answers of the stand-in server, newest last. */
const streams: ServerResponse[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tsop-fault-proxy-"));
  pki = await writePki(dir);
  upstream = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
    if (req.url?.includes("watch=true")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.flushHeaders();
      streams.push(res);
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ path: req.url, user: req.headers["x-remote-user"] ?? null }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  proxy = await startFaultProxy(`https://127.0.0.1:${(upstream.address() as AddressInfo).port}`, pki);
});
afterEach(() => {
  proxy.faults.clear();
  proxy.closeWatches();
  for (const s of streams.splice(0)) s.end();
});
afterAll(async () => {
  await proxy.stop();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A client with a certificate for `user` (the proxy passes it on as X-Remote-User). */
function call(user: string, path: string, signal?: AbortSignal): Promise<IncomingMessage> {
  const cert = clientCertificate(pki, user);
  return new Promise((resolve, reject) => {
    const req = request(
      `${proxy.url}${path}`,
      { ca: pki.ca.cert, cert: cert.cert, key: cert.key, signal },
      resolve,
    );
    req.on("error", reject);
    req.end();
  });
}

async function body(res: IncomingMessage): Promise<string> {
  let text = "";
  res.setEncoding("utf8");
  for await (const chunk of res) text += chunk as string;
  return text;
}

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A watch through the proxy: the names of the events seen so far, and whether it ended. */
async function watch(user: string, path = "/api/v1/configmaps?watch=true") {
  const before = streams.length;
  const res = await call(user, path);
  await until(() => streams.length > before, "the stand-in server to see the watch");
  const server = streams.at(-1)!;
  const seen: string[] = [];
  let ended = false;
  let buffer = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const l of lines) seen.push((JSON.parse(l) as { object: { name: string } }).object.name);
  });
  res.on("close", () => (ended = true));
  const emit = (name: string) => server.write(`${JSON.stringify({ type: "ADDED", object: { name } })}\n`);
  return { seen, ended: () => ended, emit, server, res };
}

describe("watch streams through the proxy", () => {
  it("re-frames event lines split across chunks", async () => {
    const w = await watch("operator");
    const line = JSON.stringify({ type: "ADDED", object: { name: "split" } });
    w.server.write(line.slice(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    w.server.write(`${line.slice(10)}\n`);
    w.emit("next");
    await until(() => w.seen.length === 2, "both events");
    expect(w.seen).toEqual(["split", "next"]);
  });

  it("holds back events until released, in order, and ends the stream only after them", async () => {
    const w = await watch("operator");
    const release = proxy.faults.holdWatchEvents({ user: "operator" });
    for (const n of ["a", "b", "c"]) w.emit(n);
    w.server.end();
    await until(() => proxy.faults.heldWatchEvents() === 3, "three held events");
    expect(w.seen).toEqual([]);
    expect(w.ended()).toBe(false);
    release();
    await until(() => w.ended(), "the stream to end");
    expect(w.seen).toEqual(["a", "b", "c"]);
  });

  it("delays events of matching watches and not of others", async () => {
    const slow = await watch("operator");
    const fast = await watch("admin");
    proxy.faults.delayWatchEvents(1000, { user: "operator" });
    const sent = Date.now();
    slow.emit("s");
    fast.emit("f");
    await until(() => fast.seen.length === 1, "the undelayed event");
    expect(slow.seen).toEqual([]);
    await until(() => slow.seen.length === 1, "the delayed event");
    expect(Date.now() - sent).toBeGreaterThanOrEqual(990);
  });
});

describe("requests through the proxy", () => {
  it("partitions the user of a client certificate, and only that user", async () => {
    const w = await watch("operator");
    const heal = proxy.faults.partition("operator");
    await until(() => w.ended(), "the partitioned user's watch to end");
    const cut = await call("operator", "/api/v1/namespaces/default/configmaps");
    expect(cut.statusCode).toBe(503);
    expect(JSON.parse(await body(cut))).toMatchObject({
      code: 503,
      message: expect.stringContaining("partition"),
    });
    const other = await call("admin", "/api/v1/namespaces/default/configmaps");
    expect(JSON.parse(await body(other))).toMatchObject({ user: "admin" });
    heal();
    const healed = await call("operator", "/api/v1/namespaces/default/configmaps");
    expect(JSON.parse(await body(healed))).toMatchObject({ user: "operator" });
    expect(proxy.requests.slice(-3).map((r) => `${r.user} ${r.status}`)).toEqual([
      "operator 503",
      "admin 200",
      "operator 200",
    ]);
  });

  it("hangs matching requests until released; a client that leaves is never sent on", async () => {
    const release = proxy.faults.hang({ path: "/api/v1/namespaces/default/pods" });
    const hung = call("operator", "/api/v1/namespaces/default/pods");
    const left = new AbortController();
    const abandoned = call("operator", "/api/v1/namespaces/default/pods", left.signal).catch(() => "aborted");
    await until(() => proxy.faults.hanging() === 2, "two hung requests");
    left.abort();
    expect(await abandoned).toBe("aborted");
    await until(() => proxy.faults.hanging() === 1, "the abandoned request to be forgotten");
    const sentOn = proxy.requests.length;
    release();
    expect(JSON.parse(await body(await hung))).toMatchObject({ user: "operator" });
    expect(proxy.requests.length).toBe(sentOn + 1);
  });
});
