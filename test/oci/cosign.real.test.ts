// cosign as the oracle of tsop's supply-chain formats, against a real registry (Debian's
// docker-registry, TLS) on 127.0.0.1: cosign verifies what tsop signed with a tsop key, tsop
// verifies what cosign signed with a cosign key, each reads the other's key files, and the
// refusals agree (wrong key); cosign reads the SBOMs tsop attaches to the bundle and catalog images
// it pushes, and `cosign verify-attestation --type slsaprovenance1` verifies the SLSA provenance
// `--sign` attests. No Rekor or Fulcio: key-based only, transparency log off.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/oci/client.js";
import { parseReference } from "../../src/oci/reference.js";
import { attachSbom } from "../../src/oci/sbom/attach.js";
import { CYCLONEDX_MEDIA_TYPE, cyclonedxSbom } from "../../src/oci/sbom/cyclonedx.js";
import { runTsop } from "../support/cli.js";
import { rigBinary } from "../support/rig.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";

let registry: TestRegistry;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  dir = await mkdtemp(join(tmpdir(), "tsop-cosign-"));
  env = {
    HOME: dir,
    // Go and tsop both trust the registry's CA through SSL_CERT_FILE.
    SSL_CERT_FILE: registry.caFile!,
    COSIGN_PASSWORD: "pw-for-tests",
    COSIGN_YES: "true",
    TUF_ROOT: join(dir, "tuf"),
  };
  await runOk(["image", "keygen", "--output-key-prefix", join(dir, "tsop")]);
  const generated = await execa(rigBinary("cosign"), ["generate-key-pair"], { cwd: dir, env, reject: false });
  expect(generated.exitCode, generated.stderr).toBe(0);
});

