// cosign as the oracle of tsop's supply-chain formats, against a real registry (Debian's
// docker-registry, TLS) on 127.0.0.1: cosign verifies what tsop signed with a tsop key, tsop
// verifies what cosign signed with a cosign key, each reads the other's key files, and the
// refusals agree (wrong key). No Rekor or Fulcio: key-based only, transparency log off.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
