// The operator library: `import { … } from "tsop"`. Light by design (no CLI dependencies, no
// @kubernetes/client-node: tsop reads kubeconfigs itself): it ships inside operator images.
// Declarations (decorators.ts, schema.ts) are read statically by `tsop generate`. The runtime:
//   manager.ts   → kubeconfig.ts, rest.ts (HTTP, watch streams; credentials.ts), mapper.ts
//   controller.ts (for/owns/watches → queue.ts + ratelimit.ts → reconcile) over cache.ts
//   (informer.ts per kind, namespaced-informer.ts per namespace, transform.ts; serves client reads)
//   leader.ts (Lease election), metrics.ts (Prometheus), logger.ts, events.ts
//   helpers.ts (createOrUpdate, finalizers, status; equality.ts), conditions.ts, related-image.ts
//   webhooks.ts (webhook decorators) → webhook-server.ts (HTTPS, loaded only when webhooks are
//   added) → admission.ts (AdmissionReview, json-diff.ts patches), conversion.ts (hub and spokes)
export * from "./decorators.js";
export * from "./schema.js";
export * from "./field-decorators.js";
export {
  Cache,
  type CacheKindOptions,
  type CacheOptions,
  type InformerRequest,
  type UnwatchedReads,
} from "./cache.js";
export {
  Client,
  type ApplyOptions,
  type CacheReader,
  type DeleteOptions,
  type KubeObjectLike,
  type ListOptions,
  type PatchType,
} from "./client.js";
export {
  type ConditionInput,
  type ConditionTarget,
  findCondition,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
} from "./conditions.js";
export {
  Controller,
  ControllerBuilder,
  type ControllerOptions,
  generationChanged,
  type MapFunction,
  type Predicate,
  type ReconcileContext,
  type ReconcileFunction,
  type Reconciler,
  type Request,
  type Result,
  type WatchOptions,
} from "./controller.js";
export {
  ApiError,
  ConfigError,
  isAlreadyExists,
  isConflict,
  isGone,
  isNoMatch,
  isNotFound,
  isTooManyRequests,
  NoKindMatchError,
  type StatusBody,
} from "./errors.js";
export { EventRecorder, type EventType } from "./events.js";
export {
  AlreadyOwnedError,
  InvalidOwnerError,
  type CreateOrUpdateOptions,
  createOrUpdate,
  ensureFinalizer,
  hasFinalizer,
  isBeingDeleted,
  type OperationResult,
  type RetryOptions,
  removeFinalizer,
  retryOnConflict,
  setControllerReference,
  updateStatus,
} from "./helpers.js";
export { quantitiesEqual, semanticEqual } from "./equality.js";
export {
  type EventHandler,
  Informer,
  type InformerHealth,
  type InformerObject,
  type InformerOptions,
  INITIAL_EVENTS_END,
  type SharedInformer,
} from "./informer.js";
export {
  type ClusterAccess,
  type ClusterConfig,
  type KubeConfigOptions,
  type LoadedKubeConfig,
  loadKubeConfig,
  type UserConfig,
} from "./kubeconfig.js";
export { LeaderElector, type LeaderElectionOptions } from "./leader.js";
export {
  createLogger,
  type LogFields,
  type LogFormat,
  Logger,
  type LoggerOptions,
  type LogLevel,
  type LogSink,
} from "./logger.js";
export { type Check, Manager, type ManagerOptions } from "./manager.js";
export {
  type GroupVersionKind,
  type KindClass,
  type KindRef,
  type ObjectKey,
  type ResourceMapping,
  RestMapper,
} from "./mapper.js";
export {
  Counter,
  Gauge,
  Histogram,
  type Labels,
  MetricsRegistry,
  PROMETHEUS_CONTENT_TYPE,
} from "./metrics.js";
export { MANAGER_FLAGS_HELP, managerOptionsFromArgs } from "./options.js";
export { WorkQueue } from "./queue.js";
export {
  AdmissionDenied,
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionWebhookOptions,
  ConversionWebhook,
  type ConversionWebhookOptions,
  type Converter,
  type Defaulter,
  MutatingWebhook,
  type MutatingWebhookOptions,
  type Spoke,
  ValidatingWebhook,
  type ValidatingWebhookOptions,
  type Validator,
  type Warnings,
  webhooksOf,
} from "./webhooks.js";
export {
  BucketRateLimiter,
  defaultRateLimiter,
  ExponentialBackoffRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from "./ratelimit.js";
export { relatedImage, relatedImageEnvName } from "./related-image.js";
export {
  type CachedObject,
  type CacheTransform,
  chainTransforms,
  defaultTransform,
  LAST_APPLIED_ANNOTATION,
} from "./transform.js";
export { RestClient, type RestOptions, type WatchEvent } from "./rest.js";
