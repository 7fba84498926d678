// Downloads over plain URLs (today OLM's release manifests, olm/release.ts): GET over node:http(s)
// following redirects, through the proxy the environment selects (proxy.ts). Requests to the API
// server go through runtime/connect/rest.ts, to registries through oci/transport.ts.
import http from "node:http";
import https from "node:https";
import { proxyFor } from "./proxy.js";

export interface HttpResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Proxy kinds client-node's agents speak (HTTP CONNECT over http or https, SOCKS). */
const AGENT_PROXIES = ["http:", "https:", "socks:", "socks4:", "socks5:", "socks5h:"];

async function agentFor(url: string, env: NodeJS.ProcessEnv): Promise<http.Agent> {
  const proxy = proxyFor(new URL(url), env, AGENT_PROXIES)?.href;
  if (proxy) {
    const { KubeConfig } = await import("@kubernetes/client-node");
    // client-node's proxy agents (hpagent, socks) are private API, but the only ones at hand.
    const kc = new KubeConfig() as unknown as {
      createAgent(cluster: object, options: https.AgentOptions): http.Agent;
    };
    return kc.createAgent({ name: "proxy", server: url, skipTLSVerify: false, proxyUrl: proxy }, {});
  }
  return url.startsWith("https:") ? new https.Agent() : new http.Agent();
}

/** One HTTP GET, fully buffered. Network failures reject with the Node error (code set). */
function get(url: string, agent: http.Agent, timeoutMs: number): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const mod = url.startsWith("https:") ? https : http;
    const req = mod.get(url, { agent, headers: { "user-agent": "tsop" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error("request timed out"), { code: "ETIMEDOUT" })),
    );
    req.on("error", reject);
  });
}

/** GET for downloads (release manifests): follows redirects, honours proxy variables. */
export async function download(
  url: string,
  options: { env: NodeJS.ProcessEnv; followRedirects?: boolean; timeoutMs?: number },
): Promise<HttpResponse & { url: string }> {
  let current = url;
  for (let hop = 0; hop < 6; hop++) {
    const agent = await agentFor(current, options.env);
    const res = await get(current, agent, options.timeoutMs ?? 60_000);
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
