// Key pairs in cosign's formats, so `cosign verify --key` reads what `tsop image keygen` writes and
// tsop signs with a key `cosign generate-key-pair` wrote. The private key is go-securesystemslib's
// "encrypted" JSON (scrypt → NaCl secretbox over the PKCS #8 DER key) in a PEM block of type
// "ENCRYPTED SIGSTORE PRIVATE KEY" (older cosign: "ENCRYPTED COSIGN PRIVATE KEY"); the public key
// is PKIX "PUBLIC KEY" PEM. tsop makes and accepts ECDSA P-256 only, cosign's default.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  scryptSync,
} from "node:crypto";
import nacl from "tweetnacl";
import { InvalidInputError } from "../../common/errors.js";

const PRIVATE_PEM_TYPES = ["ENCRYPTED SIGSTORE PRIVATE KEY", "ENCRYPTED COSIGN PRIVATE KEY"] as const;
/** go-securesystemslib's standard strength (its default, what cosign writes). */
const SCRYPT = { N: 65536, r: 8, p: 1 };
/** The three parameter sets go-securesystemslib accepts (legacy, standard, OWASP). */
const ACCEPTED_N = new Set([32768, 65536, 131072]);

interface EncryptedKey {
  kdf: { name: "scrypt"; params: { N: number; r: number; p: number }; salt: string };
  cipher: { name: "nacl/secretbox"; nonce: string };
  ciphertext: string;
}

export interface KeyPairPem {
  privateKey: string;
  publicKey: string;
}

function toPem(type: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join("\n")}\n-----END ${type}-----\n`;
}

function fromPem(text: string, file: string): { type: string; der: Buffer } {
  const match = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!match) {
    throw new InvalidInputError(`${file} is not a PEM file`, {
      hint: "Give the cosign.key or cosign.pub that `tsop image keygen` or `cosign generate-key-pair` wrote.",
    });
  }
  return { type: match[1]!, der: Buffer.from(match[2]!.replace(/\s+/g, ""), "base64") };
}

function deriveKey(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Buffer {
  // scrypt needs 128·N·r bytes: 64 MiB at the standard strength, above Node's 32 MiB default cap.
  return scryptSync(Buffer.from(password, "utf8"), salt, nacl.secretbox.keyLength, {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: 256 * params.N * params.r + 1024 * 1024,
  });
}

/** A new ECDSA P-256 key pair, the private key encrypted with `password` (may be empty, as cosign allows). */
export function generateKeyPair(password: string): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return { privateKey: encryptPrivateKey(privateKey, password), publicKey: publicKeyPem(publicKey) };
}

export function publicKeyPem(key: KeyObject): string {
  return toPem("PUBLIC KEY", key.export({ type: "spki", format: "der" }));
}

export function encryptPrivateKey(key: KeyObject, password: string): string {
  const salt = randomBytes(32);
  const nonce = randomBytes(nacl.secretbox.nonceLength);
  const plaintext = key.export({ type: "pkcs8", format: "der" });
  const sealed = nacl.secretbox(plaintext, nonce, deriveKey(password, salt, SCRYPT));
  // Field order as Go's encoding/json writes the struct, so the file looks like cosign's own.
  const body: EncryptedKey = {
    kdf: { name: "scrypt", params: SCRYPT, salt: salt.toString("base64") },
    cipher: { name: "nacl/secretbox", nonce: Buffer.from(nonce).toString("base64") },
    ciphertext: Buffer.from(sealed).toString("base64"),
  };
  return toPem(PRIVATE_PEM_TYPES[0], Buffer.from(JSON.stringify(body)));
}

/** Decrypts a cosign private key; `file` names it in errors. */
export function decryptPrivateKey(pem: string, password: string, file: string): KeyObject {
  const { type, der } = fromPem(pem, file);
  if (!(PRIVATE_PEM_TYPES as readonly string[]).includes(type)) {
    throw new InvalidInputError(`${file} holds a "${type}" PEM block, not a cosign private key`, {
      hint: `Sign with the private key (${PRIVATE_PEM_TYPES.join(" or ")}), e.g. cosign.key; cosign.pub is for verifying.`,
    });
  }
  let body: EncryptedKey;
  try {
    body = JSON.parse(der.toString("utf8")) as EncryptedKey;
  } catch {
    throw new InvalidInputError(`${file}: the encrypted key is not JSON`);
  }
  const params = body.kdf?.params;
  if (body.kdf?.name !== "scrypt" || body.cipher?.name !== "nacl/secretbox" || !params) {
    throw new InvalidInputError(`${file}: unsupported key encryption (want scrypt and nacl/secretbox)`);
  }
  if (!ACCEPTED_N.has(params.N) || params.r !== 8 || params.p !== 1) {
    throw new InvalidInputError(
      `${file}: unsupported scrypt parameters N=${params.N} r=${params.r} p=${params.p}`,
    );
  }
  const nonce = Buffer.from(body.cipher.nonce, "base64");
  if (nonce.length !== nacl.secretbox.nonceLength) {
    throw new InvalidInputError(
      `${file}: the nonce is ${nonce.length} bytes, not ${nacl.secretbox.nonceLength}`,
    );
  }
  const opened = nacl.secretbox.open(
    Buffer.from(body.ciphertext, "base64"),
    nonce,
    deriveKey(password, Buffer.from(body.kdf.salt, "base64"), params),
  );
  if (!opened) {
    throw new InvalidInputError(`${file}: wrong password (decryption failed)`, {
      hint: "Set COSIGN_PASSWORD to the password the key was created with.",
    });
  }
  const key = createPrivateKey({ key: Buffer.from(opened), format: "der", type: "pkcs8" });
  assertP256(key, file);
  return key;
}

/** A PKIX public key (cosign.pub); a cosign private key file is refused with what to give instead. */
export function loadPublicKey(pem: string, file: string): KeyObject {
  const { type, der } = fromPem(pem, file);
  if (type !== "PUBLIC KEY") {
    throw new InvalidInputError(`${file} holds a "${type}" PEM block, not a public key`, {
      hint: "Verify with the public key (cosign.pub).",
    });
  }
  const key = createPublicKey({ key: der, format: "der", type: "spki" });
  assertP256(key, file);
  return key;
}

function assertP256(key: KeyObject, file: string): void {
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new InvalidInputError(
      `${file}: a ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.namedCurve ?? ""} key; tsop signs and verifies ECDSA P-256 keys only`,
      { hint: "Make one with `tsop image keygen` or `cosign generate-key-pair` (both ECDSA P-256)." },
    );
  }
}
