// cosign's "simple signing" payload: what a signature covers. Its critical part names the image's
// manifest digest, which is what `cosign verify` (and `tsop image verify`) compare with the image
// being checked; docker-reference is the repository, as cosign writes it by default.
import { DOCKER_HUB, type ImageReference } from "../reference.js";

export const SIMPLE_SIGNING_TYPE = "cosign container image signature";

export interface SimpleSigningPayload {
  critical: {
    identity: { "docker-reference": string };
    image: { "docker-manifest-digest": string };
    type: string;
  };
  optional: Record<string, unknown> | null;
}

/** The repository as go-containerregistry names it (Docker Hub is index.docker.io). */
export function dockerReference(ref: ImageReference): string {
  const registry = ref.registry === DOCKER_HUB ? "index.docker.io" : ref.registry;
  return `${registry}/${ref.repository}`;
}

/** The payload bytes, in the field order cosign's Go structs marshal to. */
export function simpleSigningPayload(ref: ImageReference, digest: string): Buffer {
  const payload: SimpleSigningPayload = {
    critical: {
      identity: { "docker-reference": dockerReference(ref) },
      image: { "docker-manifest-digest": digest },
      type: SIMPLE_SIGNING_TYPE,
    },
    optional: null,
  };
  return Buffer.from(JSON.stringify(payload));
}

/** The digest a payload signs, or the reason it is not a cosign image signature payload. */
export function signedDigest(payload: Buffer): { digest: string } | { problem: string } {
  let parsed: Partial<SimpleSigningPayload>;
  try {
    parsed = JSON.parse(payload.toString("utf8")) as Partial<SimpleSigningPayload>;
  } catch {
    return { problem: "the signed payload is not JSON" };
  }
  if (parsed.critical?.type !== SIMPLE_SIGNING_TYPE) {
    return {
      problem: `the signed payload's type is ${JSON.stringify(parsed.critical?.type)}, not "${SIMPLE_SIGNING_TYPE}"`,
    };
  }
  const digest = parsed.critical.image?.["docker-manifest-digest"];
  if (typeof digest !== "string") return { problem: "the signed payload names no docker-manifest-digest" };
  return { digest };
}
