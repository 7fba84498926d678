// The operator library: `import … from "tsop"`. Light by design (no CLI dependencies, no
// @kubernetes/client-node: tsop reads kubeconfigs itself): it ships inside operator images.
// At this folder's root sit the declarations `tsop generate` reads statically (decorators.ts,
// schema.ts, field-decorators.ts, webhooks.ts); the machinery lives in rooms, lowest first
// (scripts/check-architecture.ts keeps the order):
//   log/            logger
//   connect/        kubeconfig, credentials, rest (HTTP, watch streams), mapper, API errors
//   serving/        listeners and serving certificates for the metrics and webhook servers
//   metrics/        Prometheus registry, the metrics server and its authentication
//   client/         reads (from the cache where watched) and writes
//   controllerutil/ createOrUpdate/createOrPatch, owner references, finalizers, status, conditions,
//                   equality, related images
//   cache/          one shared informer per kind (per namespace), transforms, field indexes
//   events/         the event recorder and correlator
//   webhook/        the webhook server: admission (json-diff patches), conversion
//   controller/     builder (for / owns / watches, predicates, handlers) → priority or work queue
//                   + rate limits → reconcile
//   manager/        Manager (wires them all), options from flags, leader election
export * from "./decorators.js";
export * from "./schema.js";
export * from "./field-decorators.js";
export {
  Cache,
  type CacheKindOptions,
  type CacheOptions,
  type InformerRequest,
  type UnwatchedReads,
} from "./cache/cache.js";
export type { NamespaceSelector } from "./cache/namespace-watch.js";
export {
  Client,
  type ApplyOptions,
  type CacheReader,
  type DeleteAllOfOptions,
  type DeleteOptions,
  type KubeObjectLike,
  type ListOptions,
  type PartialObjectMetadata,
  type PatchType,
  type ReadOptions,
  type WriteOptions,
} from "./client/client.js";
export { strategicMergeFrom } from "./client/strategic-merge.js";
export {
  SubResourceClient,
  type SubResourcePatchOptions,
  type SubResourceTarget,
} from "./client/subresource.js";
export { createOrPatch } from "./controllerutil/create-or-patch.js";
export {
  hasOwnerReference,
  removeControllerReference,
  removeOwnerReference,
  setOwnerReference,
} from "./controllerutil/owner-references.js";
export { createMergePatch, type MergeFromOptions, mergeFrom, type Patch } from "./client/patch.js";
export {
  type ConditionInput,
  type ConditionTarget,
  findCondition,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
} from "./controllerutil/conditions.js";
export {
  Controller,
  type ControllerOptions,
  type ReconcileContext,
  type ReconcileFunction,
  type Reconciler,
  type Request,
  type Result,
} from "./controller/controller.js";
export {
  ControllerBuilder,
  type ForOptions,
  type MapFunction,
  type WatchOptions,
} from "./controller/builder.js";
export {
  and,
  annotationChanged,
  generationChanged,
  labelChanged,
  labelSelectorPredicate,
  not,
  type ObjectEvent,
  or,
  type Predicate,
  resourceVersionChanged,
} from "./controller/predicates.js";
export {
  type EnqueueForOwnerOptions,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type EventMapFunction,
  type HandlerContext,
  type WatchHandler,
  type WatchKeys,
} from "./controller/handlers.js";
export { type ControllerQueue, LOW_PRIORITY, PriorityQueue } from "./controller/priority-queue.js";
export { type IndexFunction } from "./cache/field-index.js";
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
} from "./connect/errors.js";
export {
  EventRecorder,
  type EventDetails,
  type EventRecorderOptions,
  type EventType,
  type EventsApi,
} from "./events/events.js";
export {
  AlreadyOwnedError,
  InvalidOwnerError,
  NotCachedError,
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
} from "./controllerutil/helpers.js";
export { quantitiesEqual, semanticEqual } from "./controllerutil/equality.js";
export {
  type EventHandler,
  Informer,
  type InformerHealth,
  type InformerObject,
  type InformerOptions,
  INITIAL_EVENTS_END,
  type SharedInformer,
} from "./cache/informer.js";
export {
  type ClusterAccess,
  type ClusterConfig,
  type KubeConfigOptions,
  type LoadedKubeConfig,
  loadKubeConfig,
  type UserConfig,
} from "./connect/kubeconfig.js";
export { CacheSyncTimeoutError } from "./manager/cache-sync.js";
export { LeaderElector, type LeaderElectionOptions } from "./manager/leader.js";
export {
  createLogger,
  type LogFields,
  type LogFormat,
  Logger,
  type LoggerOptions,
  type LogLevel,
  type LogSink,
} from "./log/logger.js";
export { type Check, Manager, type ManagerOptions, type ShardingOptions } from "./manager/manager.js";
export { type Runnable, RunnableError } from "./manager/runnables.js";
export {
  type GroupVersionKind,
  type KindClass,
  type KindRef,
  type ObjectKey,
  type ResourceMapping,
  RestMapper,
} from "./connect/mapper.js";
export {
  Counter,
  Gauge,
  Histogram,
  type Labels,
  MetricsRegistry,
  PROMETHEUS_CONTENT_TYPE,
} from "./metrics/metrics.js";
export { MANAGER_FLAGS_HELP, managerOptionsFromArgs } from "./manager/options.js";
export { WorkQueue } from "./controller/queue.js";
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
} from "./controller/ratelimit.js";
export { relatedImage, relatedImageEnvName } from "./controllerutil/related-image.js";
export {
  type CachedObject,
  type CacheTransform,
  chainTransforms,
  defaultTransform,
  dropLastApplied,
  LAST_APPLIED_ANNOTATION,
} from "./cache/transform.js";
export { RestClient, type RestOptions, type WatchEvent } from "./connect/rest.js";
export { isTerminalError, TerminalError, terminalError } from "./controller/terminal-error.js";
export { isAborted, RequestAbortedError } from "./connect/aborted.js";
export type { CallOptions, PatchOptions } from "./client/client.js";
