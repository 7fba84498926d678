// Where `run bundle`/`run bundle-upgrade`/`deploy` take their verify key from (oci/sign/policy.ts):
// --verify-key over $TSOP_VERIFY_KEY over PROJECT's plugins.tsop.dev/v1.verify.key, paths relative
// to where each is written, --no-verify-key an explicit opt-out that warns naming the policy it
// skips, a bad PROJECT field named with its file. Then the CLI, with a real registry and no cluster:
// a project policy refuses an unsigned bundle naming the image and the key's origin, and exits
// before any cluster is contacted (the kubeconfig points nowhere).
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { pushBundle } from "../../src/oci/push.js";
import { generateKeyPair } from "../../src/oci/sign/keys.js";
import { resolveVerifyKey, VERIFY_KEY_ENV } from "../../src/oci/sign/policy.js";
import { runTsop } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

const PROJECT = (verify: string) => `domain: example.com
projectName: op
plugins:
  tsop.dev/v1:
${verify}
`;

async function project(verify: string): Promise<string> {
  return testdir({ PROJECT: PROJECT(verify), "src/.keep": "" });
}

describe("resolveVerifyKey", () => {
  it("takes the flag over the environment over PROJECT, each relative to where it is written", async () => {
    const root = await project("    verify:\n      key: keys/cosign.pub");
    const sub = join(root, "src");
    const reporter = new MemoryReporter();
    const resolveWith = (flag: string | boolean | undefined, env: NodeJS.ProcessEnv = {}) =>
      resolveVerifyKey({ flag, cwd: sub, env, reporter });

    expect(await resolveWith(undefined)).toEqual({
      file: join(root, "keys/cosign.pub"),
      origin: `${join(root, "PROJECT")} plugins.tsop.dev/v1.verify.key`,
    });
    expect(await resolveWith(undefined, { [VERIFY_KEY_ENV]: "env.pub" })).toEqual({
      file: join(sub, "env.pub"),
      origin: "$TSOP_VERIFY_KEY",
    });
    // An empty variable is no policy (as a shell's `TSOP_VERIFY_KEY=` unsets it for one command).
    expect((await resolveWith(undefined, { [VERIFY_KEY_ENV]: "" }))?.origin).toMatch(/PROJECT/);
    expect(await resolveWith("flag.pub", { [VERIFY_KEY_ENV]: "env.pub" })).toEqual({
      file: join(sub, "flag.pub"),
      origin: "--verify-key",
    });
    expect(reporter.lines).toEqual([]);
  });

  it("--no-verify-key runs unverified, warning which policy it skips; silent when there is none", async () => {
    const root = await project("    verify:\n      key: cosign.pub");
    const reporter = new MemoryReporter();
    expect(await resolveVerifyKey({ flag: false, cwd: root, env: {}, reporter })).toBeUndefined();
    expect(reporter.text()).toBe(
      `warn: signatures are not verified (--no-verify-key), although ${join(root, "PROJECT")} plugins.tsop.dev/v1.verify.key names ${join(root, "cosign.pub")}`,
    );
    const outside = await testdir({ "x.txt": "" });
    const quiet = new MemoryReporter();
    expect(await resolveVerifyKey({ flag: false, cwd: outside, env: {}, reporter: quiet })).toBeUndefined();
    expect(
      await resolveVerifyKey({ flag: undefined, cwd: outside, env: {}, reporter: quiet }),
    ).toBeUndefined();
    expect(quiet.lines).toEqual([]);
  });

  it("a project without verify has no policy; a malformed verify is an error naming PROJECT and the field", async () => {
    const reporter = new MemoryReporter();
    const none = await project("    image: example.com/op:v1");
    expect(await resolveVerifyKey({ flag: undefined, cwd: none, env: {}, reporter })).toBeUndefined();
    for (const [verify, message] of [
      ["    verify: cosign.pub", "plugins.tsop.dev/v1.verify must be a mapping with key"],
      ["    verify:\n      key: ''", "plugins.tsop.dev/v1.verify.key must be a non-empty path"],
      ["    verify:\n      key: 3", "plugins.tsop.dev/v1.verify.key must be a non-empty path"],
      [
        "    verify:\n      key: a.pub\n      required: true",
        "plugins.tsop.dev/v1.verify has unknown field(s) required (only key is read)",
      ],
    ] as const) {
      const root = await project(verify);
      await expect(resolveVerifyKey({ flag: undefined, cwd: root, env: {}, reporter })).rejects.toThrow(
        `${join(root, "PROJECT")}: ${message}`,
      );
      // The flag and the environment do not read PROJECT at all.
      await expect(
        resolveVerifyKey({ flag: undefined, cwd: root, env: { [VERIFY_KEY_ENV]: "e.pub" }, reporter }),
      ).resolves.toMatchObject({ origin: "$TSOP_VERIFY_KEY" });
    }
  });
});

