// The test server's self-signed certificates must be valid DER every time: serial numbers are
// random, and a non-minimal INTEGER (a leading zero byte) made OpenSSL reject about 1 in 256.
import { X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import { describe, expect, it } from "vitest";
import { issueCertificate, selfSignedCert } from "../../src/common/x509.js";

describe("selfSignedCert", () => {
  it("always produces a certificate OpenSSL accepts, for 127.0.0.1 and localhost", () => {
    for (let i = 0; i < 1500; i++) {
      const { cert, key } = selfSignedCert();
      const x509 = new X509Certificate(cert);
      expect(x509.checkHost("localhost")).toBe("localhost");
      expect(x509.checkIP("127.0.0.1")).toBe("127.0.0.1");
      expect(() => createSecureContext({ cert, key })).not.toThrow();
    }
    // 1500 key pairs and TLS contexts: ~20 s on a busy 2-core machine, more beside other suites.
  }, 120_000);

  it("issues CA-signed client and serving certificates that verify against their CA", () => {
    const ca = issueCertificate({ commonName: "test-ca", ca: true });
    const leaf = issueCertificate({
      commonName: "alice",
      organizations: ["developers", "system:masters"],
      usages: ["client"],
      issuer: ca,
    });
    const x509 = new X509Certificate(leaf.cert);
    expect(x509.subject).toBe("O=developers\nO=system:masters\nCN=alice");
    expect(x509.issuer).toBe("CN=test-ca");
    expect(x509.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(x509.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(x509.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
    expect(new X509Certificate(ca.cert).ca).toBe(true);
    expect(x509.ca).toBe(false);
  });
});
