// DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse), what cosign stores an
// attestation in: the signature covers the pre-authentication encoding (PAE) of the payload type
// and the payload, never the JSON around them, so the envelope's layout cannot be played with.
import { createSign, createVerify, type KeyObject } from "node:crypto";

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const DSSE_ENVELOPE_MEDIA_TYPE = "application/vnd.dsse.envelope.v1+json";

export interface Envelope {
  payloadType: string;
  /** base64 of the payload bytes. */
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

/** PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths in bytes as ASCII decimals. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
}

/** The envelope JSON (field order as Go's dsse.Envelope marshals it), one ECDSA-SHA256 signature, no key id (as cosign writes it). */
export function signEnvelope(payload: Buffer, payloadType: string, key: KeyObject): Buffer {
  const sig = createSign("sha256").update(pae(payloadType, payload)).sign(key).toString("base64");
  const envelope: Envelope = {
    payloadType,
    payload: payload.toString("base64"),
    signatures: [{ keyid: "", sig }],
  };
  return Buffer.from(JSON.stringify(envelope));
}

/** The payload when one of the envelope's signatures verifies with `key`, else undefined. */
export function openEnvelope(envelope: Envelope, key: KeyObject): Buffer | undefined {
  const payload = Buffer.from(envelope.payload, "base64");
  const signed = pae(envelope.payloadType, payload);
  const ok = envelope.signatures.some((s) =>
    createVerify("sha256").update(signed).verify(key, Buffer.from(s.sig, "base64")),
  );
  return ok ? payload : undefined;
}
