// The operator image's CycloneDX SBOM: the lockfile's production packages (no dev, no links, no
// optional packages for another platform), licences, integrity hashes in hex, the base by digest;
// valid against the official CycloneDX 1.6 JSON schema (the copy @cyclonedx/cyclonedx-library
// ships); the same inputs give the same bytes. Its attachment (referrer + cosign's .sbom tag) is
// checked against the real registry here and read by cosign in cosign.real.test.ts.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/oci/client.js";
import { parseReference } from "../../src/oci/reference.js";
import { attachSbom } from "../../src/oci/sbom/attach.js";
import { catalogSbom } from "../../src/oci/sbom/bundle.js";
import { CYCLONEDX_MEDIA_TYPE, cyclonedxSbom, productionPackages } from "../../src/oci/sbom/cyclonedx.js";
import { pushBundle } from "../../src/oci/push.js";
import { silentReporter } from "../../src/common/reporter.js";
import { testdir } from "../support/testdir.js";
import { pushTestImage, skopeoInspectRaw, startRegistry, type TestRegistry } from "../support/registry.js";

/** The official CycloneDX 1.6 JSON schema (the copy @cyclonedx/cyclonedx-library ships), compiled. */
function cyclonedxValidator() {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve("@cyclonedx/cyclonedx-library/package.json"));
  const schema = (name: string) =>
    JSON.parse(readFileSync(join(dir, "res", "schema", name), "utf8")) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  // The library's copy refers to its neighbours by their file names.
  for (const name of ["spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"]) {
    ajv.addSchema({ ...schema(name), $id: `http://cyclonedx.org/schema/${name}` });
  }
  return ajv.compile(schema("bom-1.6.SNAPSHOT.schema.json"));
}

const sha512 = (fill: string) => `sha512-${Buffer.alloc(64, fill).toString("base64")}`;

const LOCK = JSON.stringify({
  name: "memcached-operator",
  version: "0.0.1",
  lockfileVersion: 3,
  packages: {
    "": { name: "memcached-operator", version: "0.0.1" },
    "node_modules/tsop": { version: "0.1.0", license: "Apache-2.0", integrity: sha512("a") },
    "node_modules/yaml": { version: "2.9.1", license: "ISC", integrity: sha512("b") },
    "node_modules/@kubernetes/client-node": {
      version: "1.4.0",
      license: "Apache-2.0",
      integrity: sha512("c"),
    },
    "node_modules/tsop/node_modules/yaml": { version: "2.9.1", license: "ISC", integrity: sha512("b") },
    "node_modules/vitest": { version: "4.1.12", dev: true, license: "MIT" },
    "node_modules/local-lib": { version: "1.0.0", link: true },
    "node_modules/@esbuild/darwin-arm64": {
      version: "0.28.2",
      optional: true,
      os: ["darwin"],
      cpu: ["arm64"],
    },
    "node_modules/@esbuild/linux-x64": { version: "0.28.2", optional: true, os: ["linux"], cpu: ["x64"] },
  },
});

const input = {
  lockfile: LOCK,
  lockfilePath: "/p/package-lock.json",
  project: { name: "memcached-operator", version: "0.0.1" },
  base: { repository: "gcr.io/distroless/nodejs20-debian12", digest: `sha256:${"d".repeat(64)}` },
  platform: { os: "linux", cpu: "x64" },
  tool: { version: "0.1.0" },
};

