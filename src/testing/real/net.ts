// Loopback plumbing for the control plane: free ports and small HTTPS/HTTP probes.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createServer } from "node:net";

/** A port free on 127.0.0.1 right now (the OS picks it; the component binds it moments later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port from the OS");
  return address.port;
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
