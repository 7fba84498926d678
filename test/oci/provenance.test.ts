// The SLSA provenance tsop attests (oci/provenance): DSSE's pre-authentication encoding against the
// spec's own example, an envelope that opens with the signing key only (and not once its payload is
// changed), and a statement whose bytes depend only on the build. cosign verifying what tsop
// pushes is in cosign.real.test.ts.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openEnvelope, pae, signEnvelope, type Envelope } from "../../src/oci/provenance/dsse.js";
import { BUILD_TYPES, provenanceStatement, resource } from "../../src/oci/provenance/statement.js";
import { parseReference } from "../../src/oci/reference.js";

const key = () => generateKeyPairSync("ec", { namedCurve: "P-256" });

describe("DSSE", () => {
  it("encodes PAE as the DSSE protocol's example does", () => {
    // github.com/secure-systems-lab/dsse protocol.md: PAE("http://example.com/HelloWorld", "hello world").
    expect(pae("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
    // Lengths count bytes, not characters.
    expect(pae("t", Buffer.from("é")).toString()).toBe("DSSEv1 1 t 2 é");
  });

  it("opens with the signing key only, and not once the payload or its type changed", () => {
    const signer = key();
    const envelope = JSON.parse(
      signEnvelope(Buffer.from('{"a":1}'), "application/vnd.in-toto+json", signer.privateKey).toString(),
    ) as Envelope;
    expect(Object.keys(envelope)).toEqual(["payloadType", "payload", "signatures"]);
    expect(envelope.signatures[0]!.keyid).toBe("");
    expect(openEnvelope(envelope, signer.publicKey)?.toString()).toBe('{"a":1}');
    expect(openEnvelope(envelope, key().publicKey)).toBeUndefined();
    const tampered = { ...envelope, payload: Buffer.from('{"a":2}').toString("base64") };
    expect(openEnvelope(tampered, signer.publicKey)).toBeUndefined();
    expect(openEnvelope({ ...envelope, payloadType: "text/plain" }, signer.publicKey)).toBeUndefined();
  });
});

describe("SLSA provenance statement", () => {
  const input = {
    image: parseReference("quay.io/me/op:v1"),
    digest: `sha256:${"a".repeat(64)}`,
    build: {
      buildType: BUILD_TYPES.imageBuild,
      externalParameters: { image: "quay.io/me/op:v1", dir: "." },
      resolvedDependencies: [resource("package-lock.json", `sha256:${"c".repeat(64)}`)],
    },
    builder: { version: "0.1.0" },
  };

  it("names the image by digest, the build type, the inputs and what was read; the same build, the same bytes", () => {
    const bytes = provenanceStatement(input);
    expect(provenanceStatement(input).equals(bytes)).toBe(true);
    const statement = JSON.parse(bytes.toString()) as Record<string, unknown>;
    expect(statement).toMatchObject({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: "quay.io/me/op", digest: { sha256: "a".repeat(64) } }],
      predicateType: "https://slsa.dev/provenance/v1",
      predicate: {
        buildDefinition: {
          buildType: "pkg:npm/tsop#build-types/image-build/v1",
          externalParameters: { image: "quay.io/me/op:v1", dir: "." },
          resolvedDependencies: [{ name: "package-lock.json", digest: { sha256: "c".repeat(64) } }],
        },
        runDetails: { builder: { id: "pkg:npm/tsop", version: { tsop: "0.1.0" } } },
      },
    });
    expect(JSON.stringify(statement)).not.toContain("finishedOn");
    const other = provenanceStatement({ ...input, digest: `sha256:${"b".repeat(64)}` });
    expect(JSON.parse(other.toString()).predicate.runDetails.metadata.invocationId).not.toBe(
      (statement.predicate as { runDetails: { metadata: { invocationId: string } } }).runDetails.metadata
        .invocationId,
    );
    expect(JSON.parse(provenanceStatement({ ...input, epoch: 1700000000 }).toString())).toMatchObject({
      predicate: { runDetails: { metadata: { finishedOn: "2023-11-14T22:13:20.000Z" } } },
    });
  });
});
