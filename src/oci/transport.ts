// HTTP for the registry client, on node:http/https (Node 20's fetch cannot use a proxy and undici's
// ProxyAgent would be a dependency for ~60 lines): keep-alive agents bounded to `maxSockets`, TLS
// verification with extra CA certificates, HTTPS through an HTTP proxy with a CONNECT tunnel (plain
// HTTP with absolute-URI requests), idle timeouts plus deadlines per request and per operation,
// redirects that drop Authorization when they leave the origin and never go from HTTPS to HTTP, and
// retries on 429, 5xx and connection errors under the shared policy (common/retry.ts).
import {
  Agent as HttpAgent,
  type IncomingHttpHeaders,
  type RequestOptions,
  request as httpRequest,
} from "node:http";
import { Agent as HttpsAgent, type AgentOptions, request as httpsRequest } from "node:https";
import type { Duplex } from "node:stream";
import { connect as tlsConnect, rootCertificates } from "node:tls";
import { describeProxy, proxyAuthorization, proxyFor } from "../common/proxy.js";
import { pause, type RetryPolicy, retriesNetworkError, retriesStatus, retryDelay } from "../common/retry.js";

export type HttpMethod = "GET" | "HEAD" | "PUT" | "POST" | "PATCH" | "DELETE";

export interface HttpRequest {
  method: HttpMethod;
  url: URL;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Larger responses fail with ResponseTooLargeError (default 16 MiB). */
  maxBytes?: number;
  /** Retry on 429/5xx/connection errors (default true). */
  retry?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: URL;
}

export interface TransportOptions {
  env: NodeJS.ProcessEnv;
  /** Verify server certificates (default true). */
  rejectUnauthorized: boolean;
  /** Extra trusted CA certificates (PEM), added to Node's defaults; per host when a function. */
  extraCa: (host: string) => string[];
  timeoutMs: number;
  /** Longest one HTTP exchange may take, headers and body (a trickling server cannot hold on). */
  requestDeadlineMs?: number;
  /** Longest all exchanges of this transport may take together (one tsop operation). */
  operationDeadlineMs?: number;
  /** Attempts after the first one. */
  retries: number;
  backoffMs: number;
  maxSockets: number;
  onRetry?: (info: { url: URL; attempt: number; delayMs: number; reason: string }) => void;
}

/** A failure below HTTP: refused, reset, DNS, TLS handshake, timeout. */
export class ConnectionError extends Error {
  /** The proxy the request went through (without credentials), if any. */
  via: string | undefined;
  constructor(
    message: string,
    readonly code: string,
    readonly kind: "tls" | "network" | "timeout",
  ) {
    super(message);
  }
}

