// tsop/testing: an in-memory Kubernetes API server for tests, spoken to over real HTTP.
// Rooms: memory/ is the in-memory server (http → engine → store → watch streams, with controllers
// for GC, namespaces and CRDs and the optional workloads/ simulation run after every write); real/
// runs etcd + kube-apiserver (+ controller-manager, scheduler, kwok) for
// startTestCluster({ controlPlane: "real" }); start.ts chooses between them. faults, tls, requests
// and webhook-config serve both. docs/architecture.md has the map.
export type { FaultMatch, FaultSpec, Faults, PartitionOptions } from "./faults.js";
export type { Authorizer } from "./memory/http.js";
export { type ForbidRule, type TestCluster, type TestClusterOptions } from "./memory/server.js";
export type { KObj, RequestAttributes, UserInfo } from "./memory/types.js";
export type { WorkloadOptions } from "./memory/workloads/index.js";
export type { BinaryName } from "./real/binaries.js";
export { DEFAULT_POD_STAGES, FAKE_NODE } from "./real/kwok-stages.js";
export type { RealTestCluster, RealTestClusterOptions } from "./real/types.js";
export {
  type ClusterAccess,
  type OperatorIdentity,
  type RunAsOperatorOptions,
  runAsOperator,
} from "./operator-identity.js";
export type { RequestRecord } from "./requests.js";
export { startTestCluster } from "./start.js";
export {
  type LocalWebhookTarget,
  localWebhookConfigurations,
  type ServingCertificate,
  withLocalConversion,
  writeServingCertificate,
} from "./webhook-config.js";
export {
  assertInvariants,
  CONFLICT_ANNOTATION,
  formatFailures,
  NORMALISED_PATHS,
  OPERATOR_USER,
  type PerturbFailure,
  type PerturbOptions,
  type PerturbResult,
  type PerturbStep,
  perturb,
  SCENARIOS,
  type ScenarioName,
  type ScenarioResult,
} from "./perturb/index.js";
