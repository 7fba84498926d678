// HTTP to the API server, for the operator library and the CLI alike: JSON requests, text (logs) and
// watch streams, with the kubeconfig's credentials, the shared proxy selection and retry policy.
// Credentials come from the kubeconfig per request (tokens rotate): client-node applies tokens,
// certificates and auth providers; exec plugins are run by exec-credential.ts (never hang a
// non-interactive run; a 401 runs the plugin again once). One keep-alive agent per client.
import http from "node:http";
import https from "node:https";
import type { Cluster, KubeConfig } from "@kubernetes/client-node";
import { proxyFor } from "../common/proxy.js";
import {
  OPERATOR_RETRY,
  pause,
  type RetryPolicy,
  retriesNetworkError,
  retriesStatus,
  retryDelay,
} from "../common/retry.js";
import { ApiError, type StatusBody } from "./errors.js";
import { type ExecConfig, execCredential, forgetExecCredential } from "./exec-credential.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  contentType?: string;
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

/** client-node's option appliers (not in its public typings). */
interface KubeConfigInternals {
  applyOptions(opts: https.RequestOptions): Promise<void>;
  applyHTTPSOptions(opts: https.RequestOptions): void;
  createAgent(cluster: Cluster, options: https.AgentOptions): http.Agent;
}

interface Prepared {
  headers: Record<string, string>;
  tls: https.RequestOptions;
}

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}${path.includes("?") ? "&" : "?"}${text}` : path;
}

export class RestClient {
  private agent: http.Agent | undefined;
  private agentIdentity = "";
  private readonly base: URL;
  private readonly options: RestOptions;
  readonly retry: RetryPolicy;
  readonly userAgent: string;
  /** Called with every answer's status (0 when no answer came), for the request metrics. */
  onResponse: ((method: string, status: number) => void) | undefined;

  constructor(
    readonly server: string,
    readonly kc: KubeConfig,
    options: RestOptions | string = {},
  ) {
    this.options = typeof options === "string" ? { userAgent: options } : options;
    this.userAgent = this.options.userAgent ?? "tsop-operator";
    this.retry = { ...OPERATOR_RETRY, ...this.options.retry };
    this.base = new URL(server);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  // ---- credentials and agent -------------------------------------------------------------------

  /** Auth headers and TLS material, re-applied per request (tokens rotate; exec results are cached). */
  private async prepare(): Promise<Prepared> {
    const kc = this.kc as unknown as KubeConfigInternals;
    const user = this.kc.getCurrentUser();
    const tls: https.RequestOptions & { headers: Record<string, string> } = { headers: {} };
    if (user?.exec) {
      kc.applyHTTPSOptions(tls);
      const cred = await execCredential(user.name, user.exec as ExecConfig, {
        interactive: this.options.interactive ?? false,
        env: this.env,
        server: this.server,
      });
      if (cred.token) tls.headers.Authorization = `Bearer ${cred.token}`;
      if (cred.clientCertificateData) tls.cert = cred.clientCertificateData;
      if (cred.clientKeyData) tls.key = cred.clientKeyData;
    } else {
      await kc.applyOptions(tls);
    }
    const headers = { ...tls.headers };
    if (user?.username && !headers.Authorization) {
      headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}`;
    }
    return { headers, tls };
  }

  /** One keep-alive agent, rebuilt only when the client certificate changes (exec plugins rotate it). */
  private agentFor(tls: https.RequestOptions): http.Agent {
    const identity = `${String(tls.cert ?? "")}|${String(tls.key ?? "")}`;
    if (this.agent && identity === this.agentIdentity) return this.agent;
    this.agent?.destroy();
    this.agentIdentity = identity;
    const cluster = this.kc.getCurrentCluster();
    const proxy = cluster?.proxyUrl ?? proxyFor(this.base, this.env, AGENT_PROXIES)?.href;
    const options: https.AgentOptions = {
      keepAlive: true,
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      pfx: tls.pfx,
      passphrase: tls.passphrase,
      servername: tls.servername,
      ...(tls.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: tls.rejectUnauthorized }),
    };
    if (proxy && cluster) {
      const kc = this.kc as unknown as KubeConfigInternals;
      this.agent = kc.createAgent({ ...cluster, proxyUrl: proxy }, options);
    } else {
      this.agent =
        this.base.protocol === "http:" ? new http.Agent({ keepAlive: true }) : new https.Agent(options);
    }
    return this.agent;
  }

  // ---- one exchange ----------------------------------------------------------------------------

  private async send(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    const prepared = await this.prepare();
    const agent = this.agentFor(prepared.tls);
    const url = new URL(this.base.pathname.replace(/\/$/, "") + withQuery(path, options.query), this.base);
    const lib = url.protocol === "https:" ? https : http;
    const headers: Record<string, string> = {
      Accept: options.accept ?? "application/json",
      "User-Agent": this.userAgent,
      ...prepared.headers,
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
   * last attempt. A 401 with an exec plugin runs the plugin again once.
   */
  private async open(method: string, path: string, options: RequestOptions): Promise<http.IncomingMessage> {
    let reauthenticated = false;
    for (let attempt = 1; ; attempt++) {
      let res: http.IncomingMessage;
      try {
        res = await this.send(method, path, options);
        this.onResponse?.(method, res.statusCode ?? 0);
      } catch (err) {
        this.onResponse?.(method, 0);
        const code = (err as NodeJS.ErrnoException).code;
        if (
          options.signal?.aborted ||
          attempt >= this.retry.attempts ||
          !retriesNetworkError(this.retry, code)
        )
          throw err;
        await this.wait(method, path, attempt, retryDelay(this.retry, attempt), code ?? "", options.signal);
        continue;
      }
      const status = res.statusCode ?? 0;
      if (status === 401 && !reauthenticated && this.forgetExecCredential()) {
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

  private forgetExecCredential(): boolean {
    const user = this.kc.getCurrentUser();
    if (!user?.exec) return false;
    forgetExecCredential(user.name);
    return true;
  }

  // ---- requests --------------------------------------------------------------------------------

  /** A request whose 2xx answer is returned as text with its status; non-2xx answers throw ApiError. */
  async exchange(method: string, path: string, options: RequestOptions = {}): Promise<RestResponse> {
    const res = await this.open(method, path, options);
    const text = await readBody(res);
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
    this.agent?.destroy();
    this.agent = undefined;
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
