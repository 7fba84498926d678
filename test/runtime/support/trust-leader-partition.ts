// A partitionable link to a test API server, at the TCP level (so it carries plain HTTP and TLS
// alike): one replica's kubeconfig points here, and partition() cuts that replica off (open
// connections destroyed, new ones accepted but never forwarded, so requests hang) while the other
// replicas and the test keep talking to the server directly.
import net from "node:net";
import type { AddressInfo, Socket } from "node:net";

export interface PartitionableLink {
  /** The server's URL with this link's port: what the cut-off replica's kubeconfig names. */
  url: string;
  /** Cut the link: every open connection is destroyed and new ones hang unanswered. */
  partition(): void;
  /** Heal the link: new connections are forwarded again. */
  heal(): void;
  close(): Promise<void>;
}

export async function partitionableLink(target: string): Promise<PartitionableLink> {
  const upstream = new URL(target);
  let cut = false;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (cut) return; // hang: the client's own timeout or abort ends it
    const out = net.connect(Number(upstream.port), upstream.hostname);
    track(out);
    client.pipe(out).pipe(client);
    client.on("close", () => out.destroy());
    out.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${upstream.protocol}//127.0.0.1:${port}`,
    partition() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    heal() {
      cut = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