afterAll(async () => {
  await registry?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function runOk(args: string[]): Promise<string> {
  const result = await runTsop(args, { cwd: dir, env });
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout.trim();
}

function cosign(args: string[]) {
  return execa(rigBinary("cosign"), args, { cwd: dir, env, reject: false, stripFinalNewline: false });
}

const verifyFlags = ["--insecure-ignore-tlog=true", "--insecure-ignore-sct=true"];

describe("signatures", () => {
  it("cosign verifies an image tsop signed with a tsop key; the wrong key is refused by both", async () => {
    const digest = await pushTestImage(registry, "team/op", "v1");
    const image = `${registry.host}/team/op:v1`;
    expect(await runOk(["image", "sign", image, "--key", "tsop.key"])).toBe(
      `${registry.host}/team/op@${digest}`,
    );

    const verified = await cosign(["verify", "--key", "tsop.pub", ...verifyFlags, image]);
    expect(verified.exitCode, verified.stderr).toBe(0);
    const [claim] = JSON.parse(verified.stdout) as Array<{ critical: { image: Record<string, string> } }>;
    expect(claim!.critical.image["docker-manifest-digest"]).toBe(digest);

    const wrong = await cosign(["verify", "--key", "cosign.pub", ...verifyFlags, image]);
    expect(wrong.exitCode).not.toBe(0);
    const tsopWrong = await runTsop(["image", "verify", image, "--key", "cosign.pub"], { cwd: dir, env });
    expect(tsopWrong.exitCode).toBe(1);
    expect(tsopWrong.stderr).toContain(`${registry.host}/team/op@${digest} does not verify`);
  });

  it("tsop verifies an image cosign signed with a cosign key, and signs with that key for cosign", async () => {
    const digest = await pushTestImage(registry, "team/other", "v1", {
      layers: [[{ path: "hello.txt", content: "signed by cosign" }]],
    });
    const image = `${registry.host}/team/other@${digest}`;
    const signed = await cosign(["sign", "--key", "cosign.key", "--tlog-upload=false", image]);
    expect(signed.exitCode, signed.stderr).toBe(0);
    expect(await runOk(["image", "verify", image, "--key", "cosign.pub"])).toBe(image);
    const tsopWrong = await runTsop(["image", "verify", image, "--key", "tsop.pub"], { cwd: dir, env });
    expect(tsopWrong.exitCode).toBe(1);
    expect(tsopWrong.stderr).toContain("none of its 1 signature(s) verifies with this public key");

    // tsop adds a signature with cosign's own key file: now two, and cosign accepts them.
    await runOk(["image", "sign", image, "--key", "cosign.key"]);
    const verified = await cosign(["verify", "--key", "cosign.pub", ...verifyFlags, image]);
    expect(verified.exitCode, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toHaveLength(2);
  });

  it("cosign refuses an image tsop never signed, as tsop does", async () => {
    await pushTestImage(registry, "team/unsigned", "v1");
    const image = `${registry.host}/team/unsigned:v1`;
    expect((await cosign(["verify", "--key", "tsop.pub", ...verifyFlags, image])).exitCode).not.toBe(0);
    const tsop = await runTsop(["image", "verify", image, "--key", "tsop.pub"], { cwd: dir, env });
    expect(tsop.exitCode).toBe(1);
    expect(tsop.stderr).toContain("no signature");
  });
});

describe("SBOM", () => {
  it("cosign download sbom reads the SBOM tsop attached, byte for byte", async () => {
    const digest = await pushTestImage(registry, "team/sbom", "v1");
    const ref = parseReference(`${registry.host}/team/sbom:v1`);
    const sbom = cyclonedxSbom({
      lockfile: JSON.stringify({
        lockfileVersion: 3,
        packages: { "": {}, "node_modules/yaml": { version: "2.9.1", license: "ISC" } },
      }),
      lockfilePath: "package-lock.json",
      project: { name: "op", version: "0.0.1" },
      base: { repository: `${registry.host}/base`, digest: `sha256:${"b".repeat(64)}` },
      platform: { os: "linux", cpu: "x64" },
      tool: { version: "0.1.0" },
    });
    const client = new RegistryClient({ caFile: registry.caFile!, env: { PATH: process.env.PATH } });
    try {
      const subject = await client.getManifest(ref);
      await attachSbom(
        client,
        ref,
        { mediaType: subject.mediaType, digest, size: subject.size },
        sbom,
        CYCLONEDX_MEDIA_TYPE,
      );
    } finally {
      client.close();
    }
    const downloaded = await cosign(["download", "sbom", `${registry.host}/team/sbom@${digest}`]);
    expect(downloaded.exitCode, downloaded.stderr).toBe(0);
    expect(downloaded.stderr).toContain(`Found SBOM of media type: ${CYCLONEDX_MEDIA_TYPE}`);
    expect(downloaded.stdout).toBe(sbom.toString());
    const tree = await cosign(["tree", `${registry.host}/team/sbom@${digest}`]);
    expect(tree.exitCode, tree.stderr).toBe(0);
    expect(tree.stdout).toContain("SBOMs");
  });
});

interface Statement {
  _type: string;
  subject: Array<{ name: string; digest: { sha256: string } }>;
  predicateType: string;
  predicate: {
    buildDefinition: {
      buildType: string;
      externalParameters: Record<string, unknown>;
      resolvedDependencies: Array<{ name: string; uri?: string; digest: { sha256: string } }>;
    };
    runDetails: { builder: { id: string } };
  };
}

/** What `cosign verify-attestation` printed: one DSSE envelope a line → their statements. */
function statements(stdout: string): Statement[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { payload: string })
    .map((envelope) => JSON.parse(Buffer.from(envelope.payload, "base64").toString()) as Statement);
}

const verifyProvenance = (image: string, key = "tsop.pub") =>
  cosign(["verify-attestation", "--key", key, "--type", "slsaprovenance1", ...verifyFlags, image]);

interface Bom {
  components: Array<{ type: string; name: string; version?: string }>;
}

describe("bundle and catalog images: SBOM and SLSA provenance", () => {
  const FIXTURE = fileURLToPath(new URL("./fixtures/bundle", import.meta.url));

  it("bundle push --sign: cosign verifies the signature and the provenance, and reads the SBOM", async () => {
    const bundle = join(dir, "bundle");
    await cp(FIXTURE, bundle, { recursive: true });
    const csv = join(bundle, "manifests", "memcached-operator.clusterserviceversion.yaml");
    await writeFile(csv, (await readFile(csv, "utf8")).replaceAll("REGISTRY", registry.host));
    const image = `${registry.host}/team/op-bundle:v1`;
    const digest = await runOk(["bundle", "push", image, "--dir", "bundle", "--sign", "--key", "tsop.key"]);
    const pinned = `${registry.host}/team/op-bundle@${digest}`;

    const signature = await cosign(["verify", "--key", "tsop.pub", ...verifyFlags, pinned]);
    expect(signature.exitCode, signature.stderr).toBe(0);
    const verified = await verifyProvenance(pinned);
    expect(verified.exitCode, verified.stderr).toBe(0);
    const [statement] = statements(verified.stdout);
    expect(statement).toMatchObject({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: `${registry.host}/team/op-bundle`, digest: { sha256: digest.slice(7) } }],
      predicateType: "https://slsa.dev/provenance/v1",
      predicate: {
        buildDefinition: {
          buildType: "pkg:npm/tsop#build-types/bundle-push/v1",
          externalParameters: { image, dir: "bundle" },
        },
        runDetails: { builder: { id: "pkg:npm/tsop" } },
      },
    });
    const csvDependency = statement!.predicate.buildDefinition.resolvedDependencies.find(
      (d) => d.name === "manifests/memcached-operator.clusterserviceversion.yaml",
    );
    expect(csvDependency?.digest.sha256).toBe(
      createHash("sha256")
        .update(await readFile(csv))
        .digest("hex"),
    );
    // The wrong key: cosign refuses the attestation.
    expect((await verifyProvenance(pinned, "cosign.pub")).exitCode).not.toBe(0);

    const sbom = await cosign(["download", "sbom", pinned]);
    expect(sbom.exitCode, sbom.stderr).toBe(0);
    const bom = JSON.parse(sbom.stdout) as Bom;
    expect(bom.components.filter((c) => c.type === "container").map((c) => c.name)).toContain(
      `${registry.host}/example/memcached-operator`,
    );
    expect(bom.components.filter((c) => c.type === "file").map((c) => c.name)).toContain(
      "manifests/memcached-operator.clusterserviceversion.yaml",
    );
  });

  it("catalog image --sign: cosign verifies the provenance (base by digest) and reads the SBOM (bundle images)", async () => {
    const baseDigest = await pushTestImage(registry, "team/opm-base", "v1", {
      layers: [
        [
          { path: "bin/", type: "directory" },
          { path: "bin/opm", content: "#!/bin/sh\necho stand-in\n", mode: 0o755 },
        ],
      ],
      runConfig: { Entrypoint: ["/bin/opm"] },
    });
    const bundleImage = `${registry.host}/team/op-bundle@sha256:${"b".repeat(64)}`;
    const catalog = [
      "schema: olm.package\nname: op\ndefaultChannel: alpha",
      "schema: olm.channel\npackage: op\nname: alpha\nentries:\n  - name: op.v0.0.1",
      `schema: olm.bundle\nname: op.v0.0.1\npackage: op\nimage: ${bundleImage}\nproperties:\n  - type: olm.package\n    value:\n      packageName: op\n      version: 0.0.1`,
    ].join("\n---\n");
    await mkdir(join(dir, "configs", "op"), { recursive: true });
    await writeFile(join(dir, "configs", "op", "catalog.yaml"), `${catalog}\n`);
    const image = `${registry.host}/team/op-catalog:v1`;
    const pinned = await runOk([
      "catalog",
      "image",
      image,
      "--dir",
      "configs",
      "--base",
      `${registry.host}/team/opm-base:v1`,
      "--sign",
      "--key",
      "tsop.key",
    ]);

    const verified = await verifyProvenance(pinned);
    expect(verified.exitCode, verified.stderr).toBe(0);
    const [statement] = statements(verified.stdout);
    expect(statement!.predicate.buildDefinition.buildType).toBe("pkg:npm/tsop#build-types/catalog-image/v1");
    expect(statement!.predicate.buildDefinition.resolvedDependencies).toContainEqual(
      expect.objectContaining({ name: "base", digest: { sha256: baseDigest.slice(7) } }),
    );
    const sbom = await cosign(["download", "sbom", pinned]);
    expect(sbom.exitCode, sbom.stderr).toBe(0);
    const containers = (JSON.parse(sbom.stdout) as Bom).components.filter((c) => c.type === "container");
    expect(containers.map((c) => [c.name, c.version])).toEqual([
      [`${registry.host}/team/op-bundle`, `sha256:${"b".repeat(64)}`],
      [`${registry.host}/team/opm-base`, baseDigest],
    ]);
  });
});