export class ResponseTooLargeError extends Error {
  constructor(
    readonly url: URL,
    readonly limit: number,
  ) {
    super(`response larger than ${limit} bytes`);
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|EPROTO$)/;
const MAX_REDIRECTS = 5;
export const DEFAULT_REQUEST_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_OPERATION_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

function classify(error: NodeJS.ErrnoException): ConnectionError {
  if (error instanceof ConnectionError) return error;
  const code = error.code ?? "UNKNOWN";
  if (TLS_CODE.test(code) || /wrong version number|certificate|SSL routines/i.test(error.message)) {
    return new ConnectionError(error.message, code, "tls");
  }
  if (code === "TSOP_TIMEOUT") return new ConnectionError(error.message, code, "timeout");
  return new ConnectionError(error.message, code, "network");
}

function viaProxy(error: ConnectionError, proxy: URL | undefined): ConnectionError {
  if (proxy) error.via = describeProxy(proxy);
  return error;
}

/** An HTTPS agent whose sockets go through an HTTP proxy's CONNECT tunnel (keep-alive still works). */
function tunnelAgent(proxy: URL, options: AgentOptions): HttpsAgent {
  const agent = new HttpsAgent(options);
  const createConnection = (
    connectOptions: Record<string, unknown>,
    callback: (error: Error | null, socket?: Duplex) => void,
  ): undefined => {
    const host = String(connectOptions.host);
    const port = Number(connectOptions.port ?? 443);
    const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const auth = proxyAuthorization(proxy);
    const connect = httpRequest({
      host: proxy.hostname,
      port: Number(proxy.port || 80),
      method: "CONNECT",
      path: target,
      headers: { host: target, ...(auth ? { "proxy-authorization": auth } : {}) },
      agent: false,
    });
    connect.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        callback(
          new ConnectionError(
            `proxy refused CONNECT to ${target}: HTTP ${res.statusCode}`,
            "EPROXY",
            "network",
          ),
        );
        return;
      }
      const tlsSocket = tlsConnect({
        socket,
        ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
        ...(options.ca ? { ca: options.ca } : {}),
        rejectUnauthorized: options.rejectUnauthorized !== false,
        ALPNProtocols: ["http/1.1"],
      });
      callback(null, tlsSocket);
    });
    connect.once("error", (error) => callback(error));
    connect.end();
    return undefined;
  };
  // Node's Agent accepts an asynchronous createConnection(options, callback).
  (agent as unknown as { createConnection: typeof createConnection }).createConnection = createConnection;
  return agent;
}

export class Transport {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly operationEnds: number;
  private readonly requestDeadlineMs: number;
  private readonly operationDeadlineMs: number;
  private readonly retry: RetryPolicy;

  constructor(private readonly options: TransportOptions) {
    this.retry = {
      attempts: options.retries + 1,
      baseDelayMs: options.backoffMs,
      maxDelayMs: 30_000,
      retryAfterCapMs: 30_000,
      unhinted: true,
      refused: true,
    };
    this.requestDeadlineMs = options.requestDeadlineMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.operationDeadlineMs = options.operationDeadlineMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.operationEnds = Date.now() + this.operationDeadlineMs;
  }

  /** Milliseconds this exchange may take, and which limit that is. */
  private deadline(): { ms: number; which: "request" | "operation" } {
    const left = this.operationEnds - Date.now();
    return left < this.requestDeadlineMs
      ? { ms: Math.max(left, 0), which: "operation" }
      : { ms: this.requestDeadlineMs, which: "request" };
  }

  private deadlineError(req: HttpRequest, url: URL, which: "request" | "operation"): ConnectionError {
    const limit = which === "request" ? this.requestDeadlineMs : this.operationDeadlineMs;
    const what = `${req.method} ${url.pathname}`;
    return new ConnectionError(
      which === "request"
        ? `${what} took longer than ${limit / 1000} s (the limit for one request)`
        : `${what} was cut off: the whole operation took longer than ${limit / 1000} s`,
      "TSOP_DEADLINE",
      "timeout",
    );
  }

