// The transport under the cluster client and the release downloads: node:http(s) with the TLS
// material and credentials of a Connection, proxies from the kubeconfig (proxy-url) or the
// environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; loopback is never proxied, as in Go).
import http from "node:http";
import https from "node:https";
import { proxyFor } from "../common/proxy.js";
import type { Connection } from "./config.js";
import { execCredential, forgetExecCredential } from "../runtime/exec-credential.js";

export interface HttpResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Proxy kinds client-node's agents speak (HTTP CONNECT over http or https, SOCKS). */
const AGENT_PROXIES = ["http:", "https:", "socks:", "socks4:", "socks5:", "socks5h:"];

export interface TransportOptions {
  agent: http.Agent;
  headers: Record<string, string>;
  /** Client certificate and TLS settings for https targets. */
  tls: https.RequestOptions;
}

/** TLS options, auth headers and the agent for requests to the connection's API server. */
export async function transportFor(conn: Connection): Promise<TransportOptions> {
  const { cluster, user } = conn;
  const tls: https.RequestOptions = {};
  const headers: Record<string, string> = {};
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- client-node's option appliers are private
  const kc = conn.kubeConfig as any;
  // Certificates, CA, server name, token (incl. token files and auth providers) from client-node;
  // exec plugins are run by tsop (see exec-credential.ts).
  const opts: https.RequestOptions & { headers?: Record<string, string> } = { headers: {} };
  if (user.exec) {
    kc.applyHTTPSOptions(opts);
    const cred = await execCredential(user.name, user.exec, {
      interactive: conn.interactive,
      env: conn.env,
      server: cluster.server,
    });
    if (cred.token) headers.Authorization = `Bearer ${cred.token}`;
    if (cred.clientCertificateData) opts.cert = cred.clientCertificateData;
    if (cred.clientKeyData) opts.key = cred.clientKeyData;
  } else {
    await kc.applyOptions(opts);
  }
  Object.assign(headers, opts.headers ?? {});
  if (user.username && user.password && !headers.Authorization) {
    headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString("base64")}`;
  }
  for (const key of ["ca", "cert", "key", "servername", "rejectUnauthorized"] as const) {
    if (opts[key] !== undefined) (tls as Record<string, unknown>)[key] = opts[key];
  }
  if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
  const agent = await agentFor(cluster.server, conn.env, tls, cluster.proxyUrl, kc);
  return { agent, headers, tls };
}

async function agentFor(
  server: string,
  env: NodeJS.ProcessEnv,
  tls: https.RequestOptions,
  proxyUrl?: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- client-node KubeConfig
  kc?: any,
) {
  const proxy = proxyUrl ?? proxyFor(new URL(server), env, AGENT_PROXIES)?.href;
  if (proxy) {
    let config = kc;
    if (!config) {
      const { KubeConfig } = await import("@kubernetes/client-node");
      config = new KubeConfig();
    }
    return config.createAgent(
      { name: "proxy", server, skipTLSVerify: tls.rejectUnauthorized === false, proxyUrl: proxy },
      {
        ...tls,
        keepAlive: true,
      },
    ) as http.Agent;
  }
  return server.startsWith("https:")
    ? new https.Agent({ ...(tls as https.AgentOptions), keepAlive: true })
    : new http.Agent({ keepAlive: true });
}

/** Forget cached exec credentials after a 401 so the next attempt runs the plugin again. */
export function invalidateCredentials(conn: Connection): boolean {
  if (!conn.user.exec) return false;
  forgetExecCredential(conn.user.name);
  return true;
}

export interface RequestSpec {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: http.Agent;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One HTTP exchange, fully buffered. Network failures reject with the Node error (code set). */
export function request(spec: RequestSpec): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(spec.url);
    const mod = url.protocol === "https:" ? https : http;
    // Always frame the body: Node does not chunk DELETE bodies, which would desync keep-alive.
    const headers = { ...spec.headers };
    if (spec.body !== undefined) headers["content-length"] = String(Buffer.byteLength(spec.body));
    const req = mod.request(
      url,
      { method: spec.method, headers, agent: spec.agent, signal: spec.signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    if (spec.timeoutMs) {
      req.setTimeout(spec.timeoutMs, () =>
        req.destroy(Object.assign(new Error("request timed out"), { code: "ETIMEDOUT" })),
      );
    }
    req.on("error", reject);
    if (spec.body !== undefined) req.write(spec.body);
    req.end();
  });
}

/** Opens a streaming request (watches, logs); the caller consumes the response. */
export function openStream(spec: RequestSpec): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const url = new URL(spec.url);
    const mod = url.protocol === "https:" ? https : http;
    // Always frame the body: Node does not chunk DELETE bodies, which would desync keep-alive.
    const headers = { ...spec.headers };
    if (spec.body !== undefined) headers["content-length"] = String(Buffer.byteLength(spec.body));
    const req = mod.request(
      url,
      { method: spec.method, headers, agent: spec.agent, signal: spec.signal },
      (res) => {
        // An abort after the caller stopped reading destroys the response with an AbortError;
        // without a listener that would be an uncaught exception. Readers still see errors.
        res.on("error", () => {});
        resolve(res);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** GET for downloads (release manifests): follows redirects, honours proxy variables. */
export async function download(
  url: string,
  options: { env: NodeJS.ProcessEnv; followRedirects?: boolean; timeoutMs?: number },
): Promise<HttpResponse & { url: string }> {
  let current = url;
  for (let hop = 0; hop < 6; hop++) {
    const agent = await agentFor(current, options.env, {});
    const res = await request({
      method: "GET",
      url: current,
      agent,
      timeoutMs: options.timeoutMs ?? 60_000,
      headers: { "user-agent": "tsop" },
    });
    agent.destroy();
    const location = res.headers.location;
    if (options.followRedirects !== false && res.statusCode >= 300 && res.statusCode < 400 && location) {
      current = new URL(location, current).toString();
      continue;
    }
    return { ...res, url: current };
  }
  throw new Error(`too many redirects from ${url}`);
}
