// The Manager runs an operator: it loads cluster credentials, owns the cache (shared informers, one
// per kind, that the client reads watched kinds from), serves /healthz, /readyz and /metrics
// (metrics-server.ts), optionally elects a leader, starts controllers once caches are synced (and it
// leads), and shuts everything down gracefully on SIGTERM/SIGINT.
// Stages: create() → loadKubeConfig → RestClient/RestMapper/Client; start() → probe and metrics
// servers → informers → leader election (renewing from acquisition on, whatever else waits) → wait
// for sync (at most cacheSyncTimeoutMs) → controller workers; stop() → reverse, in one budget.
// Fencing: leadership lost stops the workers at once (drain 0), and the lease is released only when
// no reconcile is still running; otherwise it is left to expire.
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cache, type CacheOptions, type InformerRequest } from "../cache/cache.js";
import { Client } from "../client/client.js";
import { ControllerBuilder, type ForOptions } from "../controller/builder.js";
import type { IndexFunction } from "../cache/field-index.js";
import type { Controller, ControllerHost } from "../controller/controller.js";
import { ConfigError } from "../connect/errors.js";
import { EventRecorder, type EventsApi } from "../events/events.js";
import type { InformerSettings, SharedInformer } from "../cache/informer.js";
import { type KubeConfigOptions, loadKubeConfig } from "../connect/kubeconfig.js";
import { LeaderElector, type LeaderElectionOptions, validateLeaderElection } from "./leader.js";
import { type Check, probeHandler } from "./probes.js";
import { type Runnable, RunnableGroup, type RunnableError, runnableName } from "./runnables.js";
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS, lastErrorText, waitForCaches } from "./cache-sync.js";
import { listenOn, parseBindAddress } from "../serving/listen.js";
import { Logger, type LoggerOptions } from "../log/logger.js";
import { type KindRef, RestMapper } from "../connect/mapper.js";
import { MetricsAuthorizer } from "../metrics/metrics-auth.js";
import { MetricsServer } from "../metrics/metrics-server.js";
import { MetricsRegistry, type RuntimeMetrics, runtimeMetrics } from "../metrics/metrics.js";
import { registerProcessMetrics } from "../metrics/process.js";
import { RestClient } from "../connect/rest.js";
import type { WebhookRoute, WebhookServer } from "../webhook/webhook-server.js";
import { webhooksOf } from "../webhooks.js";
import { ShardRuntime, type ShardingOptions } from "./shard-runtime.js";

export type { ShardingOptions } from "./shard-runtime.js";

