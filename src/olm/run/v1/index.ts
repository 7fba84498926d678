// Running a bundle through OLM v1 (catalogd + operator-controller): `tsop run bundle --olm v1`,
// `run bundle-upgrade --olm v1`, `cleanup --olm v1`. Stages: detect.ts (which OLM, --olm) →
// bundle/load + refusals.ts (the olm-v1 validate suite; cert-manager for webhooks) → plan.ts
// (every object and the installer's RBAC, pure; --dry-run stops here) → catalog-image.ts (the FBC
// image pushed beside the bundle) → run-bundle.ts / bundle-upgrade.ts (create, then watch-based
// waits in checks.ts; the v0 path's Session journal and failRun roll back) → cleanup.ts
// (label-driven, staged deletes).
export {
  type BundleUpgradeV1Options,
  type BundleUpgradeV1Result,
  bundleUpgradeV1,
} from "./bundle-upgrade.js";
export { type CleanupV1Options, type CleanupV1Result, cleanupV1 } from "./cleanup.js";
export { chooseOlm, type OlmFlavor } from "./detect.js";
export { installerRules, planV1Objects, planV1RunBundle } from "./plan.js";
export { type RunBundleV1Options, type RunBundleV1Result, runBundleV1 } from "./run-bundle.js";