describe("run bundle under a policy (CLI, real registry, no cluster)", () => {
  let registry: TestRegistry;
  let bundle: string;
  let bundleDir: string;
  const pair = generateKeyPair("");
  beforeAll(async () => {
    registry = await startRegistry();
    bundleDir = await testdir(
      {
        "manifests/op.clusterserviceversion.yaml":
          "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v0.0.1\nspec: {}\n",
        "metadata/annotations.yaml":
          "annotations:\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
      },
      { keep: true },
    );
    bundle = `${registry.host}/team/policy-bundle:v1`;
    await pushBundle(bundle, {
      dir: bundleDir,
      plainHttp: [registry.host],
      env: { PATH: process.env.PATH },
      reporter: new MemoryReporter(),
    });
  }, 30_000);
  afterAll(async () => {
    await registry?.stop();
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  });

  const run = (cwd: string, flags: string[], env: Record<string, string | undefined> = {}) =>
    runTsop(["run", "bundle", bundle, `--plain-http=${registry.host}`, "--olm", "v0", ...flags], {
      cwd,
      env: { KUBECONFIG: join(cwd, "no-such-kubeconfig"), [VERIFY_KEY_ENV]: undefined, ...env },
    });

  it("PROJECT's key refuses the unsigned bundle, naming it and where the key came from; a missing --verify-key file; --no-verify-key", async () => {
    const root = await testdir({
      PROJECT: PROJECT("    verify:\n      key: keys/cosign.pub"),
      "keys/cosign.pub": pair.publicKey,
    });
    const byProject = await run(root, []);
    expect(byProject.exitCode, byProject.stderr).toBe(1);
    expect(byProject.stderr).toMatch(
      new RegExp(`${registry.host}/team/policy-bundle@sha256:[0-9a-f]{64} does not verify: no signature`),
    );
    expect(byProject.stderr).toContain(
      `checked with the public key ${join(root, "keys/cosign.pub")} (from ${join(root, "PROJECT")} plugins.tsop.dev/v1.verify.key)`,
    );
    // No cluster was asked: the kubeconfig that does not exist was never read.
    expect(byProject.stderr).not.toMatch(/kubeconfig/i);

    const missing = await run(root, ["--verify-key", "gone.pub"]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(
      `cannot read the public key ${join(root, "gone.pub")} (from --verify-key): ENOENT`,
    );

    // The explicit opt-out gets past verification (and then fails on the missing cluster), warned.
    const optOut = await run(root, ["--no-verify-key"]);
    expect(optOut.stderr).toContain("signatures are not verified (--no-verify-key), although");
    expect(optOut.stderr).not.toContain("does not verify");
    expect(optOut.stderr).toMatch(/kubeconfig/i);
  });
});

describe("a layer tampered in the registry (CLI, real registry, no cluster)", () => {
  // The attacker rewrites a blob in the registry's storage: the manifest, and so the signature over
  // its digest, are unchanged; the pull that reads the bundle's CSV for its images checks every
  // blob against its digest, so the run stops there, before any cluster is asked.
  it("is refused naming the blob, although the signature still verifies", async () => {
    const registry = await startRegistry();
    try {
      const dir = await testdir({
        "bundle/manifests/op.clusterserviceversion.yaml":
          "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v0.0.1\nspec: {}\n",
        "bundle/metadata/annotations.yaml":
          "annotations:\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
      });
      const image = `${registry.host}/team/tampered-bundle:v1`;
      const plain = `--plain-http=${registry.host}`;
      const env = {
        COSIGN_PASSWORD: "pw",
        KUBECONFIG: join(dir, "no-such-kubeconfig"),
        [VERIFY_KEY_ENV]: undefined,
      };
      const tsop = (args: string[]) => runTsop(args, { cwd: dir, env });
      expect((await tsop(["bundle", "push", image, plain, "--no-sbom"])).exitCode).toBe(0);
      expect((await tsop(["image", "keygen", "--output-key-prefix", join(dir, "k")])).exitCode).toBe(0);
      expect((await tsop(["image", "sign", image, "--key", "k.key", plain])).exitCode).toBe(0);

      const manifest = (await (
        await fetch(`http://${registry.host}/v2/team/tampered-bundle/manifests/v1`, {
          headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
        })
      ).json()) as { layers: { digest: string }[] };
      const hex = manifest.layers[0]!.digest.slice("sha256:".length);
      const blob = join(registry.dir, "data/docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex, "data");
      const bytes = await readFile(blob);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1); // same size, other content
      await writeFile(blob, bytes);

      // The signature over the manifest still verifies: the tamper is in the layer only.
      expect((await tsop(["image", "verify", image, "--key", "k.pub", plain])).exitCode).toBe(0);
      const run = await tsop(["run", "bundle", image, plain, "--olm", "v0", "--verify-key", "k.pub"]);
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toContain(`sha256:${hex}`);
      expect(run.stderr).toMatch(/digest/i);
      expect(run.stderr).not.toMatch(/kubeconfig/i);
    } finally {
      await registry.stop();
    }
  });
});