  private agentFor(url: URL, proxy: URL | undefined): HttpAgent {
    const https = url.protocol === "https:";
    const extra = https ? this.options.extraCa(url.host) : [];
    const key = `${url.protocol}|${proxy?.href ?? ""}|${extra.length ? url.host : ""}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const base = { keepAlive: true, maxSockets: this.options.maxSockets };
      if (!https) agent = new HttpAgent(base);
      else {
        const tls: AgentOptions = {
          ...base,
          rejectUnauthorized: this.options.rejectUnauthorized,
          ...(extra.length ? { ca: [...rootCertificates, ...extra] } : {}),
        };
        agent = proxy ? tunnelAgent(proxy, tls) : new HttpsAgent(tls);
      }
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** One HTTP exchange, no retries, no redirects. */
  private once(req: HttpRequest, url: URL): Promise<HttpResponse> {
    const proxy = proxyFor(url, this.options.env);
    const https = url.protocol === "https:";
    const agent = this.agentFor(url, proxy);
    const headers: Record<string, string> = { ...req.headers };
    if (req.body) headers["content-length"] = String(req.body.length);
    let options: RequestOptions;
    if (proxy && !https) {
      // Plain HTTP through a proxy: absolute-URI request line to the proxy.
      const auth = proxyAuthorization(proxy);
      options = {
        host: proxy.hostname,
        port: Number(proxy.port || 80),
        path: url.href,
        method: req.method,
        headers: { ...headers, host: url.host, ...(auth ? { "proxy-authorization": auth } : {}) },
        agent,
      };
    } else {
      options = {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: Number(url.port || (https ? 443 : 80)),
        path: url.pathname + url.search,
        method: req.method,
        headers,
        agent,
      };
    }
    const limit = req.maxBytes ?? DEFAULT_MAX_BYTES;
    const deadline = this.deadline();
    return new Promise<HttpResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          fn(value);
        };
      resolve = settle(resolve);
      reject = settle(reject);
      const r = (https ? httpsRequest : httpRequest)(options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            res.destroy();
            reject(new ResponseTooLargeError(url, limit));
            return;
          }
          chunks.push(chunk);
        });
        res.once("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url }),
        );
        res.once("error", (error) => reject(viaProxy(classify(error), proxy)));
      });
      r.setTimeout(this.options.timeoutMs, () => {
        const error = Object.assign(new Error(`no response within ${this.options.timeoutMs} ms`), {
          code: "TSOP_TIMEOUT",
        });
        r.destroy(error);
      });
      r.once("error", (error) => reject(viaProxy(classify(error), proxy)));
      // The idle timeout above does not stop a server that sends a byte now and then.
      timer = setTimeout(() => {
        const error = viaProxy(this.deadlineError(req, url, deadline.which), proxy);
        reject(error);
        r.destroy(error);
      }, deadline.ms);
      r.end(req.body);
    });
  }

  /** Sends a request, following redirects for GET/HEAD and retrying transient failures. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const maxAttempts = req.retry === false ? 1 : this.retry.attempts;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let delay: number;
      try {
        const response = await this.followRedirects(req);
        const retryAfter = response.headers["retry-after"];
        if (!retriesStatus(this.retry, response.status, retryAfter) || attempt >= maxAttempts)
          return response;
        reason = `HTTP ${response.status}`;
        delay = retryDelay(this.retry, attempt, retryAfter);
      } catch (error) {
        const retryable = error instanceof ConnectionError && retriesNetworkError(this.retry, error.code);
        if (!retryable || attempt >= maxAttempts) throw error;
        reason = error.code;
        delay = retryDelay(this.retry, attempt);
      }
      if (Date.now() + delay >= this.operationEnds) throw this.deadlineError(req, req.url, "operation");
      this.options.onRetry?.({ url: req.url, attempt, delayMs: Math.round(delay), reason });
      await pause(delay);
    }
  }

  private async followRedirects(req: HttpRequest): Promise<HttpResponse> {
    let url = req.url;
    let headers = req.headers;
    for (let hop = 0; ; hop++) {
      const response = await this.once({ ...req, ...(headers ? { headers } : {}) }, url);
      const location = response.headers.location;
      const redirect = [301, 302, 303, 307, 308].includes(response.status);
      if (!redirect || !location || (req.method !== "GET" && req.method !== "HEAD") || hop >= MAX_REDIRECTS) {
        return response;
      }
      const next = new URL(location, url);
      if (url.protocol === "https:" && next.protocol !== "https:") {
        throw new ConnectionError(
          `${url.host} redirected ${req.method} ${url.pathname} from HTTPS to ${next.protocol.replace(":", "").toUpperCase()} (${next.host}); refusing the downgrade`,
          "TSOP_DOWNGRADE",
          "tls",
        );
      }
      if (next.origin !== url.origin && headers) {
        // Blob storage redirects (S3, CDNs) must not receive the registry's credentials.
        const { authorization: _dropped, ...rest } = headers;
        headers = rest;
      }
      url = next;
    }
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
