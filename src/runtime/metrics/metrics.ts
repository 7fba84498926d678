// A small Prometheus metrics registry (counters, gauges, histograms with labels) rendered in the
// text exposition format 0.0.4. The manager serves it on /metrics; operators can register their own.

export type Labels = Record<string, string>;

interface Series<V> {
  labels: Labels;
  value: V;
}

function labelKey(names: readonly string[], labels: Labels): string {
  return names.map((n) => labels[n] ?? "").join("\u0000");
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function renderLabels(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

abstract class Metric<V> {
  protected readonly series = new Map<string, Series<V>>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    if (!NAME.test(name)) throw new Error(`invalid metric name "${name}"`);
  }
  abstract readonly type: "counter" | "gauge" | "histogram";
  protected abstract initial(): V;

  protected entry(labels: Labels): Series<V> {
    for (const key of Object.keys(labels))
      if (!this.labelNames.includes(key)) throw new Error(`metric ${this.name} has no label "${key}"`);
    const key = labelKey(this.labelNames, labels);
    let series = this.series.get(key);
    if (!series) {
      const own: Labels = {};
      for (const n of this.labelNames) own[n] = labels[n] ?? "";
      series = { labels: own, value: this.initial() };
      this.series.set(key, series);
    }
    return series;
  }

  abstract samples(): string[];

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`];
    lines.push(`# TYPE ${this.name} ${this.type}`, ...this.samples());
    return lines.join("\n");
  }
}

export class Counter extends Metric<number> {
  readonly type = "counter";
  protected initial(): number {
    return 0;
  }
  inc(labels: Labels = {}, by = 1): void {
    if (by < 0) throw new Error(`counter ${this.name} cannot decrease`);
    this.entry(labels).value += by;
  }
  get(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.value ?? 0;
  }
  samples(): string[] {
    return [...this.series.values()].map(
      (s) => `${this.name}${renderLabels(s.labels)} ${formatNumber(s.value)}`,
    );
  }
}

export class Gauge extends Metric<number> {
  readonly type = "gauge";
  /** Series whose value is read when rendered (Prometheus' GaugeFunc), by label key. */
  private readonly readers = new Map<string, () => number>();
  protected initial(): number {
    return 0;
  }
  set(labels: Labels, value: number): void {
    this.entry(labels).value = value;
  }
  /**
   * Makes the series of `labels` read its value from `read` at each scrape (and get()), for values
   * that change continuously (seconds of work in progress): nothing samples them between scrapes.
   * Returns a function that stops reading (the series keeps its last value).
   */
  setFunction(labels: Labels, read: () => number): () => void {
    this.entry(labels);
    const key = labelKey(this.labelNames, labels);
    this.readers.set(key, read);
    return () => {
      if (this.readers.get(key) === read) this.readers.delete(key);
    };
  }
  private refresh(): void {
    for (const [key, read] of this.readers) {
      const series = this.series.get(key);
      if (series) series.value = read();
    }
  }
  inc(labels: Labels = {}, by = 1): void {
    this.entry(labels).value += by;
  }
  dec(labels: Labels = {}, by = 1): void {
    this.entry(labels).value -= by;
  }
  get(labels: Labels = {}): number {
    this.refresh();
    return this.series.get(labelKey(this.labelNames, labels))?.value ?? 0;
  }
  samples(): string[] {
    this.refresh();
    return [...this.series.values()].map(
      (s) => `${this.name}${renderLabels(s.labels)} ${formatNumber(s.value)}`,
    );
  }
}

interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Metric<HistogramValue> {
  readonly type = "histogram";
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
    if (buckets.some((b, i) => i > 0 && b <= (buckets[i - 1] as number)))
      throw new Error(`histogram ${name}: buckets must increase`);
  }
  protected initial(): HistogramValue {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
  observe(labels: Labels, value: number): void {
    const v = this.entry(labels).value;
    v.sum += value;
    v.count += 1;
    this.buckets.forEach((bound, i) => {
      if (value <= bound) v.counts[i] = (v.counts[i] as number) + 1;
    });
  }
  /** Creates the series of `labels` with no observations, so it is exported (at zero) before the first. */
  touch(labels: Labels): void {
    this.entry(labels);
  }
  count(labels: Labels = {}): number {
    return this.series.get(labelKey(this.labelNames, labels))?.value.count ?? 0;
  }
  samples(): string[] {
    const lines: string[] = [];
    for (const s of this.series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(
          `${this.name}_bucket${renderLabels(s.labels, ["le", formatNumber(bound)])} ${s.value.counts[i]}`,
        );
      });
      lines.push(`${this.name}_bucket${renderLabels(s.labels, ["le", "+Inf"])} ${s.value.count}`);
      lines.push(`${this.name}_sum${renderLabels(s.labels)} ${formatNumber(s.value.sum)}`);
      lines.push(`${this.name}_count${renderLabels(s.labels)} ${s.value.count}`);
    }
    return lines;
  }
}

/** Buckets controller-runtime uses for reconcile durations (seconds). */
export const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
] as const;

/**
 * Buckets of the workqueue's queue and work durations (seconds): client-go's and controller-runtime's
 * prometheus.ExponentialBuckets(10e-9, 10, 12), 10 ns to 1000 s, written out so each bound prints
 * exactly (multiplying in floating point would print 1.0000000000000002e-7).
 */