export interface ManagerOptions extends KubeConfigOptions {
  /**
   * Restrict caches (and so controllers) to one namespace, or several separated by commas (as
   * operator-sdk's WATCH_NAMESPACE). Default: all namespaces.
   */
  namespace?: string;
  /** What the client reads from the cache, and what the cache holds (docs/runtime.md, "The cache"). */
  cache?: CacheOptions;
  /** "host:port" or ":port" for /metrics; "0" disables. Default ":8443" when metricsSecure, else ":8080". */
  metricsBindAddress?: string;
  /**
   * Serve /metrics over HTTPS to callers the API server authenticates (TokenReview) and authorizes
   * (SubjectAccessReview, get on the path), as kubebuilder v4's --metrics-secure. Default false
   * (plain HTTP, as controller-runtime's metrics server); the manager flags default it to true.
   */
  metricsSecure?: boolean;
  /**
   * Directory of the metrics serving certificate, watched for rotation. Default: a self-signed
   * certificate made at start.
   */
  metricsCertDir?: string;
  /**
   * Serve /debug/pprof/profile?seconds=N (a CPU profile) and /debug/pprof/heap (a heap snapshot) on
   * the metrics server, behind the same authentication and authorization as /metrics, as Go's
   * pprof. Default false: a profile costs CPU and a snapshot pauses the process.
   */
  profiling?: boolean;
  /** File names in metricsCertDir. Default "tls.crt" and "tls.key". */
  metricsCertName?: string;
  metricsKeyName?: string;
  /** How often the metrics certificate files are checked for changes (ms). Default 1000. */
  metricsCertPollIntervalMs?: number;
  /** "host:port" or ":port" for /healthz and /readyz; "0" disables. Default ":8081". */
  healthProbeBindAddress?: string;
  leaderElection?: LeaderElectionOptions;
  /**
   * Built-in sharding (off by default; docs/runtime.md "Sharding"): every replica holds a shard Lease
   * and reconciles only the objects of its shard (its informers of primary and owned kinds select
   * them server-side); the leader assigns objects with a consistent-hash ring and moves them through
   * a drain/acknowledge handover, so no key is reconciled by two replicas at once. Needs leader
   * election; controllers run on every replica.
   */
  sharding?: ShardingOptions;
  /** How long shutdown waits in all for running reconciles and unwritten events. Default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /**
   * How long start() waits for the caches to sync before it fails, naming the kinds still waiting
   * and their last list error (e.g. a 403 of a missing RBAC verb). Default 2 min, as
   * controller-runtime's CacheSyncTimeout.
   */
  cacheSyncTimeoutMs?: number;
  /** Periodic resync of every cached object (ms). Default 10 h; 0 disables. */
  syncPeriodMs?: number;
  /** Watch lifetime asked of the server (seconds, randomised up to 2×). Default 300. */
  watchTimeoutSeconds?: number;
  /** Informer without progress for this long fails /healthz (ms). Default 2 × 2 × watch lifetime + 60 s. */
  watchStaleAfterMs?: number;
  /** Grace after a watch's lifetime before a silent watch counts as wedged (ms). Default 30 s. */
  watchWedgedGraceMs?: number;
  /** A Logger, or options for the default one. */
  logger?: Logger | LoggerOptions;
  /** Component name on recorded Events (reportingController on events.k8s.io/v1). Default "tsop-operator" or the leader election id. */
  eventSource?: string;
  /**
   * The Events API the recorder writes: "auto" (default) records events.k8s.io/v1 Events where the
   * server serves them (discovery; core/v1 if it refuses them with 403), "v1" or "events.k8s.io/v1"
   * forces one.
   */
  eventsApi?: EventsApi;
  /** Stop on SIGTERM/SIGINT. Default true. */
  handleSignals?: boolean;
  /**
   * Export process_* (CPU, memory, file descriptors) and nodejs_* (heap spaces, event-loop delay,
   * GC durations) metrics, read at scrape time. Default true.
   */
  processMetrics?: boolean;
  /** Extra metrics registry to expose (default: a new one, available as manager.metrics). */
  metricsRegistry?: MetricsRegistry;
  /** "host:port" or ":port" of the HTTPS webhook server (started only when webhooks are added); "0" disables. Default ":9443". */
  webhookBindAddress?: string;
  /** Directory of the webhook serving certificate. Default "<tmpdir>/k8s-webhook-server/serving-certs". */
  webhookCertDir?: string;
  /** File names in webhookCertDir. Default "tls.crt" and "tls.key". */
  webhookCertName?: string;
  webhookKeyName?: string;
  /** How often the certificate files are checked for changes (ms). Default 1000. */
  webhookCertPollIntervalMs?: number;
}

export type { Check } from "./probes.js";

