// The workqueue metrics of one controller's queue, kept as client-go's queue keeps them
// (util/workqueue/metrics.go) and controller-runtime's priority queue (priorityqueue/metrics.go):
// - adds_total and depth move when a key becomes waiting (ready), depth again when it is handed out;
//   the priority queue's depth is per priority (at most 25 distinct labels, then one
//   "exceeded_cardinality_limit", as controller-runtime), a FIFO queue's has priority "";
// - queue_duration_seconds: from the first add of a waiting key to its hand-out;
// - work_duration_seconds: from hand-out to done();
// - unfinished_work_seconds and longest_running_processor_seconds: the keys handed out and not done,
//   read at each scrape (client-go refreshes them every 500 ms; a scrape-time read is never stale);
// - retries_total: every add with a delay.
import type { RuntimeMetrics } from "../metrics/metrics.js";

/** What a queue reports; the queues call it where client-go's and controller-runtime's do. */
export interface QueueMetrics {
  /** A key became ready at `priority` (a FIFO queue passes none). */
  add(key: string, priority?: number): void;
  /** A ready key was handed to a worker. */
  get(key: string, priority?: number): void;
  /** A ready key's priority was raised. */
  reprioritize(from: number, to: number): void;
  /** A worker finished a key. */
  done(key: string): void;
  /** A key was added with a delay. */
  retry(): void;
  /** The queue shut down: nothing waits any more. */
  shutdown(): void;
}

export const NO_QUEUE_METRICS: QueueMetrics = {
  add() {},
  get() {},
  reprioritize() {},
  done() {},
  retry() {},
  shutdown() {},
};

/** controller-runtime's maxRecommendedUniquePriorities. */
const MAX_PRIORITY_LABELS = 25;
const PRIORITY_LABELS_EXCEEDED = "exceeded_cardinality_limit";

export interface ControllerQueueMetricsOptions {
  /** Label depth by priority (the priority queue); otherwise priority is "". */
  priorities: boolean;
  /** Clock in milliseconds, for tests. Default performance.now. */
  now?: () => number;
}

export class ControllerQueueMetrics implements QueueMetrics {
  private readonly labels: { name: string; controller: string };
  private readonly now: () => number;
  /** When each waiting key was first added (queue duration). */
  private readonly addedAt = new Map<string, number>();
  /** When each key being processed was handed out (work duration, unfinished work). */
  private readonly startedAt = new Map<string, number>();
  private readonly priorityLabels = new Set<string>();
  private priorityLabelsExceeded = false;

  constructor(
    private readonly metrics: RuntimeMetrics,
    name: string,
    private readonly options: ControllerQueueMetricsOptions,
  ) {
    this.labels = { name, controller: name };
    this.now = options.now ?? (() => performance.now());
    // Every series exists from the start, at zero, as client-go creates them with the queue.
    metrics.queueDepth.set(this.depthLabels(options.priorities ? 0 : undefined), 0);
    metrics.queueAdds.inc(this.labels, 0);
    metrics.queueRetries.inc(this.labels, 0);
    metrics.queueLatency.touch(this.labels);
    metrics.workDuration.touch(this.labels);
    metrics.unfinishedWork.setFunction(this.labels, () => this.unfinishedSeconds());
    metrics.longestRunningProcessor.setFunction(this.labels, () => this.longestRunningSeconds());
  }

  add(key: string, priority?: number): void {
    this.metrics.queueAdds.inc(this.labels);
    this.metrics.queueDepth.inc(this.depthLabels(priority));
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.now());
  }

  get(key: string, priority?: number): void {
    this.metrics.queueDepth.dec(this.depthLabels(priority));
    const now = this.now();
    this.startedAt.set(key, now);
    const added = this.addedAt.get(key);
    if (added !== undefined) {
      this.metrics.queueLatency.observe(this.labels, (now - added) / 1000);
      this.addedAt.delete(key);
    }
  }

  reprioritize(from: number, to: number): void {
    this.metrics.queueDepth.dec(this.depthLabels(from));
    this.metrics.queueDepth.inc(this.depthLabels(to));
  }

  done(key: string): void {
    const started = this.startedAt.get(key);
    if (started === undefined) return;
    this.metrics.workDuration.observe(this.labels, (this.now() - started) / 1000);
    this.startedAt.delete(key);
  }

  retry(): void {
    this.metrics.queueRetries.inc(this.labels);
  }

  shutdown(): void {
    this.addedAt.clear();
    const labels = this.options.priorities ? [...this.priorityLabels, PRIORITY_LABELS_EXCEEDED] : [""];
    for (const priority of labels) {
      const series = { ...this.labels, priority };
      if (priority !== PRIORITY_LABELS_EXCEEDED || this.priorityLabelsExceeded)
        this.metrics.queueDepth.set(series, 0);
    }
  }

  /** Seconds of work handed out and not done yet, summed over the keys being processed. */
  private unfinishedSeconds(): number {
    const now = this.now();
    let total = 0;
    for (const started of this.startedAt.values()) total += (now - started) / 1000;
    return total;
  }

  private longestRunningSeconds(): number {
    const now = this.now();
    let oldest = 0;
    for (const started of this.startedAt.values()) oldest = Math.max(oldest, (now - started) / 1000);
    return oldest;
  }

  private depthLabels(priority: number | undefined): { name: string; controller: string; priority: string } {
    return { ...this.labels, priority: this.options.priorities ? this.priorityLabel(priority ?? 0) : "" };
  }

  private priorityLabel(priority: number): string {
    if (this.priorityLabelsExceeded) return PRIORITY_LABELS_EXCEEDED;
    const label = String(priority);
    this.priorityLabels.add(label);
    if (this.priorityLabels.size <= MAX_PRIORITY_LABELS) return label;
    this.priorityLabelsExceeded = true;
    return PRIORITY_LABELS_EXCEEDED;
  }
}
