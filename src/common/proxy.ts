// Which proxy a request goes through (registry requests, the API server, release downloads), following
// Go's net/http (what docker, podman, skopeo and kubectl use): HTTPS_PROXY / HTTP_PROXY by scheme
// (upper case first), NO_PROXY with host names, ".domain" suffixes, host:port, IP addresses and IPv4
// CIDR blocks, "*" for everything; requests to localhost and loopback addresses never use a proxy.
import { isIP } from "node:net";
import { UsageError } from "./errors.js";

function envAny(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/** The proxy schemes the registry transport tunnels through itself. */
export const HTTP_PROXIES = ["http:"];

function parseProxyUrl(value: string, variable: string, schemes: string[]): URL {
  let url: URL;
  try {
    url = new URL(value.includes("://") ? value : `http://${value}`);
  } catch {
    throw new UsageError(`${variable} is not a valid proxy URL`, {
      hint: "Set it to http://host:port (credentials as http://user:password@host:port).",
    });
  }
  if (!schemes.includes(url.protocol)) {
    const supported = schemes.map((s) => `${s}//`).join(", ");
    throw new UsageError(
      `${variable} uses ${url.protocol.slice(0, -1)}://; tsop supports ${supported} proxies only`,
      {
        hint: "Point it at the proxy's plain HTTP port; HTTPS traffic is still tunnelled end to end with CONNECT.",
      },
    );
  }
  return url;
}

function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

function matchesCidr(ip: string, cidr: string): boolean {
  const [base = "", bitsText = ""] = cidr.split("/");
  const bits = Number(bitsText);
  if (isIP(base) !== 4 || isIP(ip) !== 4 || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (ipv4ToInt(ip) & mask) === (ipv4ToInt(base) & mask);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Whether NO_PROXY exempts hostname:port. */
export function bypassesProxy(hostname: string, port: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  for (const raw of noProxy.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    if (entry.includes("/")) {
      if (matchesCidr(host, entry)) return true;
      continue;
    }
    let entryPort: string | undefined;
    const portMatch = /^(.*):(\d+)$/.exec(entry);
    if (portMatch && !entry.startsWith("[") && isIP(entry) !== 6) {
      entry = portMatch[1] ?? entry;
      entryPort = portMatch[2];
    }
    entry = entry.replace(/^\[|\]$/g, "");
    if (entryPort !== undefined && entryPort !== port) continue;
    if (entry.startsWith("*.")) entry = entry.slice(1);
    if (entry.startsWith(".")) {
      if (host.endsWith(entry) || host === entry.slice(1)) return true;
    } else if (host === entry || (isIP(host) === 0 && host.endsWith(`.${entry}`))) {
      return true;
    }
  }
  return false;
}

/** The proxy for a URL, or undefined for a direct connection; `schemes` are the proxy kinds accepted. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv, schemes = HTTP_PROXIES): URL | undefined {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (isLoopbackHost(hostname)) return undefined;
  const https = url.protocol === "https:";
  const variable = https ? "HTTPS_PROXY" : "HTTP_PROXY";
  const value = https ? envAny(env, "HTTPS_PROXY", "https_proxy") : envAny(env, "HTTP_PROXY", "http_proxy");
  if (!value) return undefined;
  const port = url.port || (https ? "443" : "80");
  if (bypassesProxy(hostname, port, envAny(env, "NO_PROXY", "no_proxy"))) return undefined;
  return parseProxyUrl(value, variable, schemes);
}

/** "Basic …" for a proxy URL with user info, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/** The proxy URL without credentials, for messages. */
export function describeProxy(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}