export class Manager {
  /** Writes go to the server; reads of watched kinds come from the cache. */
  readonly client: Client;
  /** Reads (and writes) straight to the API server: for reads that must be fresh (= client.apiReader). */
  readonly apiReader: Client;
  readonly cache: Cache;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  readonly runtimeMetrics: RuntimeMetrics;
  readonly events: EventRecorder;
  readonly mapper: RestMapper;
  private readonly controllers: Controller[] = [];
  private readonly healthChecks = new Map<string, Check>();
  private readonly readyChecks = new Map<string, Check>();
  private readonly servers: http.Server[] = [];
  private metricsServer: MetricsServer | undefined;
  private readonly webhookRoutes = new Map<string, WebhookRoute>();
  private webhookServer: WebhookServer | undefined;
  private readonly stopController = new AbortController();
  /** Aborted when shutdown has stopped the work: the lease is no longer renewed. */
  private readonly holdController = new AbortController();
  /** Aborted when a renewal failed past the renew deadline. */
  private readonly lostLeadership = new AbortController();
  private holding: Promise<void> | undefined;
  private shardHolding: Promise<void> | undefined;
  private elector: LeaderElector | undefined;
  private readonly electedPromise: Promise<void>;
  private resolveElected: () => void = () => {};
  private running: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private started = false;
  /** Leader-only controllers and runnables are running (this replica leads, caches synced). */
  private controllersStarted = false;
  /** Controllers with needLeaderElection: false are running (caches synced). */
  private followersStarted = false;
  private readonly leaderRunnables = new RunnableGroup((err) => this.fail(err));
  private readonly otherRunnables = new RunnableGroup((err) => this.fail(err));
  private runnableCount = 0;
  /** ManagerOptions.sharding at work (undefined without it). */
  private readonly shards: ShardRuntime | undefined;
  private readonly informerSettings: InformerSettings;
  private stopProcessMetrics: (() => void) | undefined;
  /** The first error that stops the manager (a failed runnable, a cache sync timeout). */
  private failure: { error: unknown } | undefined;
  /** "http://host:port" of the probe server once listening. */
  healthProbeUrl: string | undefined;
  /** "http://host:port" (or "https://…" when metricsSecure) of the metrics server once listening. */
  metricsUrl: string | undefined;
  /** "https://host:port" of the webhook server once listening. */
  webhookUrl: string | undefined;

  private constructor(
    readonly rest: RestClient,
    readonly options: ManagerOptions,
    readonly defaultNamespace: string | undefined,
    private readonly inCluster: boolean,
  ) {
    if (options.leaderElection && options.leaderElection.enabled !== false)
      validateLeaderElection(options.leaderElection);
    this.electedPromise = new Promise((resolve) => (this.resolveElected = resolve));
    this.logger = options.logger instanceof Logger ? options.logger : new Logger(options.logger ?? {});
    this.metrics = options.metricsRegistry ?? new MetricsRegistry();
    this.runtimeMetrics = runtimeMetrics(this.metrics);
    const host = new URL(rest.server).host;
    rest.onResponse = (method, status) =>
      this.runtimeMetrics.restRequests.inc({ code: status ? String(status) : "<error>", method, host });
    this.mapper = new RestMapper(rest);
    this.informerSettings = {
      resyncPeriodMs: options.syncPeriodMs,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      staleAfterMs: options.watchStaleAfterMs,
      wedgedGraceMs: options.watchWedgedGraceMs,
      logger: this.logger.named("informer"),
      metrics: this.runtimeMetrics,
    };
    const apiReader = new Client(rest, this.mapper, defaultNamespace ?? "default");
    this.shards = options.sharding
      ? new ShardRuntime(options.sharding, options.leaderElection, apiReader, this.logger.named("sharding"))
      : undefined;
    const cacheOpts = cacheOptions(options);
    this.cache = new Cache(
      rest,
      this.mapper,
      this.shards ? { ...cacheOpts, shardSelector: this.shards.selector } : cacheOpts,
      this.informerSettings,
    );
    if (this.shards) {
      const member = this.shards.member;
      this.cache.prepareCreate = (obj) => member.prepareCreate(obj);
    }
    this.client = new Client(
      rest,
      this.mapper,
      defaultNamespace ?? "default",
      undefined,
      this.cache,
      undefined,
      this.cache,
    );
    this.apiReader = this.client.apiReader;
    this.events = new EventRecorder(
      this.apiReader,
      options.eventSource ?? options.leaderElection?.id ?? "tsop-operator",
      this.logger.named("events"),
      { onDrop: () => this.runtimeMetrics.eventsDropped.inc(), api: options.eventsApi ?? "auto" },
    );
  }

