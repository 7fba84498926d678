// A partitionable link to a plain-HTTP test server: one replica's kubeconfig points here, and
// partition() cuts that replica off (open connections destroyed, new requests left hanging) while
// the other replicas and the test keep talking to the server directly.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface PartitionableLink {
  url: string;
  /** Cut the link: every open connection is destroyed and new requests hang unanswered. */
  partition(): void;
  /** Heal the link: new requests are forwarded again. */
  heal(): void;
  close(): Promise<void>;
}

export async function partitionableLink(target: string): Promise<PartitionableLink> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let cut = false;
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (cut) return; // hang: the client's own timeout or abort ends it
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    partition() {
      cut = true;
      for (const s of sockets) s.destroy();
      agent.destroy();
    },
    heal() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
