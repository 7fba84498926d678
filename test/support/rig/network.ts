// The test bed's pod network. Pods the runner runs are local processes listening on 127.0.0.1 at
// ports the runner chose; each such pod gets a made-up pod IP. Two proxies map cluster addresses to
// those processes:
// - a SOCKS5 proxy for OLM's catalog operator and packageserver (GRPC_PROXY=socks5://…, which OLM
//   honours for catalog connections), resolving "<service>.<namespace>.svc[.cluster.local]:<port>"
//   and "<pod IP>:<port>";
// - an HTTP CONNECT proxy on a Unix socket for the kube-apiserver's egress selector ("cluster"
//   traffic: aggregated APIs such as OLM's packageserver, webhooks), resolving pod IPs.
// - the fake Node's addresses at its kubelet port lead to the runner's kubelet API (kubelet-api.ts).
// Addresses the runner does not own are dialled as given.
import { existsSync, unlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect, createServer, isIP, type Server, type Socket } from "node:net";
import type { KubeClient } from "../../../src/kube/client.js";

export interface PodEndpoint {
  namespace: string;
  labels: Record<string, string>;
  podIP: string;
  /** containerPort (and its name) → the local port the process listens on. */
  ports: Array<{ containerPort: number; name?: string; hostPort: number }>;
  ready: boolean;
}

/** Where cluster addresses lead: the runner's pods, and Services selecting them. */
export class AddressBook {
  private readonly pods = new Map<string, PodEndpoint>();
  /** "host:port" → local port: the fake Node's kubelet API (kubelet-api.ts). */
  private readonly fixed = new Map<string, number>();
  constructor(private readonly client: KubeClient) {}

  /** Sends `host:port` to the local port (the Node's addresses at its kubelet port). */
  setFixed(host: string, port: number, localPort: number): void {
    this.fixed.set(`${host}:${port}`, localPort);
  }

  set(key: string, endpoint: PodEndpoint): void {
    this.pods.set(key, endpoint);
  }
  delete(key: string): void {
    this.pods.delete(key);
  }

  /** The local port for `host:port`, or undefined when the address is not one of the runner's pods. */
  async resolve(host: string, port: number): Promise<number | undefined> {
    const fixed = this.fixed.get(`${host}:${port}`);
    if (fixed !== undefined) return fixed;
    if (isIP(host)) return this.byPodIp(host, port);
    const service = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(\.cluster\.local)?\.?$/.exec(host);
    if (!service) return undefined;
    return this.byService(service[2]!, service[1]!, port);
  }

  private byPodIp(ip: string, port: number): number | undefined {
    for (const pod of this.pods.values()) {
      if (pod.podIP !== ip) continue;
      return pod.ports.find((p) => p.containerPort === port)?.hostPort;
    }
    return undefined;
  }

  private async byService(namespace: string, name: string, port: number): Promise<number | undefined> {
    const svc = await this.client.get({ apiVersion: "v1", kind: "Service", namespace, name });
    const spec = svc?.spec as
      | {
          selector?: Record<string, string>;
          ports?: Array<{ port: number; targetPort?: number | string }>;
        }
      | undefined;
    const servicePort = spec?.ports?.find((p) => p.port === port);
    if (!spec?.selector || !servicePort) return undefined;
    const target = servicePort.targetPort ?? port;
    const selector = Object.entries(spec.selector);
    for (const pod of this.pods.values()) {
      if (pod.namespace !== namespace || !pod.ready) continue;
      if (!selector.every(([k, v]) => pod.labels[k] === v)) continue;
      const match = pod.ports.find((p) =>
        typeof target === "number" ? p.containerPort === target : p.name === target,
      );
      if (match) return match.hostPort;
    }
    return undefined;
  }
}

