// HTTP to the API server, for the operator library and the CLI alike: JSON requests, text (logs) and
// watch streams, with the kubeconfig's credentials, the shared proxy selection and retry policy.
// Credentials come from credentials.ts per request (tokens rotate; exec plugins never hang a
// non-interactive run); a 401 reads them again and sends once more. One keep-alive agent per client.
import http from "node:http";
import https from "node:https";
import { proxyFor } from "../../common/proxy.js";
import {
  OPERATOR_RETRY,
  pause,
  type RetryPolicy,
  retriesNetworkError,
  retriesStatus,
  retryDelay,
} from "../../common/retry.js";
import { RequestAbortedError } from "./aborted.js";
import { type Credentials, CredentialSource, type TlsMaterial } from "./credentials.js";
import { ApiError, type StatusBody } from "./errors.js";
import type { ClusterAccess, ClusterConfig } from "./kubeconfig.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
  /**
   * Ends the request (and its retries) when it aborts: it then rejects with RequestAbortedError,
   * whichever comes first of this and the timeout.
   */
  signal?: AbortSignal;
  /** Per-request timeout in ms (default 30 s); watches use their own bound. */
  timeoutMs?: number;
  /** Accept header (default application/json), e.g. for PartialObjectMetadata answers. */
  accept?: string;
}

export interface WatchEvent<T = Record<string, unknown>> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

export interface RestOptions {
  userAgent?: string;
  /** Proxy variables and the environment of credential plugins (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Whether a person could answer an interactive credential plugin (default false). */
  interactive?: boolean;
  /** Default: the operator's policy (what the server asks to retry). */
  retry?: Partial<RetryPolicy>;
  /** Called before each retry (progress and debug output). */
  onRetry?: (info: {
    method: string;
    path: string;
    attempt: number;
    delayMs: number;
    reason: string;
  }) => void;
}

/** A 2xx answer, read whole. */
export interface RestResponse {
  status: number;
  text: string;
}

/** Proxy kinds client-node's agents speak (HTTP CONNECT over http or https, SOCKS). */
const AGENT_PROXIES = ["http:", "https:", "socks:", "socks4:", "socks5:", "socks5h:"];

/**
 * An agent that tunnels through a proxy: client-node's (hpagent, socks-proxy-agent), loaded only when
 * a proxy is in use so that a direct connection never pays for its module graph.
 */
async function proxyAgent(
  cluster: ClusterConfig,
  proxy: string,
  options: https.AgentOptions,
): Promise<http.Agent> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig() as unknown as {
    createAgent(cluster: object, options: https.AgentOptions): http.Agent;
  };
  return kc.createAgent(
    { ...cluster, skipTLSVerify: cluster.skipTLSVerify ?? false, proxyUrl: proxy },
    options,
  );
}

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

export class RestClient {
  private agent: Promise<http.Agent> | undefined;
  private agentIdentity = "";
  private readonly base: URL;
  private readonly options: RestOptions;
  readonly retry: RetryPolicy;
  readonly userAgent: string;
  /** Called with every answer's status (0 when no answer came), for the request metrics. */
  onResponse: ((method: string, status: number) => void) | undefined;

  private readonly credentials: CredentialSource;
  private readonly cluster: ClusterConfig;

