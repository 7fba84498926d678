// What the benchmark reads from the outside of the processes it compares: CPU time and resident
// memory from /proc, and the operator's API requests from the apiserver's audit log (the policy logs
// only the operator's user, at Metadata level, so each line is one request of the operator).
import { execFileSync } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** utime + stime of a process (all its threads), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** VmRSS and VmHWM (peak) of a process, in bytes. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Samples a process's RSS every `everyMs` until stop(); keeps the peak (also from VmHWM). */
export class RssSampler {
  peak = 0;
  last = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 200,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  sample(): void {
    try {
      const m = memory(this.pid);
      this.last = m.rss;
      this.peak = Math.max(this.peak, m.rss, m.peak);
    } catch {
      // the process has exited; keep the last figures
    }
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

export type RequestCounts = Record<string, number>;

/** Reads the audit log from a byte offset: the requests logged since, by "verb resource". */
export class AuditLog {
  private offset = 0;
  private partial = "";

  constructor(private readonly path: string) {}

  /** Requests logged since the last call (each request once: a watch when it started, others when done). */
  take(): RequestCounts {
    const counts: RequestCounts = {};
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return counts; // nothing logged yet
    }
    if (size <= this.offset) return counts;
    const buffer = Buffer.alloc(size - this.offset);
    const fd = openSync(this.path, "r");
    try {
      readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset = size;
    const lines = (this.partial + buffer.toString("utf8")).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line) continue;
      const event = JSON.parse(line) as {
        stage: string;
        verb: string;
        objectRef?: { resource?: string; subresource?: string };
        requestURI: string;
      };
      const counted =
        event.verb === "watch" ? event.stage === "ResponseStarted" : event.stage === "ResponseComplete";
      if (!counted) continue;
      const ref = event.objectRef;
      const what = ref?.resource
        ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""}`
        : event.requestURI.split("?")[0]!;
      const key = `${event.verb} ${what}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }
}

export function total(counts: RequestCounts): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
