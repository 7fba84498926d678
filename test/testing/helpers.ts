// Raw-HTTP helpers for the test-server suites (in-memory over HTTP or HTTPS, and the real control
// plane): requests with the cluster's token and CA, JSON in and out, and a reader for watch streams.
import { type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export interface HttpResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are arbitrary JSON
  body: any;
  text: string;
}

/** What the helpers need of a cluster: the in-memory one (HTTP or HTTPS) or the real one. */
export interface Reachable {
  url: string;
  token: string;
  /** Trusted for https:// URLs (TLS verification stays on). */
  caCertificate?: string;
}

/** One request with node:http(s): fetch cannot be given a CA to trust. */
function send(
  cluster: Reachable,
  method: string,
  path: string,
  headers: Record<string, string>,
  payload: string | undefined,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  const target = new URL(cluster.url + path);
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, ca: cluster.caCertificate, signal }, resolve);
    req.on("error", reject);
    req.end(payload);
  });
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, v);
  }
  return headers;
}

export async function http(
  cluster: Reachable,
  method: string,
  path: string,
  body?: unknown,
  options: {
    contentType?: string;
    token?: string | null;
    accept?: string;
    /** Extra request headers (e.g. Impersonate-User). */
    headers?: Record<string, string>;
  } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? cluster.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.accept) headers.accept = options.accept;
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === "string" ? body : JSON.stringify(body);
    headers["content-type"] = options.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const res = await send(cluster, method, path, headers, payload);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.statusCode ?? 0, headers: headersOf(res), body: parsed, text };
}

export interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- watch objects are arbitrary JSON
  object: any;
}

/** Opens a watch and collects events; `next(n)` resolves once n events arrived in total. */
export async function openWatch(cluster: Reachable, path: string) {
  const controller = new AbortController();
  const res = await send(
    cluster,
    "GET",
    path,
    { authorization: `Bearer ${cluster.token}` },
    undefined,
    controller.signal,
  );
  const events: WatchEvent[] = [];
  let ended = false;
  const waiters: Array<() => void> = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  const pump = (async () => {
    let buffer = "";
    try {
      res.setEncoding("utf8");
      for await (const chunk of res) {
        buffer += chunk as string;
        let nl = buffer.indexOf("\n");
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
          nl = buffer.indexOf("\n");
        }
        notify();
      }
    } catch {
      // aborted or cut
    }
    ended = true;
    notify();
  })();
  return {
    status: res.statusCode ?? 0,
    events,
    get ended() {
      return ended;
    },
    async next(count: number, timeoutMs = 5000): Promise<WatchEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (events.length < count && !ended) {
        if (Date.now() > deadline)
          throw new Error(`watch: wanted ${count} events, got ${JSON.stringify(events)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events;
    },
    async closed(timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!ended) {
        if (Date.now() > deadline) throw new Error("watch did not end");
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      await pump;
    },
    stop() {
      controller.abort();
    },
  };
}

export function configMap(name: string, data: Record<string, string> = {}, namespace = "default") {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data };
}

export const memcachedCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "memcacheds.cache.example.com" },
  spec: {
    group: "cache.example.com",
    names: {
      kind: "Memcached",
      listKind: "MemcachedList",
      plural: "memcacheds",
      singular: "memcached",
      shortNames: ["mc"],
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: ".spec.size",
            statusReplicasPath: ".status.replicas",
            labelSelectorPath: ".status.selector",
          },
        },
        additionalPrinterColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              apiVersion: { type: "string" },
              kind: { type: "string" },
              metadata: { type: "object" },
              spec: {
                type: "object",
                required: ["size"],
                properties: {
                  size: { type: "integer", minimum: 1, maximum: 5 },
                  image: { type: "string", default: "memcached:1.6" },
                },
              },
              status: {
                type: "object",
                properties: {
                  replicas: { type: "integer" },
                  selector: { type: "string" },
                  nodes: { type: "array", items: { type: "string" } },
                },
              },
            },
          },
        },
      },
    ],
  },
};
