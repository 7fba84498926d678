// The Manager runs an operator: it loads cluster credentials, owns the cache (shared informers, one
// per kind, that the client reads watched kinds from), serves /healthz, /readyz and /metrics
// (metrics-server.ts), optionally elects a leader, starts controllers once caches are synced (and it
// leads), and shuts everything down gracefully on SIGTERM/SIGINT.
// Stages: create() → loadKubeConfig → RestClient/RestMapper/Client; start() → probe and metrics
// servers → informers → leader election → wait for sync → controller workers; stop() → reverse.
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cache, type CacheOptions, type InformerRequest } from "../cache/cache.js";
import { Client } from "../client/client.js";
import { ControllerBuilder, type ForOptions } from "../controller/builder.js";
import type { IndexFunction } from "../cache/field-index.js";
import type { Controller, ControllerHost } from "../controller/controller.js";
import { ConfigError } from "../connect/errors.js";
import { EventRecorder } from "../events/events.js";
import type { SharedInformer } from "../cache/informer.js";
import { type KubeConfigOptions, loadKubeConfig } from "../connect/kubeconfig.js";
import { LeaderElector, type LeaderElectionOptions } from "./leader.js";
import { listenOn, parseBindAddress } from "../serving/listen.js";
import { Logger, type LoggerOptions } from "../log/logger.js";
import { type KindRef, RestMapper } from "../connect/mapper.js";
import { MetricsAuthorizer } from "../metrics/metrics-auth.js";
import { MetricsServer } from "../metrics/metrics-server.js";
import { MetricsRegistry, type RuntimeMetrics, runtimeMetrics } from "../metrics/metrics.js";
import { RestClient } from "../connect/rest.js";
import type { WebhookRoute, WebhookServer } from "../webhook/webhook-server.js";
import { webhooksOf } from "../webhooks.js";

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
  /** File names in metricsCertDir. Default "tls.crt" and "tls.key". */
  metricsCertName?: string;
  metricsKeyName?: string;
  /** How often the metrics certificate files are checked for changes (ms). Default 1000. */
  metricsCertPollIntervalMs?: number;
  /** "host:port" or ":port" for /healthz and /readyz; "0" disables. Default ":8081". */
  healthProbeBindAddress?: string;
  leaderElection?: LeaderElectionOptions;
  /** How long shutdown waits for running reconciles. Default 30 s. */
  gracefulShutdownTimeoutMs?: number;
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
  /** Component name on recorded Events. Default "tsop-operator" or the leader election id. */
  eventSource?: string;
  /** Stop on SIGTERM/SIGINT. Default true. */
  handleSignals?: boolean;
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

