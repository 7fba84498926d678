// Loopback plumbing for the control plane: free ports and small HTTPS/HTTP probes.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createServer } from "node:net";

/**
 * A port free on 127.0.0.1 right now, for a component that binds it moments later. Taken at random
 * below Linux's ephemeral range (32768–60999): a port the OS handed out with bind(0) and that was
 * closed again can be handed to the next bind(0) or outgoing connection of any process, so two beds
 * starting side by side (parallel lanes, several checkouts) raced for the same port (etcd's "address
 * already in use"). Ports below the range are never picked by the OS; one is taken only when it
 * binds now, and a clash between two beds' random picks is a 1-in-10,000 chance per port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (RESERVED.has(port) || handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port on 127.0.0.1 between ${LOW} and ${HIGH}`);
}

const LOW = 20_000;
const HIGH = 32_000;
/** Fixed ports of the test bed (test/support/machine-lock.ts). */
const RESERVED = new Set([28_080]);
/** Ports this process handed out: not given twice while their components may still be starting. */
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface ProbeOptions {
  ca?: string;
  token?: string;
  method?: string;
  body?: string;
  timeoutMs?: number;
}

/** One request; resolves with status and body text (rejects on connection errors). */
export function probe(url: string, options: ProbeOptions = {}): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: options.method ?? "GET",
        ...(options.ca ? { ca: options.ca } : {}),
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(options.body ? { "content-type": "application/json" } : {}),
        },
        timeout: options.timeoutMs ?? 5000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${url}: no answer`)));
    req.on("error", reject);
    req.end(options.body);
  });
}
