// `run bundle --verify-key`'s check (oci/sign/before-run.ts) against the real registry: a signed
// bundle whose CSV names signed images passes, listing each; an unsigned image named by the CSV, a
// bundle signed with another key, or an unsigned bundle fails naming the image and why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentReporter } from "../../src/common/reporter.js";
import { RegistryClient } from "../../src/oci/client.js";
import { pushBundle } from "../../src/oci/push.js";
import { parseReference } from "../../src/oci/reference.js";
import { verifyBundleImages, verifyImages } from "../../src/oci/sign/before-run.js";
import { decryptPrivateKey, generateKeyPair } from "../../src/oci/sign/keys.js";
import { signImage } from "../../src/oci/sign/sign.js";
import { ImageVerificationError } from "../../src/oci/sign/verify.js";
import { pushTestImage, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

const pair = generateKeyPair("");
const other = generateKeyPair("");
const quiet = silentReporter;

function csv(images: string[]): string {
  const containers = images
    .map((image, i) => `                  - name: c${i}\n                    image: ${image}\n`)
    .join("");
  return `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: op.v0.0.1
spec:
  install:
    strategy: deployment
    spec:
      deployments:
        - name: op-controller-manager
          spec:
            template:
              spec:
                containers:
${containers}`;
}

describe("verify before run", () => {
  let registry: TestRegistry;
  let client: RegistryClient;
  const key = () => decryptPrivateKey(pair.privateKey, "", "cosign.key");
  beforeAll(async () => {
    registry = await startRegistry({ tls: true });
    client = new RegistryClient({ caFile: registry.caFile!, env: { PATH: process.env.PATH }, retries: 1 });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await registry?.stop();
  });

  async function bundleNaming(tag: string, images: string[]): Promise<string> {
    const dir = await testdir({
      "manifests/op.clusterserviceversion.yaml": csv(images),
      "metadata/annotations.yaml":
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
    });
    const image = `${registry.host}/team/op-bundle:${tag}`;
    await pushBundle(image, {
      dir,
      caFile: registry.caFile!,
      env: { PATH: process.env.PATH },
      reporter: quiet,
    });
    return image;
  }

  const check = (bundleImage: string, publicKey = pair.publicKey) =>
    testdir({ "cosign.pub": publicKey }).then((dir) =>
      verifyBundleImages({
        bundleImage,
        verifyKey: `${dir}/cosign.pub`,
        caFile: registry.caFile!,
        env: { PATH: process.env.PATH },
        reporter: quiet,
      }),
    );

  async function refusal(promise: Promise<unknown>): Promise<ImageVerificationError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImageVerificationError);
    return error as ImageVerificationError;
  }

  it("passes when the bundle and every image its CSV names are signed; refuses the wrong key", async () => {
    const opDigest = await pushTestImage(registry, "team/op", "v1");
    await signImage(client, parseReference(`${registry.host}/team/op:v1`), key());
    const bundle = await bundleNaming("signed", [`${registry.host}/team/op:v1`]);
    const signed = await signImage(client, parseReference(bundle), key());
    await expect(check(bundle)).resolves.toEqual({
      images: [signed.image, `${registry.host}/team/op@${opDigest}`],
    });
    const wrong = await refusal(check(bundle, other.publicKey));
    expect(wrong.image).toBe(signed.image);
    expect(wrong.failure).toBe("bad-signature");
  });

  it("refuses an unsigned image named by the CSV, and an unsigned bundle, naming it", async () => {
    const sidecar = await pushTestImage(registry, "team/sidecar", "v1", {
      layers: [[{ path: "s.txt", content: "sidecar" }]],
    });
    await pushTestImage(registry, "team/op", "v1");
    await signImage(client, parseReference(`${registry.host}/team/op:v1`), key());
    const bundle = await bundleNaming("sidecar", [
      `${registry.host}/team/op:v1`,
      `${registry.host}/team/sidecar:v1`,
    ]);
    await signImage(client, parseReference(bundle), key());
    const error = await refusal(check(bundle));
    expect(error.failure).toBe("unsigned");
    expect(error.message).toContain(`${registry.host}/team/sidecar@${sidecar} does not verify: no signature`);

    // Content no other test signed (the same CSV would give the same, signed, digest).
    const unsignedBundle = await bundleNaming("unsigned", [
      `${registry.host}/team/op:v1`,
      `${registry.host}/team/op:v1`,
    ]);
    expect((await refusal(check(unsignedBundle))).image).toMatch(/team\/op-bundle@sha256:/);
  });

  it("deploy's check: every image given must be signed; the first that is not is named", async () => {
    const signed = await pushTestImage(registry, "team/deploy", "v1", {
      layers: [[{ path: "d.txt", content: "d" }]],
    });
    await signImage(client, parseReference(`${registry.host}/team/deploy:v1`), key());
    const unsigned = await pushTestImage(registry, "team/deploy", "v2", {
      layers: [[{ path: "d.txt", content: "e" }]],
    });
    const dir = await testdir({ "cosign.pub": pair.publicKey });
    const options = {
      verifyKey: `${dir}/cosign.pub`,
      caFile: registry.caFile!,
      env: { PATH: process.env.PATH },
      reporter: quiet,
    };
    await expect(verifyImages([`${registry.host}/team/deploy:v1`], options)).resolves.toEqual({
      images: [`${registry.host}/team/deploy@${signed}`],
    });
    const error = await refusal(
      verifyImages([`${registry.host}/team/deploy:v1`, `${registry.host}/team/deploy:v2`], options),
    );
    expect(error.image).toBe(`${registry.host}/team/deploy@${unsigned}`);
  });
});
