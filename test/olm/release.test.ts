// Where OLM's manifests come from: release download (with redirects) and the per-version cache,
// "latest" through the releases/latest redirect, a local directory or URL, and bad inputs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { loadRelease, normalizeVersion } from "../../src/olm/release.js";
import { testdir } from "../support/testdir.js";
import {
  FIXTURE_RELEASES,
  FIXTURE_VERSION,
  type ReleaseServer,
  startReleaseServer,
} from "./release-server.js";

let server: ReleaseServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("OLM release manifests", () => {
  it("downloads a version once, then serves it from the cache without the network", async () => {
    server = await startReleaseServer();
    const cacheDir = await testdir();
    const reporter = new MemoryReporter();
    const first = await loadRelease({
      version: "0.28.0",
      baseUrl: server.baseUrl,
      cacheDir,
      env: {},
      reporter,
    });
    expect(first.version).toBe("v0.28.0");
    expect(first.origin).toBe("download");
    expect(first.crds.map((c) => c.metadata.name)).toContain("clusterserviceversions.operators.coreos.com");
    expect(first.resources[0]).toMatchObject({ kind: "Namespace", metadata: { name: "olm" } });
    expect(existsSync(join(cacheDir, "olm", "v0.28.0", "crds.yaml"))).toBe(true);
    const downloads = server.requests.length;
    await server.close();
    server = undefined;
    const second = await loadRelease({
      version: "v0.28.0",
      baseUrl: "http://127.0.0.1:9/releases",
      cacheDir,
      env: {},
      reporter,
    });
    expect(second.origin).toBe("cache");
    expect(second.resources).toEqual(first.resources);
    expect(downloads).toBeGreaterThanOrEqual(2);
    expect(reporter.text()).toContain("Using cached OLM v0.28.0 manifests");
  });

  it('resolves "latest" through the releases/latest redirect and records the concrete version', async () => {
    server = await startReleaseServer();
    const release = await loadRelease({
      version: "latest",
      baseUrl: server.baseUrl,
      cacheDir: await testdir(),
      env: {},
      reporter: new MemoryReporter(),
    });
    expect(release.version).toBe(FIXTURE_VERSION);
    expect(server.requests[0]).toBe("/releases/latest");
    expect(server.requests.some((r) => r.includes("api.github.com"))).toBe(false);
  });

  it("reads a local directory or URL for offline use, taking the version from the packageserver CSV", async () => {
    const dir = `${FIXTURE_RELEASES}${FIXTURE_VERSION}`;
    const fromDir = await loadRelease({ manifests: dir, env: {}, reporter: new MemoryReporter() });
    expect(fromDir).toMatchObject({ version: "v0.28.0", origin: "directory" });
    await expect(
      loadRelease({ manifests: dir, version: "0.27.0", env: {}, reporter: new MemoryReporter() }),
    ).rejects.toThrow(
      /olm\.yaml is OLM v0\.28\.0 \(the packageserver CSV's olm\.version label\), not v0\.27\.0/,
    );
    server = await startReleaseServer();
    const fromUrl = await loadRelease({
      manifests: `${server.baseUrl}/download/${FIXTURE_VERSION}`,
      env: {},
      reporter: new MemoryReporter(),
    });
    expect(fromUrl).toMatchObject({ version: "v0.28.0", origin: "url" });
  });

  it("fails clearly on a missing release, a missing file, bad YAML and a bad version, caching nothing", async () => {
    server = await startReleaseServer({ broken: true });
    const cacheDir = await testdir();
    const opts = { baseUrl: server.baseUrl, cacheDir, env: {}, reporter: new MemoryReporter() };
    await expect(loadRelease({ ...opts, version: "v0.99.0" })).rejects.toThrow(
      /OLM release v0.99.0 has no asset at .*crds\.yaml \(404\)/,
    );
    await expect(loadRelease({ ...opts, version: "v0.28.0" })).rejects.toThrow(
      /olm\.yaml: document 1 is not valid YAML/,
    );
    expect(existsSync(join(cacheDir, "olm", "v0.28.0"))).toBe(false);
    const empty = await testdir({ "crds.yaml": "" });
    await expect(loadRelease({ manifests: empty, env: {}, reporter: new MemoryReporter() })).rejects.toThrow(
      /olm\.yaml is missing from/,
    );
    expect(() => normalizeVersion("0.28")).toThrow(/"0.28" is not an OLM version/);
    const noLatest = await startReleaseServer({ latest: "" });
    try {
      await expect(
        loadRelease({ ...opts, baseUrl: `${noLatest.baseUrl}/nothing`, version: "latest" }),
      ).rejects.toThrow(/cannot resolve the latest OLM release/);
    } finally {
      await noLatest.close();
    }
  });
});