  /** Loads credentials (options.kubeconfig / KUBECONFIG / in-cluster / ~/.kube/config) and builds a manager. */
  static async create(options: ManagerOptions = {}): Promise<Manager> {
    const loaded = await loadKubeConfig(options);
    const rest = new RestClient(loaded.server, loaded);
    const manager = new Manager(rest, options, loaded.namespace, loaded.inCluster);
    manager.logger.named("setup").info("loaded kubeconfig", { source: loaded.source, server: loaded.server });
    return manager;
  }

  /** Starts building a controller for a primary kind (a @CustomResource class or { apiVersion, kind }). */
  controller(kind: KindRef, options: ForOptions = {}): ControllerBuilder {
    return new ControllerBuilder(this.host(), kind, options);
  }

  /**
   * Indexes cached objects of `kind` by the values `fn` returns, so that
   * `client.list(kind, { matchingFields: { [indexName]: value } })` answers from the index.
   */
  indexField(kind: KindRef, indexName: string, fn: IndexFunction): Promise<void> {
    return this.cache.indexField(kind, indexName, fn);
  }

  /** The shared informer of a kind (created on first use; started with the manager). */
  informerFor(kind: KindRef, request: InformerRequest = {}): Promise<SharedInformer> {
    return this.cache.informerFor(kind, request);
  }

  /**
   * Serves a webhook handler: a class instance decorated with @MutatingWebhook (it has
   * `default(obj)`), @ValidatingWebhook (validateCreate/Update/Delete) and/or @ConversionWebhook
   * (`spokes`). The HTTPS server starts with the manager when at least one webhook is added.
   */
  addWebhook(handler: object): void {
    const declared = webhooksOf(handler.constructor);
    const name = handler.constructor.name || "the handler";
    const has = (method: string) => typeof (handler as Record<string, unknown>)[method] === "function";
    const fail = (what: string) =>
      new ConfigError(`${name} ${what}`, {
        hint: "decorate the class with @MutatingWebhook, @ValidatingWebhook or @ConversionWebhook and implement the methods they need",
      });
    if (declared.mutating.length + declared.validating.length + declared.conversion.length === 0)
      throw fail("has no @MutatingWebhook, @ValidatingWebhook or @ConversionWebhook decorator");
    const claim = (path: string, route: WebhookRoute) => {
      if (this.webhookRoutes.has(path)) throw fail(`uses webhook path ${path}, which is already served`);
      this.webhookRoutes.set(path, route);
    };
    for (const options of declared.mutating) {
      if (!has("default")) throw fail("is a @MutatingWebhook but has no default(obj) method");
      claim(options.path, { type: "mutating", name: options.name, handler: handler as never });
    }
    for (const options of declared.validating) {
      for (const method of ["validateCreate", "validateUpdate", "validateDelete"])
        if (!has(method)) throw fail(`is a @ValidatingWebhook but has no ${method} method`);
      claim(options.path, { type: "validating", name: options.name, handler: handler as never });
    }
    for (const options of declared.conversion) {
      const spokes = (handler as { spokes?: unknown }).spokes;
      if (typeof spokes !== "object" || spokes === null)
        throw fail("is a @ConversionWebhook but has no spokes (version → { toHub, fromHub })");
      const path = options.path ?? "/convert";
      const existing = this.webhookRoutes.get(path);
      const entry = { options, converter: handler as never };
      if (existing?.type === "conversion") existing.converters.push(entry);
      else claim(path, { type: "conversion", converters: [entry] });
    }
  }

  /**
   * Adds a runnable (controller-runtime's manager.Add): its start(signal) runs with the manager,
   * on the leader only unless needLeaderElection is false; signal aborts at stop. A runnable that
   * rejects stops the manager, and start() rejects naming it.
   */
  add(runnable: Runnable): void {
    if (typeof runnable?.start !== "function")
      throw new ConfigError("manager.add() needs an object with a start(signal) method", {
        hint: "pass { start: async (signal) => { ... }, needLeaderElection?: boolean }",
      });
    const name = runnableName(runnable, this.runnableCount++);
    const group = runnable.needLeaderElection === false ? this.otherRunnables : this.leaderRunnables;
    group.add(runnable, name);
  }

  /** A liveness check: return false or a string (the reason) to fail /healthz. */
  addHealthCheck(name: string, check: Check): void {
    this.healthChecks.set(name, check);
  }

