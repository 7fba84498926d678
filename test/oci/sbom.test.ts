// The operator image's CycloneDX SBOM: the lockfile's production packages (no dev, no links, no
// optional packages for another platform), licences, integrity hashes in hex, the base by digest;
// valid against the official CycloneDX 1.6 JSON schema (the copy @cyclonedx/cyclonedx-library
// ships); the same inputs give the same bytes. Its attachment (referrer + cosign's .sbom tag) is
// checked against the real registry here and read by cosign in cosign.real.test.ts.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/oci/client.js";
import { parseReference } from "../../src/oci/reference.js";
import { attachSbom } from "../../src/oci/sbom/attach.js";
import { CYCLONEDX_MEDIA_TYPE, cyclonedxSbom, productionPackages } from "../../src/oci/sbom/cyclonedx.js";
import { pushTestImage, skopeoInspectRaw, startRegistry, type TestRegistry } from "../support/registry.js";

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
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve("@cyclonedx/cyclonedx-library/package.json"));
    const schema = (name: string) =>
      JSON.parse(readFileSync(join(dir, "res", "schema", name), "utf8")) as Record<string, unknown>;
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    // The library's copy refers to its neighbours by their file names.
    for (const name of ["spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"]) {
      ajv.addSchema({ ...schema(name), $id: `http://cyclonedx.org/schema/${name}` });
    }
    const validate = ajv.compile(schema("bom-1.6.SNAPSHOT.schema.json"));
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
