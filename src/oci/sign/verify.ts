// `tsop image verify` and the check before `run bundle --verify-key`: an image passes when one of
// the signatures stored for its manifest digest (layout.ts) verifies with the public key AND its
// payload names that same digest. Otherwise the error names the image and why: no signature, no
// signature made with this key, or a valid signature for another digest (a signature copied onto
// an image it was not made for).
import { createVerify, type KeyObject } from "node:crypto";
import { TsopError } from "../../common/errors.js";
import type { RegistryClient } from "../client.js";
import { type ImageReference, pinnedReference } from "../reference.js";
import { readSignatures } from "./layout.js";
import { signedDigest } from "./payload.js";

export type VerificationFailure = "unsigned" | "bad-signature" | "digest-mismatch";

export class ImageVerificationError extends TsopError {
  constructor(
    readonly image: string,
    readonly failure: VerificationFailure,
    readonly reason: string,
  ) {
    super(`${image} does not verify: ${reason}`, {
      hint:
        failure === "unsigned"
          ? "Sign it (tsop image sign <image> --key cosign.key, or cosign sign --key) or use an image that is signed."
          : "Check that --key/--verify-key is the public key of the key the image was signed with, and that the image is the one that was signed.",
    });
  }
}

export interface VerifyResult {
  image: string;
  digest: string;
  /** How many of the stored signatures verified with the key. */
  verified: number;
}

export async function verifyImage(
  client: RegistryClient,
  ref: ImageReference,
  key: KeyObject,
): Promise<VerifyResult> {
  const digest = ref.digest ?? (await client.resolveDigest(ref)).digest;
  const image = pinnedReference(ref, digest);
  const signatures = await readSignatures(client, ref, digest);
  if (signatures.length === 0) {
    throw new ImageVerificationError(
      image,
      "unsigned",
      "no signature (no cosign signature manifest for this digest)",
    );
  }
  let verified = 0;
  const otherDigests = new Set<string>();
  for (const { payload, signature } of signatures) {
    const valid = createVerify("sha256").update(payload).verify(key, Buffer.from(signature, "base64"));
    if (!valid) continue;
    const signed = signedDigest(payload);
    if ("digest" in signed && signed.digest === digest) verified++;
    else otherDigests.add("digest" in signed ? signed.digest : signed.problem);
  }
  if (verified > 0) return { image, digest, verified };
  if (otherDigests.size > 0) {
    throw new ImageVerificationError(
      image,
      "digest-mismatch",
      `a signature made with this key covers ${[...otherDigests].join(", ")}, not this image's ${digest}`,
    );
  }
  throw new ImageVerificationError(
    image,
    "bad-signature",
    `none of its ${signatures.length} signature(s) verifies with this public key`,
  );
}
