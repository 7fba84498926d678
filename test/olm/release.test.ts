// Where OLM's manifests come from: the copy shipped in the package (pinned version, no network),
// release download (with redirects) and the per-version cache for other versions, "latest" through
// the releases/latest redirect, a local directory or URL, and bad inputs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { loadRelease, normalizeVersion } from "../../src/olm/release.js";
import { testdir } from "../support/testdir.js";
import { parseAllDocuments } from "yaml";
import { readFile } from "node:fs/promises";
import { OLM_VERSION } from "../../src/common/pins.js";
import { SHIPPED_RELEASES_DIR } from "../../src/olm/release.js";
import {
  DOWNLOAD_VERSION,
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
  it("loads the pinned version from the package: OLM's real manifests, no network, no cache", async () => {
    server = await startReleaseServer();
    const cacheDir = await testdir();
    for (const version of [undefined, "0.28.0", "v0.28.0"]) {
      const reporter = new MemoryReporter();
      const release = await loadRelease({ version, baseUrl: server.baseUrl, cacheDir, env: {}, reporter });
      expect(release).toMatchObject({ version: OLM_VERSION, origin: "shipped" });
      expect(reporter.text()).toContain(`Using OLM ${OLM_VERSION} manifests shipped with tsop`);
    }
    expect(server.requests).toEqual([]);
    expect(existsSync(join(cacheDir, "olm"))).toBe(false);
    // The real release: 8 CRDs, each with a structural schema for every version (not the permissive
    // preserve-unknown-fields stand-ins tsop used to test with).
    const crds = parseAllDocuments(
      await readFile(join(SHIPPED_RELEASES_DIR, OLM_VERSION, "crds.yaml"), "utf8"),
    )
      .map(
        (d) =>
          d.toJS() as {
            metadata: { name: string };
            spec: {
              versions: Array<{
                name: string;
                schema?: { openAPIV3Schema?: { properties?: { spec?: unknown } } };
              }>;
            };
          },
      )
      .filter(Boolean);
    expect(crds.map((c) => c.metadata.name).sort()).toEqual([
      "catalogsources.operators.coreos.com",
      "clusterserviceversions.operators.coreos.com",
      "installplans.operators.coreos.com",
      "olmconfigs.operators.coreos.com",
      "operatorconditions.operators.coreos.com",
      "operatorgroups.operators.coreos.com",
      "operators.operators.coreos.com",
      "subscriptions.operators.coreos.com",
    ]);
    for (const crd of crds) {
      for (const v of crd.spec.versions) {
        expect(v.schema?.openAPIV3Schema?.properties?.spec, `${crd.metadata.name} ${v.name}`).toBeDefined();
      }
    }
  });

  it("downloads another version once, then serves it from the cache without the network", async () => {
    server = await startReleaseServer();
    const cacheDir = await testdir();
    const reporter = new MemoryReporter();
    const first = await loadRelease({
      version: DOWNLOAD_VERSION.slice(1),
      baseUrl: server.baseUrl,
      cacheDir,
      env: {},
      reporter,
    });
    expect(first.version).toBe(DOWNLOAD_VERSION);
    expect(first.origin).toBe("download");
    expect(first.crds.map((c) => c.metadata.name)).toContain("clusterserviceversions.operators.coreos.com");
    expect(first.resources[0]).toMatchObject({ kind: "Namespace", metadata: { name: "olm" } });
    expect(existsSync(join(cacheDir, "olm", DOWNLOAD_VERSION, "crds.yaml"))).toBe(true);
    const downloads = server.requests.length;
    await server.close();
    server = undefined;
    const second = await loadRelease({
      version: DOWNLOAD_VERSION,
      baseUrl: "http://127.0.0.1:9/releases",
      cacheDir,
      env: {},
      reporter,
    });
    expect(second.origin).toBe("cache");
    expect(second.resources).toEqual(first.resources);
    expect(downloads).toBeGreaterThanOrEqual(2);
    expect(reporter.text()).toContain(`Using cached OLM ${DOWNLOAD_VERSION} manifests`);
  });

  it("offline (status) never downloads: a version neither shipped nor cached is an error naming both", async () => {
    server = await startReleaseServer();
    const cacheDir = await testdir();
    const offline = {
      baseUrl: server.baseUrl,
      cacheDir,
      env: {},
      offline: true,
      reporter: new MemoryReporter(),
    };
    await expect(loadRelease({ ...offline, version: DOWNLOAD_VERSION })).rejects.toThrow(
      `OLM ${DOWNLOAD_VERSION}'s manifests are neither shipped with tsop nor cached in ${join(cacheDir, "olm", DOWNLOAD_VERSION)}`,
    );
    await expect(loadRelease({ ...offline, version: "latest" })).rejects.toThrow(
      /"latest" needs the network/,
    );
    expect((await loadRelease({ ...offline })).origin).toBe("shipped");
    expect(server.requests).toEqual([]);
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
    expect(release.version).toBe(DOWNLOAD_VERSION);
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

  it("reads YAML files joined by commas (any names, any split): CRDs told apart by kind", async () => {
    const dir = `${FIXTURE_RELEASES}${FIXTURE_VERSION}`;
    const crds = await readFile(join(dir, "crds.yaml"), "utf8");
    const olm = await readFile(join(dir, "olm.yaml"), "utf8");
    const shipped = await loadRelease({ manifests: dir, env: {}, reporter: new MemoryReporter() });
    // One file holding everything, and two files under other names with the order swapped.
    const files = await testdir({ "all.yaml": `${olm}\n---\n${crds}`, "a.yaml": olm, "b.yaml": crds });
    const reporter = new MemoryReporter();
    const one = await loadRelease({ manifests: join(files, "all.yaml"), env: {}, reporter });
    expect(one).toMatchObject({ version: "v0.28.0", origin: "files", location: join(files, "all.yaml") });
    expect(reporter.text()).toContain(`Using OLM v0.28.0 manifests from ${join(files, "all.yaml")}`);
    const two = await loadRelease({ manifests: "a.yaml,b.yaml", cwd: files, env: {}, reporter });
    expect(two.location).toBe(`${join(files, "a.yaml")},${join(files, "b.yaml")}`);
    for (const release of [one, two]) {
      expect(release.crds).toEqual(shipped.crds);
      expect(release.resources).toEqual(shipped.resources);
    }
    await expect(
      loadRelease({ manifests: join(files, "a.yaml"), env: {}, reporter: new MemoryReporter() }),
    ).rejects.toThrow(`${join(files, "a.yaml")}: holds no CustomResourceDefinitions`);
    await expect(
      loadRelease({
        manifests: `${join(files, "b.yaml")},${files}`,
        env: {},
        reporter: new MemoryReporter(),
      }),
    ).rejects.toThrow(`--manifests lists several paths, and ${files} is a directory`);
    await expect(
      loadRelease({ manifests: join(files, "missing.yaml"), env: {}, reporter: new MemoryReporter() }),
    ).rejects.toThrow(`cannot read ${join(files, "missing.yaml")}: ENOENT`);
  });

  it("fails clearly on a missing release, a missing file, bad YAML and a bad version, caching nothing", async () => {
    server = await startReleaseServer({ broken: true });
    const cacheDir = await testdir();
    const opts = { baseUrl: server.baseUrl, cacheDir, env: {}, reporter: new MemoryReporter() };
    await expect(loadRelease({ ...opts, version: "v0.99.0" })).rejects.toThrow(
      /OLM release v0.99.0 has no asset at .*crds\.yaml \(404\)/,
    );
    await expect(loadRelease({ ...opts, version: DOWNLOAD_VERSION })).rejects.toThrow(
      /olm\.yaml: document 1 is not valid YAML/,
    );
    expect(existsSync(join(cacheDir, "olm", DOWNLOAD_VERSION))).toBe(false);
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
