// oci/sbom/: the SBOMs of the images tsop builds (docs/images.md "Supply chain").
//   cyclonedx.ts  the CycloneDX 1.6 JSON writer; the operator image's BOM (the lockfile's production
//                 packages and the base image)
//   bundle.ts     the bundle image's BOM (its files, the images its CSV names) and the catalog
//                 image's (its base, its files, the bundle images it lists)
//   files.ts      files by SHA-256, as the bundle and catalog BOMs and provenance list them
//   attach.ts     an SBOM onto a pushed image: OCI referrer (subject), referrers tag fallback,
//                 cosign's sha256-<hex>.sbom tag
export { attachSbom, type AttachedSbom } from "./attach.js";
export { bundleSbom, catalogSbom, type ImageSbomSubject } from "./bundle.js";
export {
  CYCLONEDX_MEDIA_TYPE,
  cyclonedxDocument,
  cyclonedxSbom,
  ociPurl,
  productionPackages,
  type SbomInput,
} from "./cyclonedx.js";
export { type HashedFile, hashFiles } from "./files.js";
