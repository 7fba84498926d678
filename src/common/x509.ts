// X.509 certificates built with node:crypto (no openssl): a minimal DER encoder for X.509 v3
// certificates with EC P-256 keys. selfSignedCert() serves the manager's metrics endpoint when no
// certificate is mounted, and the in-memory test server over TLS (kubectl only sends credentials over
// TLS); issueCertificate() makes the real control plane's CAs and the serving and client certificates
// they sign.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from "node:crypto";

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n >>= 8;
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const explicit = (n: number, body: Buffer) => tlv(0xa0 + n, body);

function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    let v = p >> 7;
    while (v > 0) {
      chunk.unshift((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A DER INTEGER from unsigned big-endian bytes: minimal (OpenSSL rejects leading zero bytes), positive. */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const body = trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(0x02, body);
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, "0");
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, "ascii"));
}

function toPem(label: string, der: Buffer): string {
  const b64 = der
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export interface SelfSignedCert {
  cert: string;
  key: string;
}

/** A certificate with its private key (PEM) and the subject it was issued to. */
export interface IssuedCertificate extends SelfSignedCert {
  commonName: string;
  organizations: string[];
}

export interface CertificateRequest {
  commonName: string;
  /** Subject O= values (Kubernetes reads them as the client certificate user's groups). */
  organizations?: string[];
  /** A certificate authority that signs others (basicConstraints CA:TRUE, keyCertSign). */
  ca?: boolean;
  /** Extended key usages of a leaf certificate. */
  usages?: Array<"server" | "client">;
  /** Subject alternative names: IPv4 addresses or DNS names. */
  hosts?: string[];
  /** The signing CA; self-signed when omitted. */
  issuer?: IssuedCertificate;
}

const ecdsaWithSha256 = seq(oid("1.2.840.10045.4.3.2"));
const TEN_YEARS_MS = 10 * 365 * 24 * 60 * 60 * 1000;

/** Subject/issuer Name: O= values then CN=, encoded the same way every time (chains compare bytes). */
function distinguishedName(commonName: string, organizations: string[]): Buffer {
  const rdn = (type: string, value: string) => set(seq(oid(type), tlv(0x0c, Buffer.from(value, "utf8"))));
  return seq(...organizations.map((o) => rdn("2.5.4.10", o)), rdn("2.5.4.3", commonName));
}

function subjectAltNames(hosts: string[]): Buffer {
  return seq(
    ...hosts.map((h) =>
      /^\d+\.\d+\.\d+\.\d+$/.test(h)
        ? tlv(0x87, Buffer.from(h.split(".").map(Number)))
        : tlv(0x82, Buffer.from(h, "ascii")),
    ),
  );
}

const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value));

function extensionsFor(request: CertificateRequest): Buffer {
  const list: Buffer[] = [];
  if (request.ca) {
    list.push(extension("2.5.29.19", true, seq(tlv(0x01, Buffer.from([0xff])))));
    // digitalSignature, keyCertSign, cRLSign
    list.push(extension("2.5.29.15", true, tlv(0x03, Buffer.from([0x01, 0x86]))));
  } else {
    list.push(extension("2.5.29.19", true, seq()));
    // digitalSignature
    list.push(extension("2.5.29.15", true, tlv(0x03, Buffer.from([0x07, 0x80]))));
  }
  const ekus = (request.usages ?? []).map((u) =>
    oid(u === "server" ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2"),
  );
  if (ekus.length > 0) list.push(extension("2.5.29.37", false, seq(...ekus)));
  if (request.hosts?.length) list.push(extension("2.5.29.17", false, subjectAltNames(request.hosts)));
  return explicit(3, seq(...list));
}

/** A new EC P-256 key and an X.509 v3 certificate for it, signed by `issuer` (or by itself). */
export function issueCertificate(request: CertificateRequest): IssuedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const organizations = request.organizations ?? [];
  const subject = distinguishedName(request.commonName, organizations);
  const issuer = request.issuer
    ? distinguishedName(request.issuer.commonName, request.issuer.organizations)
    : subject;
  const now = Date.now();
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(16)),
    ecdsaWithSha256,
    issuer,
    seq(utcTime(new Date(now - 60 * 60 * 1000)), utcTime(new Date(now + TEN_YEARS_MS))),
    subject,
    publicKey.export({ type: "spki", format: "der" }),
    extensionsFor(request),
  );
  const signingKey = request.issuer ? createPrivateKey(request.issuer.key) : privateKey;
  const signature = sign("sha256", tbs, signingKey);
  const cert = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const key = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  return { cert: toPem("CERTIFICATE", cert), key, commonName: request.commonName, organizations };
}

/** A self-signed serving certificate for 127.0.0.1 and localhost (its own CA). */
export function selfSignedCert(commonName = "tsop-test"): SelfSignedCert {
  const { cert, key } = issueCertificate({
    commonName,
    ca: true,
    usages: ["server"],
    hosts: ["127.0.0.1", "localhost"],
  });
  return { cert, key };
}
