// The hostile-registry corpus (issue 15), through the built CLI: a registry that trickles one byte
// every two seconds, one that never stops sending, and an HTTPS registry that redirects to plain
// HTTP. Each must end with exit 1 and a message naming the registry and what went wrong, quickly,
// with no stack trace; a bad timeout setting is a usage error (exit 2).
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { generateTlsCertificates } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers /v2/ like an open registry; everything else goes to `rest`. */
const registryLike =
  (rest: Handler): Handler =>
  (req, res) => {
    if (req.url === "/v2/") {
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return;
    }
    rest(req, res);
  };

const port = (server: Server) => (server.address() as AddressInfo).port;
const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

function expectClean(
  run: { stdout: string; stderr: string; exitCode: number },
  exitCode: number,
  message: RegExp,
) {
  const output = run.stdout + run.stderr;
  expect(run.exitCode, output).toBe(exitCode);
  expect(output).toMatch(message);
  expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(output).not.toContain("unexpected error");
}

describe("hostile registries", () => {
  const servers: Server[] = [];
  const timers: NodeJS.Timeout[] = [];
  let trickle: string;
  let endless: string;
  let downgrade: string;
  let caFile: string;
  const plainHits: string[] = [];

  beforeAll(async () => {
    const trickler = createHttpServer(
      registryLike((_req, res) => {
        res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" });
        const timer = setInterval(() => res.write("{"), 2000);
        timers.push(timer);
        res.on("close", () => clearInterval(timer));
      }),
    );
    const flooder = createHttpServer(
      registryLike((_req, res) => {
        res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
      }),
    );
    const plain = createHttpServer((req, res) => {
      plainHits.push(req.url ?? "");
      res.end("{}");
    });
    for (const s of [trickler, flooder, plain]) {
      await listen(s);
      servers.push(s);
    }
    const dir = await testdir({}, { keep: true });
    const { ca, server } = await generateTlsCertificates(dir);
    caFile = ca.certPath;
    const tls = createHttpsServer(
      { cert: await readFile(server.certPath), key: await readFile(server.keyPath) },
      registryLike((req, res) => {
        res.writeHead(307, { location: `http://127.0.0.1:${port(plain)}${req.url}` }).end();
      }),
    );
    await listen(tls as unknown as Server);
    servers.push(tls as unknown as Server);
    trickle = `127.0.0.1:${port(trickler)}`;
    endless = `127.0.0.1:${port(flooder)}`;
    downgrade = `127.0.0.1:${port(tls as unknown as Server)}`;
  }, 60_000);
  afterAll(async () => {
    for (const t of timers) clearInterval(t);
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  const validate = (image: string, env: Record<string, string> = {}, extra: string[] = ["--plain-http"]) =>
    runTsop(["bundle", "validate", image, ...extra], { env, timeoutMs: 60_000 });

  it("a trickling registry hits the per-request deadline, naming the registry and the request", async () => {
    const started = Date.now();
    const run = await validate(`${trickle}/team/app:v1`, { TSOP_REGISTRY_REQUEST_TIMEOUT: "3s" });
    expectClean(
      run,
      1,
      new RegExp(
        `${trickle} \\(http://${trickle}\\) is too slow: GET /v2/team/app/manifests/v1 took longer than 3 s`,
      ),
    );
    expect(run.stderr).toContain("TSOP_REGISTRY_REQUEST_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it("a trickling registry hits the per-operation deadline", async () => {
    const started = Date.now();
    const run = await validate(`${trickle}/team/app:v1`, {
      TSOP_REGISTRY_REQUEST_TIMEOUT: "60s",
      TSOP_REGISTRY_OPERATION_TIMEOUT: "4s",
    });
    expectClean(
      run,
      1,
      /GET \/v2\/team\/app\/manifests\/v1 was cut off: the whole operation took longer than 4 s/,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it("an endless body is cut at the manifest limit", async () => {
    const run = await validate(`${endless}/team/app:v1`);
    expectClean(
      run,
      1,
      new RegExp(`${endless} sent more than 4194304 bytes for /v2/team/app/manifests/v1; refusing it`),
    );
  }, 60_000);

  it("an HTTPS registry redirecting to plain HTTP is refused before the HTTP server is asked", async () => {
    const run = await validate(`${downgrade}/team/app:v1`, {}, ["--ca-file", caFile]);
    expectClean(
      run,
      1,
      new RegExp(
        `${downgrade}: ${downgrade} redirected GET /v2/team/app/manifests/v1 from HTTPS to HTTP .*refusing the downgrade`,
      ),
    );
    expect(plainHits).toEqual([]);
  }, 60_000);

  it("a malformed timeout setting is a usage error", async () => {
    const run = await validate(`${trickle}/team/app:v1`, { TSOP_REGISTRY_REQUEST_TIMEOUT: "soon" });
    expectClean(run, 2, /invalid TSOP_REGISTRY_REQUEST_TIMEOUT "soon"/);
  }, 60_000);
});
