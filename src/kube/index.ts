// Cluster access for tsop's cluster commands.
// Pipeline: config.ts (kubeconfig files, context, namespace, in-cluster) → http.ts (TLS, tokens,
// exec plugins via exec-credential.ts, proxies) → client.ts (discovery, CRUD, server-side apply,
// watch, retries, error mapping) → apply.ts (dependency-ordered apply) and wait.ts (watch-based waits
// with relist fallback, progress, diagnostics.ts on timeout).
export { type AppliedObject, applyAll, applyStage } from "./apply.js";
export {
  type ClientOptions,
  KubeClient,
  type ListResult,
  type ResourceInfo,
  type WatchEvent,
} from "./client.js";
export { type Connection, type ConnectionOptions, kubeconfigFiles, loadConnection } from "./config.js";
export { describeState, diagnose } from "./diagnostics.js";
export * from "./errors.js";
export { download } from "./http.js";
export * from "./objects.js";
export {
  type CheckResult,
  crdEstablishedCheck,
  deploymentCheck,
  goneCheck,
  WaitFailedError,
  type WaitTarget,
  waitFor,
} from "./wait.js";