  constructor(
    readonly server: string,
    access: ClusterAccess,
    options: RestOptions | string = {},
  ) {
    this.options = typeof options === "string" ? { userAgent: options } : options;
    this.userAgent = this.options.userAgent ?? "tsop-operator";
    this.retry = { ...OPERATOR_RETRY, ...this.options.retry };
    this.base = new URL(server);
    this.cluster = access.cluster;
    this.credentials = new CredentialSource(access, {
      env: this.env,
      interactive: this.options.interactive ?? false,
    });
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  // ---- agent -----------------------------------------------------------------------------------

  /**
   * One keep-alive agent, rebuilt only when the TLS material changes (rotated certificates). Kept as
   * a promise so that concurrent first requests share one agent while a proxy agent loads.
   */
  private agentFor(tls: TlsMaterial): Promise<http.Agent> {
    const identity = [tls.ca, tls.cert, tls.key].map((v) => String(v ?? "")).join("|");
    if (this.agent && identity === this.agentIdentity) return this.agent;
    this.closeAgent();
    this.agentIdentity = identity;
    const options: https.AgentOptions = { keepAlive: true, ...tls };
    const proxy = this.cluster.proxyUrl ?? proxyFor(this.base, this.env, AGENT_PROXIES)?.href;
    if (proxy) this.agent = proxyAgent(this.cluster, proxy, options);
    else
      this.agent = Promise.resolve(
        this.base.protocol === "http:" ? new http.Agent({ keepAlive: true }) : new https.Agent(options),
      );
    return this.agent;
  }

  private closeAgent(): void {
    void this.agent?.then(
      (a) => a.destroy(),
      () => {},
    );
    this.agent = undefined;
  }

  // ---- one exchange ----------------------------------------------------------------------------

  private async send(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    const credentials: Credentials = await this.credentials.current();
    const agent = await this.agentFor(credentials.tls);
    const url = new URL(this.base.pathname.replace(/\/$/, "") + withQuery(path, options.query), this.base);
    const lib = url.protocol === "https:" ? https : http;
    const headers: Record<string, string | string[]> = {
      Accept: options.accept ?? "application/json",
      "User-Agent": this.userAgent,
      ...credentials.headers,
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["Content-Type"] = options.contentType ?? "application/json";
      // Always frame the body: Node does not chunk DELETE bodies, which would desync keep-alive.
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { method, headers, agent, signal: options.signal }, (res) => {
        // An abort after the caller stopped reading destroys the response with an AbortError;
        // without a listener that would be an uncaught exception. Readers still see errors.
        res.on("error", () => {});
        resolve(res);
      });
      req.on("error", reject);
      if (options.timeoutMs !== 0) {
        const ms = options.timeoutMs ?? 30_000;
        req.setTimeout(ms, () =>
          req.destroy(
            Object.assign(new Error(`${method} ${path}: no response within ${ms} ms`), { code: "ETIMEDOUT" }),
          ),
        );
      }
      req.end(payload);
    });
  }

  /**
   * Sends until an answer is final under the retry policy: 2xx, a failure not worth retrying, or the
   * last attempt. A 401 reads the credentials again (token file, exec plugin) and sends once more.
   */
  private async open(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    let reauthenticated = false;
    const signal = options.signal;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new RequestAbortedError(method, path, signal.reason);
      let res: http.IncomingMessage;
      try {
        res = await this.send(method, path, options);
        this.onResponse?.(method, res.statusCode ?? 0);
      } catch (err) {
        this.onResponse?.(method, 0);
        if (signal?.aborted) throw new RequestAbortedError(method, path, signal.reason);
        const code = (err as NodeJS.ErrnoException).code;
        if (attempt >= this.retry.attempts || !retriesNetworkError(this.retry, code)) throw err;
        await this.wait(method, path, attempt, retryDelay(this.retry, attempt), code ?? "", options.signal);
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status === 401 && !reauthenticated && this.credentials.refresh()) {
        reauthenticated = true;
        res.resume();
        continue;
      }
      const retryAfter = res.headers["retry-after"];
      if (attempt < this.retry.attempts && retriesStatus(this.retry, status, retryAfter)) {
        res.resume();
        const delay = retryDelay(this.retry, attempt, retryAfter);
        await this.wait(method, path, attempt, delay, `HTTP ${status}`, options.signal);
        continue;
      }
      (res as { attempts?: number }).attempts = attempt;
      return res;
    }
  }

  private async wait(
    method: string,
    path: string,
    attempt: number,
    delayMs: number,
    reason: string,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    this.options.onRetry?.({ method, path, attempt, delayMs: Math.round(delayMs), reason });
    await pause(delayMs, signal);
  }

  // ---- requests --------------------------------------------------------------------------------

  /** A request whose 2xx answer is returned as text with its status; non-2xx answers throw ApiError. */
  async exchange(method: string, path: string, options: RequestOptions = {}): Promise<RestResponse> {
    const res = await this.open(method, path, options);
    const signal = options.signal;
    // An abort while the body arrives surfaces as "aborted" (ECONNRESET): say what happened.
    const text = await readBody(res).catch((err: unknown) => {
      throw signal?.aborted ? new RequestAbortedError(method, path, signal.reason) : err;
    });
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError(method, path, res, text);
    return { status, text };
  }

  /** A JSON request; non-2xx answers throw ApiError with the server's Status. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const { text } = await this.exchange(method, path, options);
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
    accept?: string,
  ): AsyncGenerator<WatchEvent<T>> {
    const res = await this.open("GET", path, {
      query: { ...query, watch: true },
      signal,
      timeoutMs: 0,
      accept,
    });
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
    this.closeAgent();
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
  const error = new ApiError(
    method,
    path,
    res.statusCode ?? 0,
    body,
    Number.isFinite(retry) ? retry : undefined,
  );
  error.attempts = (res as { attempts?: number }).attempts ?? 1;
  return error;
}
