// OLM commands. Pipeline: release.ts (manifests from a directory/URL, the cache, or the release
// download; "latest" via redirect) → detect.ts (existing OLM anywhere, its version, platform-managed)
// → install.ts (refuse/force, ordered server-side apply, readiness waits, rollback on failure) |
// status.ts (per-object health and a verdict, health.ts) | uninstall.ts (refuse while operators
// remain, ordered deletes with waits). User-facing text lives in messages.ts.
export { type InstallOptions, type InstallResult, olmInstall } from "./install.js";
export {
  DEFAULT_RELEASES_URL,
  defaultCacheDir,
  loadRelease,
  normalizeVersion,
  type OlmRelease,
} from "./release.js";
export { type OlmStatus, olmStatus, type StatusRow, type Verdict } from "./status.js";
export { olmUninstall, type UninstallOptions, type UninstallResult } from "./uninstall.js";
