// oci/provenance/: how tsop built an image, signed, where cosign looks (docs/images.md "Supply chain").
//   statement.ts  the in-toto statement with the SLSA provenance v1 predicate (build type per
//                 command, the command's inputs, what it read by digest, the builder)
//   dsse.ts       the DSSE envelope: PAE, sign, open
//   attest.ts     the signed statement onto a pushed image under cosign's sha256-<hex>.att tag
export { attestProvenance, attestPushed, type AttestResult } from "./attest.js";
export {
  DSSE_ENVELOPE_MEDIA_TYPE,
  type Envelope,
  IN_TOTO_PAYLOAD_TYPE,
  openEnvelope,
  pae,
  signEnvelope,
} from "./dsse.js";
export {
  BUILD_TYPES,
  type BuildCommand,
  type BuildDescription,
  provenanceStatement,
  type ResourceDescriptor,
  resource,
  SLSA_PROVENANCE_V1,
} from "./statement.js";