  /** A readiness check: return false or a string (the reason) to fail /readyz. */
  addReadyCheck(name: string, check: Check): void {
    this.readyChecks.set(name, check);
  }

  /** Whether this manager currently leads (always true without leader election, once started). */
  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.controllersStarted;
  }

  /**
   * Resolves once this replica leads: when it acquires the lease, or at start() without leader
   * election (controller-runtime's Elected()). Never resolves on a replica that stops first.
   */
  elected(): Promise<void> {
    return this.electedPromise;
  }

  /** This manager's identity in the leader election lease (once started with leader election). */
  get leaderIdentity(): string | undefined {
    return this.elector?.identity;
  }

  /** Whether every informer has loaded its first list. */
  async cachesSynced(): Promise<boolean> {
    const all = await this.cache.all();
    return all.every((i) => i.hasSynced());
  }

  /** Whether a controller's workers start only on the leader (with sharding: on every replica). */
  private leaderOnly(c: Controller): boolean {
    return c.needLeaderElection && !this.shards;
  }

  private host(): ControllerHost {
    return {
      informerFor: (kind, request) => {
        if (request?.shardRole) this.shards?.noteKind(kind, request.shardRole);
        return this.informerFor(kind, request);
      },
      ownWrites: this.cache.ownWrites,
      client: this.client,
      events: this.events,
      logger: this.logger,
      metrics: this.runtimeMetrics,
      register: (controller) => {
        this.controllers.push(controller);
        this.shards?.register(controller);
        if (this.leaderOnly(controller) ? this.controllersStarted : this.followersStarted) controller.start();
      },
    };
  }

  /**
   * Runs until stop() or SIGTERM/SIGINT; resolves after a graceful shutdown. Rejects if leadership
   * is lost (the process should exit and be restarted, as controller-runtime does).
   */
  start(): Promise<void> {
    this.running ??= this.run();
    return this.running;
  }

  private async run(): Promise<void> {
    const log = this.logger.named("manager");
    const signal = this.stopController.signal;
    if (signal.aborted) return; // stopped before it started
    let signalled = false;
    const onSignal = (name: string) => () => {
      if (signalled) {
        // A second signal while shutting down: the operator asked twice, stop waiting.
        log.error("received a second signal; exiting without finishing the shutdown", undefined, {
          signal: name,
        });
        process.exit(1);
      }
      signalled = true;
      log.info("received signal; shutting down", { signal: name });
      void this.stop();
    };
    // Go's mgr.Start blocks until its context ends; an await holds nothing open in Node, so a manager
    // with no server, informer or timer of its own would let the process exit mid-run (code 13).
    const keepAlive = setInterval(() => {}, 2 ** 30);
    const handlers: Array<[NodeJS.Signals, () => void]> = [];
    if (this.options.handleSignals !== false) {
      for (const s of ["SIGTERM", "SIGINT"] as const) {
        const h = onSignal(s);
        handlers.push([s, h]);
        process.on(s, h);
      }
    }
    try {
      if (this.options.processMetrics !== false)
        this.stopProcessMetrics = registerProcessMetrics(this.metrics);
      await this.listen();
      this.started = true;
      const informers = await this.cache.start();
      if (this.shards && !(await this.holdShard(signal))) return;
      // Work that runs on every replica starts whether or not this one leads.
      this.otherRunnables.start(signal);
      const followers = this.startFollowers(informers, signal).catch((err: unknown) => this.fail(err));
      const le = this.options.leaderElection;
      if (le && le.enabled !== false) {
        await this.lead(le, informers, signal);
      } else {
        this.resolveElected();
        await this.startControllers(informers, signal);
        await abortedPromise(signal);
      }
      await followers;
    } catch (err) {
      this.fail(err);
    } finally {
      for (const [s, h] of handlers) process.off(s, h);
      await this.shutdown();
      clearInterval(keepAlive);
    }
    if (this.failure) throw this.failure.error;
  }

  /** Records the first error that ends the manager and begins the shutdown. */
  private fail(err: unknown): void {
    if (!this.failure) {
      this.failure = { error: err };
      if ((err as RunnableError).runnable)
        this.logger.named("manager").error("a runnable failed; stopping the manager", err);
    }
    this.stopController.abort();
  }

  /** Starts the controllers with needLeaderElection: false once the caches synced. */
  private async startFollowers(informers: SharedInformer[], signal: AbortSignal): Promise<void> {
    if (!this.controllers.some((c) => !this.leaderOnly(c))) {
      this.followersStarted = true; // none yet: one registered later starts at once
      return;
    }
    const timeout = this.options.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(await waitForCaches(informers, timeout, signal))) return;
    this.followersStarted = true;
    for (const c of this.controllers) if (!this.leaderOnly(c)) c.start();
  }

  /**
   * Sharding: takes this replica's shard Lease before any reconcile, adds the sharder to the
   * leader's runnables, and renews the Lease from now on; failing to renew stops all work at once.
   * Resolves false if stopped before the Lease was taken.
   */
  private async holdShard(signal: AbortSignal): Promise<boolean> {
    const shards = this.shards as ShardRuntime;
    const namespace = this.leaseNamespace(this.options.leaderElection as LeaderElectionOptions);
    if (!(await shards.acquire(namespace, signal))) return false;
    this.add(shards.sharder(this.rest, this.mapper, this.informerSettings, namespace));
    this.shardHolding = shards.hold(this.holdController.signal).catch((err: unknown) => {
      this.logger.named("manager").error("shard lease lost; stopping all work at once", err);
      this.lostLeadership.abort();
      this.fail(err);
    });
    return true;
  }

  private leaseNamespace(le: LeaderElectionOptions): string {
    const namespace = le.namespace ?? (this.inCluster ? this.defaultNamespace : undefined);
    if (!namespace)
      throw new ConfigError("leader election needs a namespace when not running in a cluster", {
        hint: "set leaderElection.namespace (--leader-election-namespace) or disable leader election",
      });
    return namespace;
  }

  /**
   * Campaigns; once leading, renews independently of everything else (from acquisition on, through
   * the cache sync and the shutdown's drain), and starts the controllers once the caches synced.
   * Resolves on stop; rejects when leadership is lost.
   */
  private async lead(le: LeaderElectionOptions, informers: SharedInformer[], signal: AbortSignal) {
    const namespace = this.leaseNamespace(le);
    const elector = new LeaderElector(
      this.apiReader,
      { ...le, namespace, ...(this.shards ? { identity: this.shards.identity } : {}) },
      this.logger.named("leader-election"),
    );
    this.elector = elector;
    const gauge = this.runtimeMetrics.leader;
    gauge.set({ name: le.id }, 0);
    if (!(await elector.acquire(signal))) return;
    gauge.set({ name: le.id }, 1);
    this.resolveElected();
    let lost: unknown;
    this.holding = elector.holdUntil(this.holdController.signal).catch((err: unknown) => {
      lost = err;
      gauge.set({ name: le.id }, 0);
      this.logger.named("manager").error("leader election lost; stopping all work at once", err);
      this.lostLeadership.abort();
    });
    const work = new AbortController();
    const stopWork = () => work.abort();
    signal.addEventListener("abort", stopWork, { once: true });
    this.lostLeadership.signal.addEventListener("abort", stopWork, { once: true });
    try {
      await this.startControllers(informers, work.signal);
      await abortedPromise(work.signal);
    } finally {
      signal.removeEventListener("abort", stopWork);
      this.lostLeadership.signal.removeEventListener("abort", stopWork);
    }
    if (lost) throw lost;
  }

  private async startControllers(informers: SharedInformer[], signal: AbortSignal): Promise<void> {
    const timeout = this.options.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(await waitForCaches(informers, timeout, signal))) return;
    this.controllersStarted = true;
    for (const c of this.controllers) if (this.leaderOnly(c)) c.start();
    this.leaderRunnables.start(signal);
  }

  /** Begins a graceful shutdown; resolves when it is complete. */
  stop(): Promise<void> {
    this.stopController.abort();
    if (!this.running) return this.shutdown();
    return this.running.catch(() => {});
  }

  /**
   * Stops everything. Controllers and the event flush share one budget, gracefulShutdownTimeoutMs;
   * the lease is renewed until the controllers stopped, then released only if no reconcile is still
   * running (else a standby could take over while one writes: it is left to expire).
   */
  private shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      const log = this.logger.named("manager");
      const deadline = Date.now() + (this.options.gracefulShutdownTimeoutMs ?? 30_000);
      const remaining = () => Math.max(0, deadline - Date.now());
      log.info("stopping controllers and runnables");
      // Runnables' signals are aborted already (stop, or lost leadership); they drain with the controllers.
      const [controllersDrained, runnablesDone] = await Promise.all([
        this.stopControllers(remaining()),
        this.leaderRunnables.wait(remaining()),
        this.otherRunnables.wait(remaining()),
      ]).then(([c, l, o]) => {
        if (!l || !o) log.warn("runnables still running after the shutdown timeout");
        return [c, l] as const;
      });
      const drained = controllersDrained && runnablesDone;
      this.holdController.abort();
      await this.holding;
      await this.shardHolding;
      await this.shards?.release(drained);
      await this.cache.stop();
      if (!(await this.events.flush(remaining())))
        log.warn("shutdown timeout reached; unwritten events are dropped", { pending: this.events.pending });
      if (this.elector) {
        const lease = `${this.elector.identity} on ${this.options.leaderElection?.namespace ?? ""}/${this.options.leaderElection?.id ?? ""}`;
        if (drained) await this.elector.release();
        else if (this.elector.isLeader()) {
          this.elector.abandon();
          log.warn(
            "reconciles still running after the shutdown timeout; leaving the leader lease to expire",
            {
              lease,
            },
          );
        }
        this.runtimeMetrics.leader.set({ name: this.options.leaderElection?.id ?? "" }, 0);
      }
      await this.webhookServer?.stop();
      await this.metricsServer?.stop();
      this.stopProcessMetrics?.();
      await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
      for (const s of this.servers) s.closeAllConnections?.();
      this.rest.close();
      log.info("stopped");
    })();
    return this.stopped;
  }

  /**
   * Stops every controller within budgetMs; cut to no drain at all as soon as leadership is lost
   * (another replica may lead). Resolves whether no reconcile is still running.
   */
  private async stopControllers(budgetMs: number): Promise<boolean> {
    const stopAll = async (ms: number) =>
      (await Promise.all(this.controllers.map((c) => c.stop(ms)))).every((r) => r.drained);
    const lost = this.lostLeadership.signal;
    if (lost.aborted) return stopAll(0);
    const cut = new AbortController();
    try {
      return await Promise.race([
        stopAll(budgetMs),
        abortedPromise(AbortSignal.any([lost, cut.signal])).then(() => (lost.aborted ? stopAll(0) : false)),
      ]);
    } finally {
      cut.abort();
    }
  }

  private builtinChecks(kind: "health" | "ready"): Map<string, Check> {
    const checks = new Map<string, Check>();
    if (kind === "health") {
      checks.set("informers", async () => {
        const all = await this.cache.all();
        const bad = all.map((i) => i.health()).filter((h) => !h.healthy);
        return bad.length === 0 || bad.map((h) => `${h.resource}: ${h.detail}`).join("; ");
      });
      for (const [n, c] of this.healthChecks) checks.set(n, c);
    } else {
      checks.set("informers", async () => {
        if (!this.started) return "not started";
        const all = await this.cache.all();
        const waiting = all
          .filter((i) => !i.hasSynced() && !i.waitingFor?.())
          .map((i) => {
            const last = lastErrorText(i);
            return last ? `${i.resource} (last error: ${last})` : i.resource;
          });
        return waiting.length === 0 || `caches not synced: ${waiting.join("; ")}`;
      });
      // A controller whose optional primary kind waits for its CRD does no work: not ready. Only
      // with such a controller (an optional kind's informer can wait; others never do).
      if (this.controllers.some((c) => c.primarySource?.waitingFor))
        checks.set("crds", () => {
          const waiting = this.controllers.flatMap((c) => {
            const what = c.waitingFor();
            return what ? [`controller ${c.name} waits for ${what}`] : [];
          });
          return waiting.length === 0 || waiting.join("; ");
        });
      for (const [n, c] of this.readyChecks) checks.set(n, c);
    }
    return checks;
  }

  private async listen(): Promise<void> {
    await this.listenProbes();
    await this.listenMetrics();
    await this.listenWebhooks();
  }

  private async listenProbes(): Promise<void> {
    const probe = parseBindAddress(this.options.healthProbeBindAddress ?? ":8081");
    if (!probe) return;
    const server = http.createServer(probeHandler((kind) => this.builtinChecks(kind)));
    this.healthProbeUrl = await listenOn(server, probe, "http");
    this.servers.push(server);
  }

  private async listenMetrics(): Promise<void> {
    const o = this.options;
    const at = parseBindAddress(o.metricsBindAddress ?? (o.metricsSecure ? ":8443" : ":8080"));
    if (!at) return;
    const logger = this.logger.named("metrics");
    const server = new MetricsServer({
      ...at,
      render: () => this.metrics.render(),
      logger,
      profiling: o.profiling === true,
      ...(o.metricsSecure
        ? {
            secure: {
              authorizer: new MetricsAuthorizer(this.rest, logger),
              ...(o.metricsCertDir ? { certDir: o.metricsCertDir } : {}),
              certName: o.metricsCertName ?? "tls.crt",
              keyName: o.metricsKeyName ?? "tls.key",
              ...(o.metricsCertPollIntervalMs === undefined
                ? {}
                : { certPollIntervalMs: o.metricsCertPollIntervalMs }),
            },
          }
        : {}),
    });
    this.metricsServer = server;
    this.metricsUrl = await server.start();
    // A rotated certificate that cannot be loaded fails liveness, as the webhook server's does.
    if (o.metricsSecure) this.healthChecks.set("metrics", () => server.healthy());
  }

  private async listenWebhooks(): Promise<void> {
    const at = parseBindAddress(this.options.webhookBindAddress ?? ":9443");
    if (this.webhookRoutes.size === 0) return;
    if (!at) {
      this.logger.named("webhooks").info("webhooks are disabled; not serving them", {
        paths: [...this.webhookRoutes.keys()].sort(),
      });
      return;
    }
    const { WebhookServer } = await import("../webhook/webhook-server.js");
    const server = new WebhookServer(this.webhookRoutes, {
      ...at,
      certDir: this.options.webhookCertDir ?? join(tmpdir(), "k8s-webhook-server", "serving-certs"),
      certName: this.options.webhookCertName ?? "tls.crt",
      keyName: this.options.webhookKeyName ?? "tls.key",
      logger: this.logger.named("webhooks"),
      ...(this.options.webhookCertPollIntervalMs === undefined
        ? {}
        : { certPollIntervalMs: this.options.webhookCertPollIntervalMs }),
    });
    this.webhookUrl = await server.start();
    this.webhookServer = server;
    this.readyChecks.set("webhook", () => server.ready());
    this.healthChecks.set("webhook", () => server.healthy());
  }
}

/** The cache's options: ManagerOptions.namespace ("a" or "a,b") is what it caches unless cache.namespaces says otherwise. */
function cacheOptions(options: ManagerOptions): CacheOptions {
  const cache = options.cache ?? {};
  const namespaces = (options.namespace ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  if (cache.namespaceSelector !== undefined && namespaces.length > 0 && !cache.namespaces)
    throw new ConfigError(
      `namespace ("${options.namespace}", from --namespace or WATCH_NAMESPACE) and cache.namespaceSelector are both set`,
      {
        hint: "choose one: a fixed list of namespaces (namespace, --namespace, WATCH_NAMESPACE) or the namespaces whose labels match (cache.namespaceSelector)",
      },
    );
  if (cache.namespaces || namespaces.length === 0) return cache;
  return { ...cache, namespaces };
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
