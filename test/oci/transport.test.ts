// The HTTP layer on its own: redirects keep credentials on the registry's origin.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transport } from "../../src/oci/transport.js";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("Transport redirects", () => {
  const seen: IncomingHttpHeaders[] = [];
  let storage: Server;
  let registry: Server;
  let storageUrl: string;
  let registryUrl: string;
  beforeAll(async () => {
    storage = createServer((req, res) => {
      seen.push(req.headers);
      res.end("blob bytes");
    });
    storageUrl = await listen(storage);
    registry = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === "/v2/app/blobs/same") res.writeHead(307, { location: "/storage/blob" }).end();
      else if (req.url === "/storage/blob") res.end("local bytes");
      else res.writeHead(307, { location: `${storageUrl}/blob?sig=1` }).end();
    });
    registryUrl = await listen(registry);
  });
  afterAll(() => {
    storage.close();
    registry.close();
  });

  const transport = () =>
    new Transport({
      env: {},
      rejectUnauthorized: true,
      extraCa: () => [],
      timeoutMs: 5000,
      retries: 0,
      backoffMs: 1,
      maxSockets: 2,
    });

  it("drops Authorization when a redirect leaves the registry's origin", async () => {
    seen.length = 0;
    const t = transport();
    const response = await t.send({
      method: "GET",
      url: new URL(`${registryUrl}/v2/app/blobs/other`),
      headers: { authorization: "Bearer secret-token" },
    });
    t.close();
    expect(response.body.toString()).toBe("blob bytes");
    expect(response.url.origin).toBe(storageUrl);
    expect(seen[0]?.authorization).toBe("Bearer secret-token");
    expect(seen[1]?.authorization).toBeUndefined();
  });

  it("keeps it on a same-origin redirect", async () => {
    seen.length = 0;
    const t = transport();
    const response = await t.send({
      method: "GET",
      url: new URL(`${registryUrl}/v2/app/blobs/same`),
      headers: { authorization: "Bearer secret-token" },
    });
    t.close();
    expect(response.body.toString()).toBe("local bytes");
    expect(seen.map((h) => h.authorization)).toEqual(["Bearer secret-token", "Bearer secret-token"]);
  });
});
