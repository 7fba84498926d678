// $TSOP_REGISTRY_MIRRORS: pulls of a mirrored name go to the mirror first, then to the source, and
// keep the source's name. The oracle is skopeo reading a containers registries.conf with the same
// mirror: the digest tsop pins is the digest skopeo (as a node's container runtime would) pulls.
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AggregateTsopError, UsageError } from "../../src/common/errors.js";
import { MemoryReporter } from "../../src/common/reporter.js";
import { pinBundleImages } from "../../src/oci/pin.js";
import { RegistryError } from "../../src/oci/errors.js";
import { parseMirrors, pullLocations } from "../../src/oci/mirrors.js";
import { resolveDigests } from "../../src/oci/resolve.js";
import { pullBundleImage } from "../../src/oci/pull.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

describe("parseMirrors and pullLocations", () => {
  it("maps a registry or a repository prefix onto the mirror's path, longest prefix first, the source last", () => {
    const mirrors = parseMirrors(
      "docker.io=m.example:5000/hub, docker.io/nginxinc=127.0.0.1:5000/docker.io/nginxinc\nindex.docker.io=second.example",
    );
    expect(mirrors).toEqual([
      { source: "docker.io", mirror: "m.example:5000/hub" },
      { source: "docker.io/nginxinc", mirror: "127.0.0.1:5000/docker.io/nginxinc" },
      { source: "docker.io", mirror: "second.example" },
    ]);
    expect(pullLocations(mirrors, "docker.io", "nginxinc/nginx-unprivileged")).toEqual([
      {
        registry: "127.0.0.1:5000",
        repository: "docker.io/nginxinc/nginx-unprivileged",
        mirror: "127.0.0.1:5000/docker.io/nginxinc/nginx-unprivileged",
      },
      {
        registry: "m.example:5000",
        repository: "hub/nginxinc/nginx-unprivileged",
        mirror: "m.example:5000/hub/nginxinc/nginx-unprivileged",
      },
      {
        registry: "second.example",
        repository: "nginxinc/nginx-unprivileged",
        mirror: "second.example/nginxinc/nginx-unprivileged",
      },
      { registry: "docker.io", repository: "nginxinc/nginx-unprivileged" },
    ]);
    // A prefix matches whole path components only; other registries are not mirrored.
    expect(pullLocations(mirrors, "docker.io", "nginxincx/app").map((l) => l.registry)).toEqual([
      "m.example:5000",
      "second.example",
      "docker.io",
    ]);
    expect(pullLocations(mirrors, "quay.io", "org/app")).toEqual([
      { registry: "quay.io", repository: "org/app" },
    ]);
    expect(parseMirrors(undefined)).toEqual([]);
    expect(parseMirrors("  ")).toEqual([]);
  });

  it.each([
    ["docker.io", "is not <source>=<mirror>"],
    ["=127.0.0.1:5000", "is not <source>=<mirror>"],
    ["nginxinc=127.0.0.1:5000", '"nginxinc" does not start with a registry host'],
    ["docker.io=127.0.0.1:5000/hub:1.0", "names a tag or digest"],
    ["docker.io/app@sha256:abc=127.0.0.1:5000", "names a tag or digest"],
    ["docker.io=127.0.0.1:5000/Hub", "must be lowercase"],
  ])("refuses %s, naming the variable and the entry", (value, why) => {
    let error: unknown;
    try {
      parseMirrors(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(`TSOP_REGISTRY_MIRRORS: "${value}`);
    expect((error as Error).message).toContain(why);
    expect((error as UsageError).hint).toContain("<source>=<mirror>");
  });
});

describe("pulls through a mirror on a real registry", () => {
  let registry: TestRegistry;
  let digest: string;
  let registriesConf: string;
  let confDir: string;
  // The source is unreachable (.invalid never resolves), as docker.io is on a disconnected machine.
  const SOURCE = "registry.invalid/team/app:1.0";

  beforeAll(async () => {
    registry = await startRegistry();
    digest = await pushTestImage(registry, "mirror/team/app", "1.0", {
      layers: [[{ path: "manifests/a.yaml", content: "kind: ConfigMap\n" }]],
    });
    confDir = await testdir({}, { keep: true });
    registriesConf = join(confDir, "registries.conf");
    await writeFile(
      registriesConf,
      `[[registry]]\nlocation = "registry.invalid/team"\n[[registry.mirror]]\nlocation = "${registry.host}/mirror/team"\ninsecure = true\n`,
    );
  }, 60_000);
  afterAll(async () => {
    await registry?.stop();
    if (confDir) await rm(confDir, { recursive: true, force: true });
  });

  const env = () => ({ TSOP_REGISTRY_MIRRORS: `registry.invalid/team=${registry.host}/mirror/team` });

  it("resolves the source's name to the digest skopeo pulls through the same mirror", async () => {
    // --raw: the manifest as pulled (a plain inspect also lists tags, which asks the source only).
    const { stdout } = await execa(
      "skopeo",
      ["inspect", "--raw", "--registries-conf", registriesConf, `docker://${SOURCE}`],
      { stripFinalNewline: false },
    );
    expect(`sha256:${createHash("sha256").update(stdout).digest("hex")}`).toBe(digest);
    const [resolved] = await resolveDigests([SOURCE], { env: env(), retries: 0 });
    expect(resolved).toEqual({ reference: SOURCE, canonical: SOURCE, digest });
  });

  it("pulls manifests and blobs through it (pullBundleImage)", async () => {
    const dir = join(await testdir(), "pulled");
    await pullBundleImage(`registry.invalid/team/app@${digest}`, dir, { env: env(), retries: 0 });
    expect(await readFile(join(dir, "manifests/a.yaml"), "utf8")).toBe("kind: ConfigMap\n");
  });

  it("falls back to the source when the mirror lacks the image, and the error names both", async () => {
    const [resolved] = await resolveDigests(["registry.invalid/team/other:2"], { env: env(), retries: 0 });
    const error = (resolved as { error: Error }).error;
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).kind).toBe("network");
    expect(error.message).toMatch(/cannot reach registry\.invalid/);
    expect(error.message).toContain(`mirror ${registry.host}/mirror/team/other: image`);
    expect(error.message).toMatch(/not found/);
  });

  const deployment = (image: string) => ({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name: "site-operator.v0.0.1" },
    spec: {
      install: {
        strategy: "deployment",
        spec: {
          deployments: [
            { name: "site", spec: { template: { spec: { containers: [{ name: "site", image }] } } } },
          ],
        },
      },
    },
  });

  it("--use-image-digests pins the source's name at the mirror's digest; without the mirror, the hint names it", async () => {
    const pinned = await pinBundleImages([deployment(SOURCE)], {
      env: env(),
      retries: 0,
      reporter: new MemoryReporter(),
    });
    expect(pinned.pinned).toEqual([{ from: SOURCE, to: `registry.invalid/team/app@${digest}` }]);
    let error: unknown;
    try {
      await pinBundleImages([deployment(SOURCE)], { env: {}, retries: 0, reporter: new MemoryReporter() });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toContain("cannot pin the bundle's images");
    expect((error as AggregateTsopError).hint).toContain(
      "registry.invalid out of reach (a disconnected machine)? Read its images from a mirror that holds them, " +
        "as your cluster's nodes do: TSOP_REGISTRY_MIRRORS=registry.invalid=<mirror registry>/registry.invalid",
    );
  });

  it("without the mirror the source is asked, and fails", async () => {
    const [resolved] = await resolveDigests([SOURCE], { env: {}, retries: 0 });
    expect((resolved as { error: Error }).error.message).toMatch(/cannot reach registry\.invalid/);
  });
});