/** Dials the runner's pod behind host:port, or host:port itself when it is not one. */
async function dial(book: AddressBook, host: string, port: number): Promise<Socket> {
  const local = await book.resolve(host, port);
  const socket = local ? connect(local, "127.0.0.1") : connect(port, host);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

function pipe(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on("error", end);
  b.on("error", end);
  a.on("close", end);
  b.on("close", end);
}

/** A minimal SOCKS5 server (no authentication, CONNECT only) on 127.0.0.1. */
export async function startSocksProxy(book: AddressBook): Promise<{ url: string; server: Server }> {
  const server = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    void socksHandshake(book, socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { url: `socks5://127.0.0.1:${address.port}`, server };
}

async function socksHandshake(book: AddressBook, socket: Socket): Promise<void> {
  const reader = byteReader(socket);
  const [version, methods] = await reader(2);
  if (version !== 5) throw new Error("not SOCKS5");
  await reader(methods!);
  socket.write(Buffer.from([5, 0]));
  const [, command, , addressType] = await reader(4);
  let host: string;
  if (addressType === 1) host = [...(await reader(4))].join(".");
  else if (addressType === 3) host = (await reader((await reader(1))[0]!)).toString("latin1");
  else throw new Error("unsupported address type");
  const portBytes = await reader(2);
  const port = portBytes.readUInt16BE(0);
  const reply = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
  if (command !== 1) {
    socket.end(reply(7));
    return;
  }
  let upstream: Socket;
  try {
    upstream = await dial(book, host, port);
  } catch {
    socket.end(reply(5));
    return;
  }
  socket.write(reply(0));
  const rest = reader.rest();
  if (rest.length) upstream.write(rest);
  pipe(socket, upstream);
}

/** Reads exact byte counts from a socket until the handshake is done. */
function byteReader(socket: Socket): ((n: number) => Promise<Buffer>) & { rest(): Buffer } {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void } | undefined;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    flush();
  };
  const flush = () => {
    if (waiting && buffered.length >= waiting.n) {
      const out = buffered.subarray(0, waiting.n);
      buffered = buffered.subarray(waiting.n);
      const w = waiting;
      waiting = undefined;
      w.resolve(out);
    }
  };
  socket.on("data", onData);
  const read = (n: number) =>
    new Promise<Buffer>((resolve) => {
      waiting = { n, resolve };
      flush();
    });
  return Object.assign(read, {
    rest() {
      socket.off("data", onData);
      return buffered;
    },
  });
}

/** An HTTP CONNECT proxy on a Unix socket (the kube-apiserver's egress selector dials it). */
export async function startEgressProxy(book: AddressBook, socketPath: string): Promise<HttpServer> {
  if (existsSync(socketPath)) unlinkSync(socketPath);
  const server = createHttpServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  server.on("connect", (req, socket: Socket, head: Buffer) => {
    const [host, portText] = splitHostPort(req.url ?? "");
    socket.on("error", () => socket.destroy());
    dial(book, host, Number(portText)).then(
      (upstream) => {
        socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
        if (head.length) upstream.write(head);
        pipe(socket, upstream);
      },
      (error: Error) => socket.end(`HTTP/1.1 503 Service Unavailable\r\n\r\n${error.message}`),
    );
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

function splitHostPort(value: string): [string, string] {
  const i = value.lastIndexOf(":");
  return [value.slice(0, i).replace(/^\[|\]$/g, ""), value.slice(i + 1)];
}

/** The kube-apiserver's EgressSelectorConfiguration sending "cluster" traffic through `socketPath`. */
export async function writeEgressConfig(path: string, socketPath: string): Promise<void> {
  await writeFile(
    path,
    [
      "apiVersion: apiserver.k8s.io/v1beta1",
      "kind: EgressSelectorConfiguration",
      "egressSelections:",
      "- name: cluster",
      "  connection:",
      "    proxyProtocol: HTTPConnect",
      "    transport:",
      "      uds:",
      `        udsName: ${socketPath}`,
      "",
    ].join("\n"),
  );
}
