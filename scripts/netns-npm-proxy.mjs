// npm's way out of the real tier's private network namespace (the "olm-ns" lane, test-real.mjs). A
// lane there reaches only its own loopback, but its files scaffold projects whose `npm install`
// needs the npm registry. A unix socket is a file, so it is reachable from both sides: the host side
// serves HTTPS CONNECT tunnels on it (`serveConnectProxy`), and inside the namespace `forward` listens
// on 127.0.0.1:<port> and pipes each connection to the socket. Only npm is pointed at it
// (npm_config_https_proxy), so everything else in the lane still sees loopback only.
import { connect, createConnection, createServer } from "node:net";

/** The port the forwarder listens on inside the namespace (the namespace is the lane's alone). */
export const FORWARD_PORT = 18931;

/** Host side: HTTPS CONNECT tunnels (to port 443 only, unless told) served on the unix socket `path`. */
export function serveConnectProxy(path, { ports = ["443"] } = {}) {
  const server = createServer((client) => {
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      client.off("data", onData);
      const [, host, port] = /^CONNECT ([^\s:]+):(\d+) HTTP\/1\.[01]\r\n/.exec(head.toString("latin1")) ?? [];
      if (!host || !ports.includes(port)) {
        client.end("HTTP/1.1 405 Method Not Allowed\r\n\r\n");
        return;
      }
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        const rest = head.subarray(end + 4);
        if (rest.length) upstream.write(rest);
        client.pipe(upstream).pipe(client);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    };
    client.on("data", onData);
    client.on("error", () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

/**
 * Namespace side: 127.0.0.1:<port> piped to the unix socket; prints the port it listens on. It lives
 * as long as the process that started it (the lane's shell, which execs vitest): when that one
 * exits, so does this.
 */
function forward(path, port) {
  const parent = process.ppid;
  const server = createServer((local) => {
    const remote = createConnection(path);
    local.pipe(remote).pipe(local);
    local.on("error", () => remote.destroy());
    remote.on("error", () => local.destroy());
  });
  server.listen(port, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
  setInterval(() => process.ppid !== parent && process.exit(0), 500);
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "forward") {
  forward(process.argv[3], Number(process.argv[4] ?? FORWARD_PORT));
}