export const WORKQUEUE_DURATION_BUCKETS = [
  1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000,
] as const;

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric<unknown>>();
  private readonly collectors = new Set<() => void>();

  /**
   * Runs `collect` before each render (a scrape), to set gauges from values read then (memory,
   * file descriptors): nothing is sampled between scrapes. Returns a function that removes it.
   */
  onCollect(collect: () => void): () => void {
    this.collectors.add(collect);
    return () => this.collectors.delete(collect);
  }

  private register<M extends Metric<unknown>>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) {
      if (existing.type !== metric.type)
        throw new Error(`metric ${metric.name} already registered as ${existing.type}`);
      return existing as M;
    }
    this.metrics.set(metric.name, metric);
    return metric;
  }

  /** Registers (or returns the already registered) counter. */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.register(new Counter(name, help, labelNames));
  }
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.register(new Gauge(name, help, labelNames));
  }
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets: readonly number[] = RECONCILE_BUCKETS,
  ): Histogram {
    return this.register(new Histogram(name, help, labelNames, buckets));
  }

  /** The Prometheus text exposition (content type PROMETHEUS_CONTENT_TYPE). */
  render(): string {
    for (const collect of this.collectors) collect();
    const names = [...this.metrics.keys()].sort();
    return names.map((n) => (this.metrics.get(n) as Metric<unknown>).render()).join("\n") + "\n";
  }
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The metrics every manager exports (names as controller-runtime, so dashboards carry over). */
export function runtimeMetrics(registry: MetricsRegistry) {
  return {
    reconcileTotal: registry.counter(
      "controller_runtime_reconcile_total",
      "Total number of reconciliations per controller",
      ["controller", "result"],
    ),
    reconcileErrors: registry.counter(
      "controller_runtime_reconcile_errors_total",
      "Total number of reconciliation errors per controller",
      ["controller"],
    ),
    terminalReconcileErrors: registry.counter(
      "controller_runtime_terminal_reconcile_errors_total",
      "Total number of terminal reconciliation errors per controller",
      ["controller"],
    ),
    reconcilePanics: registry.counter(
      "controller_runtime_reconcile_panics_total",
      "Total number of reconciliation panics per controller",
      ["controller"],
    ),
    reconcileTimeouts: registry.counter(
      "controller_runtime_reconcile_timeouts_total",
      "Total number of reconciliation timeouts per controller",
      ["controller"],
    ),
    reconcileTime: registry.histogram(
      "controller_runtime_reconcile_time_seconds",
      "Length of time per reconciliation per controller",
      ["controller"],
    ),
    maxConcurrent: registry.gauge(
      "controller_runtime_max_concurrent_reconciles",
      "Maximum number of concurrent reconciles per controller",
      ["controller"],
    ),
    activeWorkers: registry.gauge(
      "controller_runtime_active_workers",
      "Number of currently used workers per controller",
      ["controller"],
    ),
    // The workqueue set, named, labelled and bucketed as controller-runtime's (pkg/internal/metrics):
    // name and controller (both the controller's name), and for depth the priority ("" for a FIFO
    // queue). controller/queue-metrics.ts keeps them.
    queueDepth: registry.gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority", [
      "name",
      "controller",
      "priority",
    ]),
    queueAdds: registry.counter("workqueue_adds_total", "Total number of adds handled by workqueue", [
      "name",
      "controller",
    ]),
    queueLatency: registry.histogram(
      "workqueue_queue_duration_seconds",
      "How long in seconds an item stays in workqueue before being requested",
      ["name", "controller"],
      WORKQUEUE_DURATION_BUCKETS,
    ),
    workDuration: registry.histogram(
      "workqueue_work_duration_seconds",
      "How long in seconds processing an item from workqueue takes.",
      ["name", "controller"],
      WORKQUEUE_DURATION_BUCKETS,
    ),
    unfinishedWork: registry.gauge(
      "workqueue_unfinished_work_seconds",
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      ["name", "controller"],
    ),
    longestRunningProcessor: registry.gauge(
      "workqueue_longest_running_processor_seconds",
      "How many seconds has the longest running processor for workqueue been running.",
      ["name", "controller"],
    ),
    queueRetries: registry.counter(
      "workqueue_retries_total",
      "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
      ["name", "controller"],
    ),
    leader: registry.gauge(
      "leader_election_master_status",
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.",
      ["name"],
    ),
    watchRestarts: registry.counter(
      "tsop_informer_watch_restarts_total",
      "Watches re-opened by informers, by reason (timeout, error, gone, wedged)",
      ["resource", "reason"],
    ),
    relists: registry.counter("tsop_informer_relists_total", "Full lists performed by informers", [
      "resource",
    ]),
    listErrors: registry.counter(
      "tsop_informer_list_errors_total",
      'Failed lists of informers, by resource and HTTP status code ("<error>" when none came; 403: RBAC)',
      ["resource", "code"],
    ),
    waitingForCrd: registry.gauge(
      "tsop_cache_waiting_for_crd",
      "1 while an optional kind waits for its CRD to be served (established), 0 once it is watched",
      ["group", "version", "kind"],
    ),
    eventsDropped: registry.counter(
      "tsop_events_dropped_total",
      "Events not recorded because the recorder's backlog was full (client-go drops past 1000 too)",
    ),
    watchHandlerErrors: registry.counter(
      "tsop_controller_watch_handler_errors_total",
      "Events whose watch handler (map function) threw or rejected, per controller and watched kind",
      ["controller", "kind"],
    ),
    ownWriteEventsSkipped: registry.counter(
      "tsop_controller_own_write_events_skipped_total",
      "Watch events a controller did not enqueue because its own write caused them (ownWriteEvents)",
      ["controller", "kind"],
    ),
    restRequests: registry.counter(
      "rest_client_requests_total",
      'Number of HTTP requests to the API server, partitioned by status code ("<error>" when none came), method, and host',
      ["code", "method", "host"],
    ),
  };
}
export type RuntimeMetrics = ReturnType<typeof runtimeMetrics>;
