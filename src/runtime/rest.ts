// HTTP to the API server: JSON requests and watch streams. Auth headers and TLS material come from
// the kubeconfig (client-node applies tokens, exec plugins and certificates per request, so rotated
// credentials are picked up); the request/stream handling is ours so watches can be bounded,
// aborted and restarted reliably.
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { ApiError, type StatusBody } from "./errors.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Per-request timeout in ms (default 30 s); watches use their own bound. */
  timeoutMs?: number;
}

export interface WatchEvent<T = Record<string, unknown>> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

type Prepared = Pick<https.RequestOptions, "headers" | "auth" | "agent"> & Record<string, unknown>;

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

export class RestClient {
  private agent: http.Agent | undefined;
  private readonly base: URL;
  /** Called with every answer's status (0 when no answer came), for the request metrics. */
  onResponse: ((method: string, status: number) => void) | undefined;

  constructor(
    readonly server: string,
    private readonly kc: KubeConfig,
    readonly userAgent = "tsop-operator",
  ) {
    this.base = new URL(server);
  }

  /** Auth headers (re-applied per request: tokens rotate) and one keep-alive agent. */
  private async prepare(): Promise<Prepared> {
    const opts: Prepared = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts as https.RequestOptions);
    this.agent ??= this.keepAliveAgent(opts);
    return opts;
  }

  private keepAliveAgent(opts: Prepared): http.Agent {
    // A proxy agent from client-node must be kept; otherwise build a keep-alive agent with the same
    // TLS material, so reconciles do not pay a TLS handshake per request.
    if (this.kc.getCurrentCluster()?.proxyUrl) return opts.agent as http.Agent;
    if (this.base.protocol === "http:") return new http.Agent({ keepAlive: true });
    const tls = opts as https.RequestOptions;
    return new https.Agent({
      keepAlive: true,
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      pfx: tls.pfx,
      passphrase: tls.passphrase,
      servername: tls.servername,
      ...(tls.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: tls.rejectUnauthorized }),
    });
  }

  private async open(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    try {
      const res = await this.send(method, path, options);
      this.onResponse?.(method, res.statusCode ?? 0);
      return res;
    } catch (err) {
      this.onResponse?.(method, 0);
      throw err;
    }
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    const prepared = await this.prepare();
    const url = new URL(this.base.pathname.replace(/\/$/, "") + withQuery(path, options.query), this.base);
    const lib = url.protocol === "https:" ? https : http;
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": this.userAgent,
      ...(prepared.headers as Record<string, string>),
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["Content-Type"] = options.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method,
          headers,
          agent: this.agent,
          auth: prepared.auth,
          signal: options.signal,
        },
        resolve,
      );
      req.on("error", reject);
      if (options.timeoutMs !== 0) {
        req.setTimeout(options.timeoutMs ?? 30_000, () =>
          req.destroy(new Error(`${method} ${path}: no response within ${options.timeoutMs ?? 30_000} ms`)),
        );
      }
      req.end(payload);
    });
  }

  /** A JSON request; non-2xx answers throw ApiError with the server's Status. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.open(method, path, options);
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError(method, path, res, text);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * Opens a watch and yields its events. Ends when the server closes the stream (timeoutSeconds) or
   * the signal aborts; throws ApiError for a non-2xx answer and stream errors as they happen.
   * `onData` is called when the server answers and for every chunk (bookmarks too): liveness.
   */
  async *watch<T = Record<string, unknown>>(
    path: string,
    query: Query,
    signal: AbortSignal,
    onData?: () => void,
  ): AsyncGenerator<WatchEvent<T>> {
    const res = await this.open("GET", path, { query: { ...query, watch: true }, signal, timeoutMs: 0 });
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError("GET", path, res, await readBody(res));
    onData?.(); // the server answered: the watch is open
    res.setEncoding("utf8");
    let buffer = "";
    try {
      for await (const chunk of res as AsyncIterable<string>) {
        onData?.();
        buffer += chunk;
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line) yield JSON.parse(line) as WatchEvent<T>;
          newline = buffer.indexOf("\n");
        }
      }
      const rest = buffer.trim();
      if (rest) yield JSON.parse(rest) as WatchEvent<T>;
    } finally {
      res.destroy();
    }
  }

  close(): void {
    this.agent?.destroy();
  }
}

function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

function apiError(method: string, path: string, res: http.IncomingMessage, text: string): ApiError {
  let body: StatusBody | undefined;
  try {
    body = text ? (JSON.parse(text) as StatusBody) : undefined;
  } catch {
    body = { message: text.slice(0, 500) };
  }
  const retry = Number(res.headers["retry-after"]);
  return new ApiError(method, path, res.statusCode ?? 0, body, Number.isFinite(retry) ? retry : undefined);
}