describe("CycloneDX SBOM", () => {
  it("lists every production package once, with licence, hash and purl", () => {
    const packages = productionPackages(input);
    expect(packages.map((p) => p.purl)).toEqual([
      "pkg:npm/%40esbuild/linux-x64@0.28.2",
      "pkg:npm/%40kubernetes/client-node@1.4.0",
      "pkg:npm/tsop@0.1.0",
      "pkg:npm/yaml@2.9.1",
    ]);
    expect(packages.find((p) => p.name === "client-node")).toEqual({
      type: "library",
      "bom-ref": "pkg:npm/%40kubernetes/client-node@1.4.0",
      group: "@kubernetes",
      name: "client-node",
      version: "1.4.0",
      purl: "pkg:npm/%40kubernetes/client-node@1.4.0",
      licenses: [{ expression: "Apache-2.0" }],
      hashes: [{ alg: "SHA-512", content: "63".repeat(64) }],
    });
    // Another platform's optional packages are the ones npm installs there.
    expect(
      productionPackages({ ...input, platform: { os: "darwin", cpu: "arm64" } }).map((p) => p.name),
    ).toContain("darwin-arm64");
  });

  it("is valid CycloneDX 1.6 (the official JSON schema) and deterministic", () => {
    const bom = cyclonedxSbom(input);
    const validate = cyclonedxValidator();
    const parsed = JSON.parse(bom.toString()) as Record<string, unknown> & {
      serialNumber: string;
      components: Array<{ type: string; version: string }>;
      metadata: Record<string, unknown>;
    };
    expect(validate(parsed), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(parsed.components[0]).toMatchObject({ type: "container", version: input.base.digest });
    expect(parsed.metadata.timestamp).toBeUndefined();

    expect(cyclonedxSbom(input).equals(bom)).toBe(true);
    const changed = JSON.parse(
      cyclonedxSbom({ ...input, lockfile: LOCK.replace('"2.9.1"', '"2.9.2"') }).toString(),
    ) as { serialNumber: string };
    expect(changed.serialNumber).not.toBe(parsed.serialNumber);
    expect(JSON.parse(cyclonedxSbom({ ...input, epoch: 1700000000 }).toString())).toMatchObject({
      metadata: { timestamp: "2023-11-14T22:13:20.000Z" },
    });
  });

  it("names the lockfile when it cannot be read", () => {
    expect(() => productionPackages({ ...input, lockfile: "{" })).toThrow("/p/package-lock.json is not JSON");
    expect(() => productionPackages({ ...input, lockfile: '{"lockfileVersion":1}' })).toThrow(
      '/p/package-lock.json has no "packages" (lockfileVersion 1)',
    );
  });
});

describe("SBOM attachment in the real registry (no referrers API)", () => {
  let registry: TestRegistry;
  let client: RegistryClient;
  beforeAll(async () => {
    registry = await startRegistry({ tls: true });
    client = new RegistryClient({ caFile: registry.caFile!, env: { PATH: process.env.PATH }, retries: 1 });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await registry?.stop();
  });

  it("pushes an artifact manifest with subject, the sha256-<hex> referrers index and cosign's .sbom tag", async () => {
    const digest = await pushTestImage(registry, "team/op", "v1");
    const ref = parseReference(`${registry.host}/team/op:v1`);
    const subject = await client.getManifest(ref);
    const sbom = cyclonedxSbom(input);
    const descriptor = { mediaType: subject.mediaType, digest, size: subject.size };
    const attached = await attachSbom(client, ref, descriptor, sbom, CYCLONEDX_MEDIA_TYPE);
    const hex = digest.slice("sha256:".length);
    expect(attached.tags).toEqual([`sha256-${hex}`, `sha256-${hex}.sbom`]);

    const artifact = JSON.parse(await skopeoInspectRaw(registry, `team/op@${attached.digest}`)) as {
      artifactType: string;
      subject: { digest: string };
      layers: Array<{ mediaType: string; digest: string }>;
    };
    expect(artifact.artifactType).toBe(CYCLONEDX_MEDIA_TYPE);
    expect(artifact.subject.digest).toBe(digest);
    expect(artifact.layers).toHaveLength(1);
    expect(artifact.layers[0]!.mediaType).toBe(CYCLONEDX_MEDIA_TYPE);
    const index = JSON.parse(await skopeoInspectRaw(registry, `team/op:sha256-${hex}`)) as {
      manifests: Array<{ digest: string; artifactType: string }>;
    };
    expect(index.manifests).toEqual([
      expect.objectContaining({ digest: attached.digest, artifactType: CYCLONEDX_MEDIA_TYPE }),
    ]);
    // Attaching again (a rebuild of the same image) does not list the artifact twice.
    await attachSbom(client, ref, descriptor, sbom, CYCLONEDX_MEDIA_TYPE);
    const again = JSON.parse(await skopeoInspectRaw(registry, `team/op:sha256-${hex}`)) as {
      manifests: unknown[];
    };
    expect(again.manifests).toHaveLength(1);
    const cosignTag = JSON.parse(await skopeoInspectRaw(registry, `team/op:sha256-${hex}.sbom`)) as unknown;
    expect(cosignTag).toEqual(artifact);
  });
});

interface Bom {
  metadata: { component: { name: string; version: string } };
  components: Array<{
    type: string;
    name: string;
    version?: string;
    purl?: string;
    hashes?: Array<{ content: string }>;
  }>;
  dependencies: Array<{ ref: string; dependsOn: string[] }>;
}

const FIXTURE = fileURLToPath(new URL("./fixtures/bundle", import.meta.url));
const MIGRATE_DIGEST = `sha256:${"e".repeat(64)}`;

/** The fixture bundle with its images on quay.io, the init container's by digest. */
async function bundleDir(): Promise<string> {
  const dir = join(await testdir(), "bundle");
  await cp(FIXTURE, dir, { recursive: true });
  const csv = join(dir, "manifests", "memcached-operator.clusterserviceversion.yaml");
  const text = (await readFile(csv, "utf8"))
    .replaceAll("REGISTRY/example/migrate:v1", `REGISTRY/example/migrate@${MIGRATE_DIGEST}`)
    .replaceAll("REGISTRY", "quay.io");
  await writeFile(csv, text);
  return dir;
}

/** Every file under `dir`, relative, with its sha256 hex: the listing the SBOM is compared with. */
async function filesBySha(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    result[relative(dir, full)] = createHash("sha256")
      .update(await readFile(full))
      .digest("hex");
  }
  return result;
}

