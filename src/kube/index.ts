// Cluster access for tsop's cluster commands, on the runtime's REST client (runtime/connect/rest.ts).
// Pipeline: config.ts (kubeconfig files, context, namespace, in-cluster; the runtime's loader) →
// client.ts (discovery, CRUD, server-side apply, watch, retries, error mapping) → connect.ts (flags
// in, a client out) → apply.ts (dependency-ordered apply), wait.ts (watch-based waits with relist
// fallback, progress, diagnostics.ts on timeout), delete.ts (the one delete order, delete and wait
// until gone) and list.ts (listing where an unserved kind means none).
export { type AppliedObject, applyAll, applyStage } from "./apply.js";
export {
  type ClientOptions,
  KubeClient,
  type ListResult,
  type ResourceInfo,
  type WatchEvent,
} from "./client.js";
export { type Connection, type ConnectionOptions, kubeconfigFiles, loadConnection } from "./config.js";
export { type ClusterOptions, connect } from "./connect.js";
export { type DeleteOutcome, deleteAndWait, deleteOrder } from "./delete.js";
export { describeState, diagnose } from "./diagnostics.js";
export * from "./errors.js";
export { listIn } from "./list.js";
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
