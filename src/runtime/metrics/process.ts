// process_* and nodejs_* metrics, as Go's process collector and prom-client's defaults, read at
// scrape time (MetricsRegistry.onCollect): /proc where there is one (Linux), else what Node knows.
// Event-loop delay and GC pauses are sampled by Node itself (perf_hooks) and summarised per scrape.
import { readdirSync, readFileSync } from "node:fs";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import type { MetricsRegistry } from "./metrics.js";

const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];
const GC_KINDS: Record<number, string> = { 1: "major", 2: "minor", 4: "incremental", 8: "weakcb" };

/** Reads a /proc file; undefined off Linux or when it cannot be read. */
function proc(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length - 1; // less the one readdir itself opened
  } catch {
    return undefined;
  }
}

function maxFds(): number | undefined {
  const limit = /^Max open files\s+(\d+)/m.exec(proc("/proc/self/limits") ?? "");
  return limit ? Number(limit[1]) : undefined;
}

function virtualMemory(): number | undefined {
  // Field 23 (vsize); the command name (field 2) may hold spaces, so count after its ")".
  const stat = proc("/proc/self/stat");
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const vsize = Number(fields[20]);
  return Number.isFinite(vsize) ? vsize : undefined;
}

/**
 * Registers the process and Node.js runtime metrics on `registry`; returns a function that stops
 * the event-loop and GC sampling (the manager calls it at shutdown).
 */
export function registerProcessMetrics(registry: MetricsRegistry): () => void {
  const cpu = registry.counter(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds.",
  );
  const rss = registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  const vsize = registry.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.");
  const start = registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since unix epoch in seconds.",
  );
  const open = registry.gauge("process_open_fds", "Number of open file descriptors.");
  const max = registry.gauge("process_max_fds", "Maximum number of open file descriptors.");
  const heapTotal = registry.gauge(
    "nodejs_heap_size_total_bytes",
    "Process heap size from Node.js in bytes.",
  );
  const heapUsed = registry.gauge(
    "nodejs_heap_size_used_bytes",
    "Process heap size used from Node.js in bytes.",
  );
  const spaceTotal = registry.gauge(
    "nodejs_heap_space_size_total_bytes",
    "Process heap space size total from Node.js in bytes.",
    ["space"],
  );
  const spaceUsed = registry.gauge(
    "nodejs_heap_space_size_used_bytes",
    "Process heap space size used from Node.js in bytes.",
    ["space"],
  );
  const lag = registry.gauge(
    "nodejs_eventloop_lag_seconds",
    "Event-loop delay since the previous scrape, by statistic (min, mean, max, p50, p90, p99).",
    ["quantile"],
  );
  const gc = registry.histogram(
    "nodejs_gc_duration_seconds",
    "Garbage collection duration by kind, one of major, minor, incremental or weakcb.",
    ["kind"],
    GC_BUCKETS,
  );
  const version = registry.gauge("nodejs_version_info", "Node.js version info.", ["version"]);
  version.set({ version: process.version }, 1);
  start.set({}, Math.round(Date.now() / 1000 - process.uptime()));

  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? "unknown";
      gc.observe({ kind }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });

  const unregister = registry.onCollect(() => {
    const usage = process.cpuUsage();
    const seconds = (usage.user + usage.system) / 1e6;
    cpu.inc({}, Math.max(0, seconds - cpu.get()));
    rss.set({}, process.memoryUsage.rss());
    const setIf = (gauge: typeof vsize, value: number | undefined) =>
      value !== undefined && gauge.set({}, value);
    setIf(vsize, virtualMemory());
    setIf(open, openFds());
    setIf(max, maxFds());
    const heap = getHeapStatistics();
    heapTotal.set({}, heap.total_heap_size);
    heapUsed.set({}, heap.used_heap_size);
    for (const space of getHeapSpaceStatistics()) {
      spaceTotal.set({ space: space.space_name }, space.space_size);
      spaceUsed.set({ space: space.space_name }, space.space_used_size);
    }
    // The histogram is in nanoseconds; NaN until it has a sample.
    const s = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
    lag.set({ quantile: "min" }, s(delay.min));
    lag.set({ quantile: "mean" }, s(delay.mean));
    lag.set({ quantile: "max" }, s(delay.max));
    for (const p of [50, 90, 99]) lag.set({ quantile: `p${p}` }, s(delay.percentile(p)));
    delay.reset();
  });
  return () => {
    unregister();
    delay.disable();
    observer.disconnect();
  };
}
