// npm's way out of the real tier's private network namespace (scripts/netns-npm-proxy.mjs): a
// CONNECT proxy on a unix socket and a loopback forwarder to it. Oracles: a real TCP server at the
// tunnel's far end, and the forwarder's own process.
import { type AddressInfo, createConnection, createServer, type Server } from "node:net";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { serveConnectProxy } from "../../scripts/netns-npm-proxy.mjs";
import { REPO_ROOT } from "../support/cli.js";

const SCRIPT = join(REPO_ROOT, "scripts/netns-npm-proxy.mjs");
let echo: Server;
let proxy: Server;
let socket: string;
let dir: string;

beforeAll(async () => {
  echo = createServer((c) => c.pipe(c));
  await new Promise<void>((ready) => echo.listen(0, "127.0.0.1", ready));
  dir = await mkdtemp(join(tmpdir(), "tsop-npm-proxy-"));
  socket = join(dir, "proxy.sock");
  proxy = await serveConnectProxy(socket, { ports: [String((echo.address() as AddressInfo).port)] });
});

afterAll(async () => {
  proxy?.close();
  echo?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sends `request` to 127.0.0.1:port and returns everything read until `expected` bytes arrived or the peer closed. */
function exchange(port: number, request: string, expected: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = "";
    const c = createConnection(port, "127.0.0.1", () => c.write(request));
    c.setEncoding("utf8");
    c.on("data", (chunk: string) => {
      got += chunk;
      if (got.length >= expected) {
        c.destroy();
        resolve(got);
      }
    });
    c.on("end", () => resolve(got));
    c.on("error", reject);
  });
}

describe("npm's tunnel out of the namespace", () => {
  it("tunnels a CONNECT through the forwarder and the socket, and refuses other ports", async () => {
    const forwarder = execa(process.execPath, [SCRIPT, "forward", socket, "0"]);
    try {
      const port = await new Promise<number>((ready) =>
        forwarder.stdout!.once("data", (line: Buffer) => ready(Number(line.toString().trim()))),
      );
      const target = (echo.address() as AddressInfo).port;
      const ok = "HTTP/1.1 200 Connection Established\r\n\r\n";
      const tunnelled = await exchange(
        port,
        `CONNECT 127.0.0.1:${target} HTTP/1.1\r\nHost: x\r\n\r\nhello`,
        ok.length + 5,
      );
      expect(tunnelled).toBe(`${ok}hello`);
      const refused = await exchange(port, "CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n", 1000);
      expect(refused).toMatch(/^HTTP\/1\.1 405 /);
      const plain = await exchange(port, "GET http://registry.npmjs.org/ HTTP/1.1\r\n\r\n", 1000);
      expect(plain).toMatch(/^HTTP\/1\.1 405 /);
    } finally {
      forwarder.kill();
      await forwarder.catch(() => undefined);
    }
  });

  it("the forwarder ends with the shell that started it (the lane's vitest), leaving no process behind", async () => {
    const shell = await execa("sh", [
      "-c",
      'node "$0" forward "$1" 0 >"$2" 2>/dev/null </dev/null & echo $!; until [ -s "$2" ]; do sleep 0.1; done',
      SCRIPT,
      socket,
      join(dir, "port"),
    ]);
    const pid = Number(shell.stdout.trim());
    // Running, not a zombie waiting for init to reap it.
    const alive = () => {
      try {
        return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
  });
});
