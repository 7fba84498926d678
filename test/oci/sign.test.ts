// Cosign-compatible signatures: the key formats round trip (and wrong passwords/key kinds are
// refused by name), the payload is cosign's simple-signing JSON, and against the real Debian
// registry (TLS) a signature lands where cosign keeps it (`sha256-<hex>.sig`, checked with skopeo
// and openssl, independently of tsop's code) and verify refuses unsigned images, the wrong key and
// a signature copied onto another image. cosign itself checks all this in cosign.real.test.ts.
import { execa } from "execa";
import { createVerify, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/oci/client.js";
import { parseReference } from "../../src/oci/reference.js";
import { decryptPrivateKey, generateKeyPair, loadPublicKey } from "../../src/oci/sign/keys.js";
import { attachmentTag, SIGNATURE_ANNOTATION, SIMPLE_SIGNING_MEDIA_TYPE } from "../../src/oci/sign/layout.js";
import { signedDigest, simpleSigningPayload } from "../../src/oci/sign/payload.js";
import { signImage } from "../../src/oci/sign/sign.js";
import { ImageVerificationError, verifyImage } from "../../src/oci/sign/verify.js";
import { pushTestImage, skopeoInspectRaw, startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";

// One key pair per file: scrypt at cosign's strength takes ~0.1 s per key.
const alice = generateKeyPair("alice-pw");
const mallory = generateKeyPair("");

describe("key formats", () => {
  it("writes cosign's encrypted PEM and reads it back with the password", () => {
    expect(alice.privateKey).toMatch(/^-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\n/);
    const body = JSON.parse(
      Buffer.from(alice.privateKey.split("\n").slice(1, -2).join(""), "base64").toString(),
    ) as Record<string, { name: string; params?: unknown; salt?: string; nonce?: string }>;
    expect(body.kdf).toMatchObject({ name: "scrypt", params: { N: 65536, r: 8, p: 1 } });
    expect(Buffer.from(body.kdf!.salt!, "base64")).toHaveLength(32);
    expect(body.cipher).toMatchObject({ name: "nacl/secretbox" });
    expect(Buffer.from(body.cipher!.nonce!, "base64")).toHaveLength(24);
    const key = decryptPrivateKey(alice.privateKey, "alice-pw", "cosign.key");
    expect(key.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    // The public half of the decrypted key is the .pub file's key.
    const pub = loadPublicKey(alice.publicKey, "cosign.pub");
    const { x, y } = key.export({ format: "jwk" });
    expect(pub.export({ format: "jwk" })).toEqual({ kty: "EC", crv: "P-256", x, y });
  });

  it("reads a key pair cosign generated and verifies what cosign signed with it", async () => {
    // Made once by cosign v2.6.5 (generate-key-pair, COSIGN_PASSWORD=fixture-password; sign-blob
    // --tlog-upload=false of payload.json): an independent sample of the formats.
    const dir = join(import.meta.dirname, "fixtures", "cosign-key");
    const read = (name: string) => readFile(join(dir, name), "utf8");
    const key = decryptPrivateKey(await read("cosign.key"), "fixture-password", "cosign.key");
    const pub = loadPublicKey(await read("cosign.pub"), "cosign.pub");
    const { x, y } = key.export({ format: "jwk" });
    expect(pub.export({ format: "jwk" })).toEqual({ kty: "EC", crv: "P-256", x, y });
    const payload = await readFile(join(dir, "payload.json"));
    const signature = Buffer.from((await read("payload.sig")).trim(), "base64");
    expect(createVerify("sha256").update(payload).verify(pub, signature)).toBe(true);
    expect(
      createVerify("sha256")
        .update(Buffer.concat([payload, Buffer.from(" ")]))
        .verify(pub, signature),
    ).toBe(false);
    expect(signedDigest(payload)).toEqual({ digest: `sha256:${"a".repeat(64)}` });
  });

  it("refuses a wrong password, naming the file", () => {
    expect(() => decryptPrivateKey(alice.privateKey, "nope", "keys/cosign.key")).toThrow(
      "keys/cosign.key: wrong password",
    );
  });

  it("refuses a public key given as the private key and the other way round", () => {
    expect(() => decryptPrivateKey(alice.publicKey, "alice-pw", "cosign.pub")).toThrow(
      'cosign.pub holds a "PUBLIC KEY" PEM block, not a cosign private key',
    );
    expect(() => loadPublicKey(alice.privateKey, "cosign.key")).toThrow(
      'cosign.key holds a "ENCRYPTED SIGSTORE PRIVATE KEY" PEM block, not a public key',
    );
  });

  it("refuses a key that is not ECDSA P-256", async () => {
    const dir = await testdir();
    await execa("openssl", ["genpkey", "-algorithm", "ed25519", "-out", join(dir, "k.pem")]);
    await execa("openssl", ["pkey", "-in", join(dir, "k.pem"), "-pubout", "-out", join(dir, "k.pub")]);
    const pem = await readFile(join(dir, "k.pub"), "utf8");
    expect(() => loadPublicKey(pem, "k.pub")).toThrow("ECDSA P-256 keys only");
  });
});

describe("payload", () => {
  it("is cosign's simple-signing JSON, field for field", () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const payload = simpleSigningPayload(parseReference("127.0.0.1:5000/team/op:v1"), digest);
    expect(payload.toString()).toBe(
      `{"critical":{"identity":{"docker-reference":"127.0.0.1:5000/team/op"},"image":{"docker-manifest-digest":"${digest}"},"type":"cosign container image signature"},"optional":null}`,
    );
    expect(signedDigest(payload)).toEqual({ digest });
    expect(simpleSigningPayload(parseReference("nginx"), digest).toString()).toContain(
      '"docker-reference":"index.docker.io/library/nginx"',
    );
    expect(signedDigest(Buffer.from('{"critical":{"type":"other"}}'))).toEqual({
      problem: 'the signed payload\'s type is "other", not "cosign container image signature"',
    });
  });
});

describe("signatures in the real registry", () => {
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

  let aliceKey: KeyObject | undefined;
  const privateKey = () => (aliceKey ??= decryptPrivateKey(alice.privateKey, "alice-pw", "alice.key"));
  const publicKey = (pair = alice) => loadPublicKey(pair.publicKey, "cosign.pub");

  async function failure(image: string, pair = alice): Promise<ImageVerificationError> {
    const error = await verifyImage(client, parseReference(image), publicKey(pair)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImageVerificationError);
    return error as ImageVerificationError;
  }

  it("stores the signature under sha256-<hex>.sig as cosign does; openssl verifies it", async () => {
    const digest = await pushTestImage(registry, "team/op", "v1");
    const image = `${registry.host}/team/op:v1`;
    const result = await signImage(client, parseReference(image), privateKey());
    expect(result).toMatchObject({ digest, signatures: 1, signatureTag: attachmentTag(digest, "sig") });
    expect(result.image).toBe(`${registry.host}/team/op@${digest}`);

    const manifest = JSON.parse(await skopeoInspectRaw(registry, `team/op:${result.signatureTag}`)) as {
      mediaType: string;
      layers: Array<{ mediaType: string; digest: string; size: number; annotations: Record<string, string> }>;
    };
    expect(manifest.mediaType).toBe("application/vnd.oci.image.manifest.v1+json");
    expect(manifest.layers).toHaveLength(1);
    const [layer] = manifest.layers;
    expect(layer!.mediaType).toBe(SIMPLE_SIGNING_MEDIA_TYPE);
    const payload = await client.getBlob(registry.host, "team/op", layer!, 1e6);
    expect(signedDigest(payload)).toEqual({ digest });

    const dir = await testdir({
      "payload.json": payload,
      "sig.der": Buffer.from(layer!.annotations[SIGNATURE_ANNOTATION]!, "base64"),
      "cosign.pub": alice.publicKey,
    });
    const openssl = await execa(
      "openssl",
      ["dgst", "-sha256", "-verify", "cosign.pub", "-signature", "sig.der", "payload.json"],
      { cwd: dir },
    );
    expect(openssl.stdout).toBe("Verified OK");

    await expect(verifyImage(client, parseReference(image), publicKey())).resolves.toEqual({
      image: result.image,
      digest,
      verified: 1,
    });
  });

  it("accumulates signatures of several keys in one manifest; each key verifies", async () => {
    const digest = await pushTestImage(registry, "team/multi", "v1");
    const image = parseReference(`${registry.host}/team/multi:v1`);
    await signImage(client, image, privateKey());
    const second = await signImage(client, image, decryptPrivateKey(mallory.privateKey, "", "m.key"));
    expect(second.signatures).toBe(2);
    const raw = JSON.parse(
      await skopeoInspectRaw(registry, `team/multi:${attachmentTag(digest, "sig")}`),
    ) as {
      layers: unknown[];
    };
    expect(raw.layers).toHaveLength(2);
    await expect(verifyImage(client, image, publicKey(mallory))).resolves.toMatchObject({ verified: 1 });
    await expect(verifyImage(client, image, publicKey(alice))).resolves.toMatchObject({ verified: 1 });
  });

  it("refuses an unsigned image, the wrong key, and a rebuilt image under the signed tag", async () => {
    await pushTestImage(registry, "team/refuse", "unsigned");
    const unsigned = await failure(`${registry.host}/team/refuse:unsigned`);
    expect(unsigned.failure).toBe("unsigned");
    expect(unsigned.message).toMatch(/team\/refuse@sha256:[0-9a-f]{64} does not verify: no signature/);

    await pushTestImage(registry, "team/refuse", "v1");
    await signImage(client, parseReference(`${registry.host}/team/refuse:v1`), privateKey());
    const wrongKey = await failure(`${registry.host}/team/refuse:v1`, mallory);
    expect(wrongKey.failure).toBe("bad-signature");
    expect(wrongKey.message).toContain("none of its 1 signature(s) verifies with this public key");

    // A layer changed after signing: the tag now names another manifest, which nobody signed.
    await pushTestImage(registry, "team/refuse", "v1", {
      layers: [[{ path: "hello.txt", content: "tampered" }]],
    });
    expect((await failure(`${registry.host}/team/refuse:v1`)).failure).toBe("unsigned");
  });

  it("refuses a valid signature copied onto another image (digest mismatch)", async () => {
    const signed = await pushTestImage(registry, "team/copy", "signed");
    await signImage(client, parseReference(`${registry.host}/team/copy:signed`), privateKey());
    const other = await pushTestImage(registry, "team/copy", "other", {
      layers: [[{ path: "hello.txt", content: "other" }]],
    });
    const sig = await client.getManifest(
      parseReference(`${registry.host}/team/copy:${attachmentTag(signed, "sig")}`),
    );
    await client.putManifest(
      registry.host,
      "team/copy",
      attachmentTag(other, "sig"),
      sig.body,
      sig.mediaType,
    );
    const error = await failure(`${registry.host}/team/copy:other`);
    expect(error.failure).toBe("digest-mismatch");
    expect(error.message).toContain(`covers ${signed}, not this image's ${other}`);
  });
});
