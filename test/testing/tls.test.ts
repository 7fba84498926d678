// The test server's self-signed certificates must be valid DER every time: serial numbers are
// random, and a non-minimal INTEGER (a leading zero byte) made OpenSSL reject about 1 in 256.
import { X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import { describe, expect, it } from "vitest";
import { selfSignedCert } from "../../src/testing/tls.js";

describe("selfSignedCert", () => {
  it("always produces a certificate OpenSSL accepts, for 127.0.0.1 and localhost", () => {
    for (let i = 0; i < 1500; i++) {
      const { cert, key } = selfSignedCert();
      const x509 = new X509Certificate(cert);
      expect(x509.checkHost("localhost")).toBe("localhost");
      expect(x509.checkIP("127.0.0.1")).toBe("127.0.0.1");
      expect(() => createSecureContext({ cert, key })).not.toThrow();
    }
  });
});