export type Check = () => boolean | string | undefined | Promise<boolean | string | undefined>;

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
  private elector: LeaderElector | undefined;
  private running: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private started = false;
  private controllersStarted = false;
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
    this.logger = options.logger instanceof Logger ? options.logger : new Logger(options.logger ?? {});
    this.metrics = options.metricsRegistry ?? new MetricsRegistry();
    this.runtimeMetrics = runtimeMetrics(this.metrics);
    const host = new URL(rest.server).host;
    rest.onResponse = (method, status) =>
      this.runtimeMetrics.restRequests.inc({ code: status ? String(status) : "<error>", method, host });
    this.mapper = new RestMapper(rest);
    this.cache = new Cache(rest, this.mapper, cacheOptions(options), {
      resyncPeriodMs: options.syncPeriodMs,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
      staleAfterMs: options.watchStaleAfterMs,
      wedgedGraceMs: options.watchWedgedGraceMs,
      logger: this.logger.named("informer"),
      metrics: this.runtimeMetrics,
    });
    this.client = new Client(rest, this.mapper, defaultNamespace ?? "default", undefined, this.cache);
    this.apiReader = this.client.apiReader;
    this.events = new EventRecorder(
      this.apiReader,
      options.eventSource ?? options.leaderElection?.id ?? "tsop-operator",
      this.logger.named("events"),
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

  /** This manager's identity in the leader election lease (once started with leader election). */
  get leaderIdentity(): string | undefined {
    return this.elector?.identity;
  }

  /** Whether every informer has loaded its first list. */
  async cachesSynced(): Promise<boolean> {
    const all = await this.cache.all();
    return all.every((i) => i.hasSynced());
  }

  private host(): ControllerHost {
    return {
      informerFor: (kind, request) => this.informerFor(kind, request),
      client: this.client,
      events: this.events,
      logger: this.logger,
      metrics: this.runtimeMetrics,
      register: (controller) => {
        this.controllers.push(controller);
        if (this.controllersStarted) controller.start();
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
    const handlers: Array<[NodeJS.Signals, () => void]> = [];
    if (this.options.handleSignals !== false) {
      for (const s of ["SIGTERM", "SIGINT"] as const) {
        const h = onSignal(s);
        handlers.push([s, h]);
        process.on(s, h);
      }
    }
    let failure: unknown;
    try {
      await this.listen();
      this.started = true;
      const informers = await this.cache.start();
      if (this.options.leaderElection?.enabled !== false && this.options.leaderElection) {
        const le = this.options.leaderElection;
        const namespace = le.namespace ?? (this.inCluster ? this.defaultNamespace : undefined);
        if (!namespace)
          throw new ConfigError("leader election needs a namespace when not running in a cluster", {
            hint: "set leaderElection.namespace (--leader-election-namespace) or disable leader election",
          });
        this.elector = new LeaderElector(
          this.apiReader,
          { ...le, namespace },
          this.logger.named("leader-election"),
        );
        const leaderGauge = this.runtimeMetrics.leader;
        leaderGauge.set({ name: le.id }, 0);
        if (await this.elector.acquire(signal)) {
          leaderGauge.set({ name: le.id }, 1);
          await this.startControllers(informers, signal);
          try {
            await this.elector.holdUntil(signal);
          } catch (err) {
            leaderGauge.set({ name: le.id }, 0);
            log.error("leader election lost", err);
            failure = err;
          }
        }
      } else {
        await this.startControllers(informers, signal);
        await abortedPromise(signal);
      }
    } catch (err) {
      failure = err;
    } finally {
      for (const [s, h] of handlers) process.off(s, h);
      await this.shutdown();
    }
    if (failure) throw failure;
  }

  private async startControllers(informers: SharedInformer[], signal: AbortSignal): Promise<void> {
    await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), abortedPromise(signal)]);
    if (signal.aborted) return;
    this.controllersStarted = true;
    for (const c of this.controllers) c.start();
  }

  /** Begins a graceful shutdown; resolves when it is complete. */
  stop(): Promise<void> {
    this.stopController.abort();
    if (!this.running) return this.shutdown();
    return this.running.catch(() => {});
  }

  private shutdown(): Promise<void> {
    this.stopped ??= (async () => {
      const log = this.logger.named("manager");
      const timeout = this.options.gracefulShutdownTimeoutMs ?? 30_000;
      log.info("stopping controllers");
      await Promise.all(this.controllers.map((c) => c.stop(timeout)));
      await this.cache.stop();
      await this.events.flush();
      await this.elector?.release();
      if (this.elector) this.runtimeMetrics.leader.set({ name: this.options.leaderElection?.id ?? "" }, 0);
      await this.webhookServer?.stop();
      await this.metricsServer?.stop();
      await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
      for (const s of this.servers) s.closeAllConnections?.();
      this.rest.close();
      log.info("stopped");
    })();
    return this.stopped;
  }

  private async runChecks(checks: Map<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
    const lines: string[] = [];
    let ok = true;
    for (const [name, check] of checks) {
      let result: boolean | string | undefined;
      try {
        result = await check();
      } catch (err) {
        result = (err as Error).message;
      }
      const passed = result === true || result === undefined;
      ok &&= passed;
      lines.push(
        passed ? `[+]${name} ok` : `[-]${name} failed${typeof result === "string" ? `: ${result}` : ""}`,
      );
    }
    return { ok, lines };
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
        const waiting = all.filter((i) => !i.hasSynced()).map((i) => i.resource);
        return waiting.length === 0 || `caches not synced: ${waiting.join(", ")}`;
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
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://probe");
      const kind = url.pathname.startsWith("/healthz")
        ? "health"
        : url.pathname.startsWith("/readyz")
          ? "ready"
          : "";
      if (!kind) {
        res.writeHead(404).end("not found\n");
        return;
      }
      void this.runChecks(this.builtinChecks(kind)).then(({ ok, lines }) => {
        const verbose = url.searchParams.has("verbose") || !ok;
        res.writeHead(ok ? 200 : 500, { "Content-Type": "text/plain; charset=utf-8" });
        res.end(
          verbose
            ? `${lines.join("\n")}\n${kind === "health" ? "healthz" : "readyz"} check ${ok ? "passed" : "failed"}\n`
            : "ok",
        );
      });
    });
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
  if (cache.namespaces || namespaces.length === 0) return cache;
  return { ...cache, namespaces };
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
