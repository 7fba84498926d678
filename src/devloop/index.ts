// The inner dev loop on a cluster: install/uninstall the project's CRDs, run the manager locally,
// deploy/undeploy it in-cluster without OLM.
// Stages: project.ts (config/crd, config/manager, config/default) → cluster.ts (connect through
// kube/connect.ts, custom resources, finalizer-aware deletes) → generate.ts (install, deploy) →
// crds.ts | run-local.ts (build.ts, env.ts + expand.ts, process.ts, watch.ts) | deploy.ts. Ordered
// deletes with waits come from kube/delete.ts, the same ones the OLM commands use.
export {
  type CrdOptions,
  install,
  type InstallOptions,
  type InstallResult,
  uninstall,
  type UninstallOptions,
  type UninstallResult,
} from "./crds.js";
export {
  DEPLOY_LABEL,
  deploy,
  type DeployOptions,
  type DeployResult,
  undeploy,
  type UndeployOptions,
} from "./deploy.js";
export { containerEnv } from "./env.js";
export { expand, mappingFor } from "./expand.js";
export { runLocal, type RunLocalOptions, type RunLocalResult } from "./run-local.js";
