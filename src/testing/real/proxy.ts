// The fault proxy: an HTTPS front for the real kube-apiserver with the in-memory server's fault
// controls (fail N matching requests, latency, hangs, partitions; watch events held back, delayed,
// streams cut, 410 Gone) and request log. Clients keep
// their identity: a bearer token is passed through; a client certificate (verified against the
// cluster CA) becomes X-Remote-User/X-Remote-Group, sent with the front-proxy client certificate
// the apiserver trusts for exactly that (requestheader authentication).
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent, createServer, request, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { faultAnswer, Faults, type MatchedRequest } from "../faults.js";
import type { RequestRecord } from "../requests.js";
import type { Pki } from "./pki.js";
import { watchFrameSplitter } from "./watch-frames.js";

// Hop-by-hop headers (RFC 9110 §7.6.1) and identity headers a client must not set itself.
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
]);
const IDENTITY = /^x-remote-/i;

export interface FaultProxy {
  url: string;
  faults: Faults;
  requests: RequestRecord[];
  closeWatches(): void;
  openWatches(): number;
  stop(): Promise<void>;
}

function isWatchRequest(url: URL): boolean {
  const w = url.searchParams.get("watch");
  return w === "true" || w === "1" || url.pathname.includes("/watch/");
}

/** The verified client certificate's subject (CN = user, O = groups), if the client sent one. */
function certificateUser(req: IncomingMessage): { name: string; groups: string[] } | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject as unknown as
    Record<string, string | string[]> | undefined;
  if (!subject?.CN) return undefined;
  const o = subject.O;
  return { name: String(subject.CN), groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

interface Upstream {
  url: URL;
  /** Trusts the cluster CA; presents no client certificate (bearer tokens pass through). */
  plain: Agent;
  /** Presents the front-proxy client certificate (for X-Remote-* identities). */
  frontProxy: Agent;
  faults: Faults;
}

/** Sends the request on to the apiserver with the client's identity and streams the answer back. */
function forward(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  certUser: { name: string; groups: string[] } | undefined,
  matched: MatchedRequest,
  onStatus: (status: number) => void,
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !DROPPED.has(name) && !IDENTITY.test(name)) headers[name] = value;
  }
  headers.host = upstream.url.host;
  if (certUser) {
    headers["x-remote-user"] = certUser.name;
    if (certUser.groups.length > 0) headers["x-remote-group"] = certUser.groups;
  }
  const out = request(
    {
      host: upstream.url.hostname,
      port: upstream.url.port,
      method: req.method,
      path: req.url,
      headers,
      agent: certUser ? upstream.frontProxy : upstream.plain,
    },
    (answer) => {
      const responseHeaders = { ...answer.headers };
      for (const name of Object.keys(responseHeaders)) if (DROPPED.has(name)) delete responseHeaders[name];
      res.writeHead(answer.statusCode ?? 502, responseHeaders);
      if (matched.watch && answer.statusCode === 200) streamWatch(upstream.faults, matched, answer, res);
      else {
        // An apiserver that stops mid-answer resets the client's stream; the proxy lives on.
        answer.on("error", () => res.destroy());
        answer.pipe(res);
      }
      onStatus(answer.statusCode ?? 502);
    },
  );
  out.on("error", (error) => {
    if (!res.headersSent) {
      res.writeHead(502, { "Content-Type": "text/plain" });
      res.end(`fault proxy: the apiserver did not answer: ${error.message}\n`);
    } else res.destroy();
  });
  res.on("close", () => {
    if (!res.writableFinished) out.destroy();
  });
  req.pipe(out);
}

/** A watch answer, event by event (JSON lines or protobuf frames), through the fault gate (hold, delay, cut). */
function streamWatch(faults: Faults, matched: MatchedRequest, answer: IncomingMessage, res: ServerResponse) {
  res.flushHeaders();
  const gate = faults.watchStream(matched, { write: (line) => res.write(line), end: () => res.end() }, () => {
    answer.destroy();
    res.end();
  });
  const frames = watchFrameSplitter(answer.headers["content-type"]);
  answer.on("data", (chunk: Buffer) => {
    for (const event of frames.push(chunk)) gate.push(event);
  });
  // The apiserver ended the stream (or went away): the client sees the end after what it was due.
  answer.on("error", () => {});
  answer.on("close", () => {
    const rest = frames.rest();
    if (rest) gate.push(rest);
    gate.end();
  });
  res.on("close", () => {
    gate.dispose();
    answer.destroy();
  });
}

export async function startFaultProxy(apiserverUrl: string, pki: Pki): Promise<FaultProxy> {
  const faults = new Faults();
  const requests: RequestRecord[] = [];
  const upstream: Upstream = {
    url: new URL(apiserverUrl),
    plain: new Agent({ ca: pki.ca.cert, keepAlive: true }),
    frontProxy: new Agent({
      ca: pki.ca.cert,
      cert: pki.frontProxyClient.cert,
      key: pki.frontProxyClient.key,
      keepAlive: true,
    }),
    faults,
  };

  const record = (entry: RequestRecord) => {
    requests.push(entry);
    if (requests.length > 5000) requests.shift();
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://proxy");
    const method = (req.method ?? "GET").toUpperCase();
    const certUser = certificateUser(req);
    const user = certUser?.name ?? (req.headers.authorization ? "(bearer token)" : "system:anonymous");
    const matched: MatchedRequest = {
      method,
      path: url.pathname.replace(/\/+$/, "") || "/",
      watch: isWatchRequest(url),
      user,
    };
    // A client that gives up during latency or a hang is not answered (nor its request sent on).
    const left = new AbortController();
    res.on("close", () => left.abort());
    await faults.admit(matched, left.signal);
    if (left.signal.aborted) {
      req.resume();
      return;
    }
    const fault = faults.take(matched);
    if (fault) {
      const answer = faultAnswer(fault, matched.watch);
      req.resume();
      res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      res.end(answer.body);
      record({ method, path: url.pathname + url.search, status: answer.status, user });
      return;
    }
    forward(upstream, req, res, certUser, matched, (status) =>
      record({ method, path: url.pathname + url.search, status, user }),
    );
  }

  const server: Server = createServer(
    {
      cert: pki.serving.cert,
      key: pki.serving.key,
      ca: pki.ca.cert,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      serve(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const sockets = new Set<Socket>();
  server.on("secureConnection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `https://127.0.0.1:${port}`,
    faults,
    requests,
    closeWatches: () => {
      faults.closeWatches();
    },
    openWatches: () => faults.openWatches(),
    async stop() {
      // Hung requests end with their connections below (not sent on): no clear() here.
      faults.closeWatches();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      upstream.plain.destroy();
      upstream.frontProxy.destroy();
    },
  };
}
