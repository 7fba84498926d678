// `tsop image sign`: an ECDSA-SHA256 signature over cosign's simple-signing payload for the image's
// manifest digest (an index's own digest for a multi-platform image, as cosign signs it), stored
// where cosign stores it (layout.ts).
import { createSign, type KeyObject } from "node:crypto";
import type { RegistryClient } from "../client.js";
import { type ImageReference, pinnedReference } from "../reference.js";
import { appendSignature } from "./layout.js";
import { simpleSigningPayload } from "./payload.js";

export interface SignResult {
  /** The signed image, pinned: registry/repository@sha256:… */
  image: string;
  digest: string;
  /** The tag the signature manifest is under (sha256-<hex>.sig). */
  signatureTag: string;
  /** How many signatures the image now carries. */
  signatures: number;
}

/** Signs `ref` (a tag is resolved to its digest first) with an ECDSA P-256 private key. */
export async function signImage(
  client: RegistryClient,
  ref: ImageReference,
  key: KeyObject,
): Promise<SignResult> {
  const digest = ref.digest ?? (await client.resolveDigest(ref)).digest;
  const payload = simpleSigningPayload(ref, digest);
  // DER-encoded (ASN.1) signature: what cosign writes and Go's ecdsa.VerifyASN1 reads.
  const signature = createSign("sha256").update(payload).sign(key).toString("base64");
  const stored = await appendSignature(client, ref, digest, { payload, signature });
  return {
    image: pinnedReference(ref, digest),
    digest,
    signatureTag: stored.tag,
    signatures: stored.signatures,
  };
}
