// `--sign --key` of the push commands also attests: the SLSA provenance of the pushed image
// (statement.ts) in a DSSE envelope signed with the same key (dsse.ts), stored where cosign stores
// attestations: a layer of media type application/vnd.dsse.envelope.v1+json (annotations
// `predicateType` and an empty `dev.cosignproject.cosign/signature`, the signature being inside the
// envelope) in the manifest under the tag `sha256-<hex>.att`. `cosign verify-attestation --key
// cosign.pub --type slsaprovenance1 --insecure-ignore-tlog` reads it.
import type { KeyObject } from "node:crypto";
import { tsopVersion } from "../../common/version.js";
import type { Reporter } from "../../common/reporter.js";
import { epochFrom } from "../bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "../client.js";
import { type ImageReference, parseReference, pinnedReference } from "../reference.js";
import { appendAttachmentLayer, SIGNATURE_ANNOTATION } from "../sign/layout.js";
import { DSSE_ENVELOPE_MEDIA_TYPE, IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "./dsse.js";
import { type BuildDescription, provenanceStatement, SLSA_PROVENANCE_V1 } from "./statement.js";

export interface AttestResult {
  /** The attested image, pinned. */
  image: string;
  /** The tag the attestation manifest is under (sha256-<hex>.att). */
  attestationTag: string;
  /** How many attestations the image now carries. */
  attestations: number;
}

export async function attestProvenance(
  client: RegistryClient,
  ref: ImageReference,
  digest: string,
  build: BuildDescription,
  key: KeyObject,
  epoch?: number,
): Promise<AttestResult> {
  const statement = provenanceStatement({
    image: ref,
    digest,
    build,
    builder: { version: tsopVersion() },
    ...(epoch !== undefined ? { epoch } : {}),
  });
  const envelope = signEnvelope(statement, IN_TOTO_PAYLOAD_TYPE, key);
  const stored = await appendAttachmentLayer(client, ref, digest, "att", {
    payload: envelope,
    mediaType: DSSE_ENVELOPE_MEDIA_TYPE,
    annotations: { predicateType: SLSA_PROVENANCE_V1, [SIGNATURE_ANNOTATION]: "" },
  });
  return { image: pinnedReference(ref, digest), attestationTag: stored.tag, attestations: stored.layers };
}

/** Attests what a command just pushed: `image`'s repository at `digest` (`--sign --key`). */
export async function attestPushed(
  image: string,
  digest: string,
  build: BuildDescription,
  key: KeyObject,
  options: RegistryClientOptions & { env: NodeJS.ProcessEnv; reporter: Reporter },
): Promise<AttestResult> {
  const ref = { ...parseReference(image), digest };
  const client = new RegistryClient(options);
  try {
    return await attestProvenance(client, ref, digest, build, key, epochFrom({ env: options.env }));
  } finally {
    client.close();
  }
}
