// Running a bundle through OLM: `tsop run bundle`, `tsop run bundle-upgrade`, `tsop cleanup`.
// Stages: bundle/load (pull + read the bundle, as `bundle validate` does) → install-mode.ts (flag, CSV modes, existing
// OperatorGroup) → catalog.ts (FBC, gzip partitions) → plan.ts (every object, pure; --dry-run stops
// here; upgrade-preflight.ts reads what planUpgrade needs) → run-bundle.ts / bundle-upgrade.ts
// (create, then watch-based phases in checks.ts and install-flow.ts; session.ts keeps the rollback
// journal; failure.ts adds diagnostics and rolls back in kube/delete.ts's order) → cleanup.ts
// (cleanup-targets.ts finds, label-driven). names.ts holds names and labels; messages.ts the wording.
// Connecting (kube/connect.ts) and the check that OLM is there (../detect.ts) are shared with olm/.
export { type BundleUpgradeOptions, type BundleUpgradeResult, bundleUpgrade } from "./bundle-upgrade.js";
export {
  type CleanupItem,
  type CleanupOptions,
  type CleanupResult,
  cleanup,
  describeItem,
} from "./cleanup.js";
export { parseInstallMode } from "./install-mode.js";
export { planObjects, planRunBundle, planUpgrade, upgradeObjects } from "./plan.js";
export {
  DEFAULT_CSV_FAILED_GRACE_MS,
  type RunBundleOptions,
  type RunBundleResult,
  runBundle,
} from "./run-bundle.js";
