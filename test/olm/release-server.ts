// A local stand-in for OLM's GitHub releases: /releases/latest redirects to /releases/tag/<v>,
// /releases/download/<v>/{crds,olm}.yaml serve the fixture manifests; requests are recorded.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const FIXTURE_RELEASES = fileURLToPath(new URL("../../fixtures/olm/releases/", import.meta.url));
export const FIXTURE_VERSION = "v0.28.0";

export interface ReleaseServer {
  /** Base URL to pass as --base-url (ends in /releases). */
  baseUrl: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startReleaseServer(
  options: { latest?: string; broken?: boolean } = {},
): Promise<ReleaseServer> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const url = req.url ?? "";
    requests.push(url);
    if (url === "/releases/latest") {
      res.statusCode = 302;
      res.setHeader("location", `/releases/tag/${options.latest ?? FIXTURE_VERSION}`);
      res.end();
      return;
    }
    const m = /^\/releases\/download\/([^/]+)\/(crds|olm)\.yaml$/.exec(url);
    if (m && m[1] === FIXTURE_VERSION) {
      if (options.broken && m[2] === "olm") {
        res.statusCode = 200;
        res.end("kind: [unclosed");
        return;
      }
      // GitHub answers asset downloads with a redirect to a storage host.
      if (!req.headers["x-followed"] && url.includes("crds")) {
        res.statusCode = 302;
        res.setHeader("location", `/storage/${m[1]}/${m[2]}.yaml`);
        res.end();
        return;
      }
      res.end(await readFile(`${FIXTURE_RELEASES}${m[1]}/${m[2]}.yaml`));
      return;
    }
    const s = /^\/storage\/([^/]+)\/(crds|olm)\.yaml$/.exec(url);
    if (s) {
      res.end(await readFile(`${FIXTURE_RELEASES}${s[1]}/${s[2]}.yaml`));
      return;
    }
    res.statusCode = 404;
    res.end("Not Found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/releases`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