describe("bundle and catalog image SBOMs", () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ tls: true });
  }, 30_000);
  afterAll(() => registry?.stop());

  async function attachedSbom(repository: string, digest: string): Promise<Buffer> {
    const client = new RegistryClient({ caFile: registry.caFile!, env: { PATH: process.env.PATH } });
    try {
      const tag = `${digest.replace(":", "-")}.sbom`;
      const found = await client.getManifest(parseReference(`${registry.host}/${repository}:${tag}`));
      const layer = (found.json as { layers: Array<{ digest: string; size: number; mediaType: string }> })
        .layers[0]!;
      return await client.getBlob(registry.host, repository, layer, 1 << 20);
    } finally {
      client.close();
    }
  }

  it("bundle push attaches one: every file by SHA-256, every image the CSV names (by digest where it has one)", async () => {
    const dir = await bundleDir();
    const options = {
      dir,
      caFile: registry.caFile!,
      env: { PATH: process.env.PATH },
      reporter: silentReporter,
    };
    const pushed = await pushBundle(`${registry.host}/team/op-bundle:v1`, options);
    expect(pushed.sbom.attached).toMatch(/^sha256:/);
    const bytes = await attachedSbom("team/op-bundle", pushed.digest);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(pushed.sbom.digest.slice(7));
    const bom = JSON.parse(bytes.toString()) as Bom;
    const validate = cyclonedxValidator();
    expect(validate(bom), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(bom.metadata.component).toMatchObject({ name: `${registry.host}/team/op-bundle`, version: "v1" });

    const files = Object.fromEntries(
      bom.components.filter((c) => c.type === "file").map((c) => [c.name, c.hashes![0]!.content]),
    );
    expect(files).toEqual(await filesBySha(dir));
    // The CSV's images, read off the fixture by hand: init container, containers, RELATED_IMAGE_*,
    // relatedImages, the containerImage annotation; an image in an argument is not one.
    const images = bom.components.filter((c) => c.type === "container");
    expect(images.map((c) => [c.name, c.version])).toEqual([
      ["quay.io/brancz/kube-rbac-proxy", "v0.18.0"],
      ["quay.io/cache/memcached", "1.6"],
      ["quay.io/example/memcached-operator", "v0.0.1"],
      ["quay.io/example/migrate", MIGRATE_DIGEST],
      ["quay.io/tools/backup", "latest"],
      ["quay.io/tools/exporter", "2.0"],
    ]);
    expect(images.find((c) => c.version === MIGRATE_DIGEST)).toMatchObject({
      purl: `pkg:oci/migrate@sha256%3A${"e".repeat(64)}?repository_url=quay.io%2Fexample%2Fmigrate`,
      hashes: [{ alg: "SHA-256", content: "e".repeat(64) }],
    });
    expect(bom.dependencies[0]!.dependsOn).toHaveLength(6);

    // Pushed again: the same bytes; --no-sbom: nothing attached.
    expect((await pushBundle(`${registry.host}/team/op-bundle:v1`, options)).sbom.digest).toBe(
      pushed.sbom.digest,
    );
    const bare = await pushBundle(`${registry.host}/team/bare-bundle:v1`, { ...options, sbom: false });
    expect(bare.sbom.attached).toBeUndefined();
    await expect(attachedSbom("team/bare-bundle", bare.digest)).rejects.toThrow();
  });

  it("a catalog's lists its base by digest, its files and each bundle image, valid and deterministic", () => {
    const make = () =>
      catalogSbom({
        subject: { repository: "quay.io/me/op-catalog", tag: "v1" },
        base: { repository: "quay.io/operator-framework/opm", digest: `sha256:${"a".repeat(64)}` },
        bundleImages: [`quay.io/me/op-bundle@sha256:${"b".repeat(64)}`, "quay.io/me/op-bundle:v0.0.2"],
        files: [{ path: "configs/op/catalog.yaml", digest: `sha256:${"c".repeat(64)}` }],
        tool: { version: "0.1.0" },
      });
    const bytes = make();
    expect(make().equals(bytes)).toBe(true);
    const bom = JSON.parse(bytes.toString()) as Bom;
    const validate = cyclonedxValidator();
    expect(validate(bom), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(bom.components.map((c) => [c.type, c.name, c.version ?? null])).toEqual([
      ["container", "quay.io/me/op-bundle", "v0.0.2"],
      ["container", "quay.io/me/op-bundle", `sha256:${"b".repeat(64)}`],
      ["container", "quay.io/operator-framework/opm", `sha256:${"a".repeat(64)}`],
      ["file", "configs/op/catalog.yaml", null],
    ]);
  });
});
