// `tsop olm install|status|uninstall --v1`: OLM v1 (catalogd + operator-controller). Pipeline:
// release.ts (the shipped manifests, olm-releases/olmv1) → detect.ts (an existing OLM v1 and its
// version, from the Deployments' image tags) → install.ts (refusals, certificates.ts instead of
// cert-manager, then v0's apply-wait-rollback flow) | status.ts (v0's rows and verdict) |
// uninstall.ts (ClusterExtensions and ClusterCatalogs first, then what install created). User-facing
// text lives in messages.ts.
export { olmInstallV1, type InstallV1Options, type InstallV1Result } from "./install.js";
export { olmStatusV1, type StatusV1Options } from "./status.js";
export { olmUninstallV1, type UninstallV1Options } from "./uninstall.js";
