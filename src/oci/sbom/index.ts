// oci/sbom/: the SBOM of an image tsop builds (docs/images.md "Supply chain").
//   cyclonedx.ts  the lockfile's production packages and the base image → CycloneDX 1.6 JSON
//   attach.ts     the SBOM onto a pushed image: OCI referrer (subject), referrers tag fallback,
//                 cosign's sha256-<hex>.sbom tag
export { attachSbom, type AttachedSbom } from "./attach.js";
export { CYCLONEDX_MEDIA_TYPE, cyclonedxSbom, productionPackages, type SbomInput } from "./cyclonedx.js";
