// tsop/testing: an in-memory Kubernetes API server for tests, spoken to over real HTTP.
// Pipeline: http (auth, faults, routing) → engine (admission, concurrency, finalizers) → store
// (resourceVersion, history) → watch streams; controllers (GC, namespaces, CRDs) and the optional
// workloads simulation run after every write. startTestCluster({ controlPlane: "real" }) runs the
// real etcd + kube-apiserver (+ controller-manager, scheduler, kwok) instead (src/testing/real).
export type { FaultMatch, FaultSpec, Faults } from "./faults.js";
export type { Authorizer } from "./http.js";
export type { BinaryName } from "./real/binaries.js";
export { DEFAULT_POD_STAGES, FAKE_NODE } from "./real/kwok-stages.js";
export type { RealTestCluster, RealTestClusterOptions } from "./real/types.js";
export {
  type ForbidRule,
  type RequestRecord,
  startTestCluster,
  type TestCluster,
  type TestClusterOptions,
} from "./server.js";
export type { KObj, RequestAttributes, UserInfo } from "./types.js";
export {
  type LocalWebhookTarget,
  localWebhookConfigurations,
  type ServingCertificate,
  withLocalConversion,
  writeServingCertificate,
} from "./webhook-config.js";
export type { WorkloadOptions } from "./workloads.js";
