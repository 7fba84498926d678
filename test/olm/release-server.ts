// A local stand-in for OLM's GitHub releases: /releases/latest redirects to /releases/tag/<v>,
// /releases/download/<v>/{crds,olm}.yaml serve the manifests shipped with tsop (v0.28.0) and, as a
// version tsop does not ship, the same files relabelled v0.27.0; requests are recorded.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const FIXTURE_RELEASES = fileURLToPath(new URL("../../olm-releases/", import.meta.url));
export const FIXTURE_VERSION = "v0.28.0";
/** A version that is not shipped in the package, so loading it downloads (or uses the cache). */
export const DOWNLOAD_VERSION = "v0.27.0";
const SERVED = [FIXTURE_VERSION, DOWNLOAD_VERSION];

/** The shipped manifests of FIXTURE_VERSION, relabelled as `version`. */
async function asset(version: string, name: string): Promise<string> {
  const text = await readFile(`${FIXTURE_RELEASES}${FIXTURE_VERSION}/${name}.yaml`, "utf8");
  return text.replace(/olm\.version: v?0\.28\.0/g, `olm.version: ${version.slice(1)}`);
}

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
      res.setHeader("location", `/releases/tag/${options.latest ?? DOWNLOAD_VERSION}`);
      res.end();
      return;
    }
    const m = /^\/releases\/download\/([^/]+)\/(crds|olm)\.yaml$/.exec(url);
    if (m && SERVED.includes(m[1]!)) {
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
      res.end(await asset(m[1]!, m[2]!));
      return;
    }
    const s = /^\/storage\/([^/]+)\/(crds|olm)\.yaml$/.exec(url);
    if (s) {
      res.end(await asset(s[1]!, s[2]!));
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
