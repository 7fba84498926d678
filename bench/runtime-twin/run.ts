// One measured run of one operator on a fresh bed: N Widgets exist before it starts (cold start),
// then a burst of N/10 creates, an update wave over the first N, and an idle minute; optionally a
// restart with leader election to count its lease requests per minute. Each phase records wall
// time to "all reconciled", the operator's and the control plane's CPU, and the operator's requests.
import { BenchApi } from "./api.js";
import { type Bed, startBed } from "./bed.js";
import { OperatorProcess } from "./operator-process.js";
import { AuditLog, cpuMs, type RequestCounts, total } from "./probe.js";
import { ReconcileTracker, WIDGETS } from "./tracker.js";
import type { Operator } from "./twins.js";

export const NAMESPACES = Array.from({ length: 10 }, (_, i) => `bench-${i}`);
/** Requests the benchmark keeps in flight while it writes Widgets. */
const WRITERS = 16;
/** The operator counts as done with a phase once it made no request for this long. */
const QUIET_MS = 2_000;

export interface PhaseFigures {
  /** Start of the phase (operator start, or the first write) to the last Widget reconciled. */
  wallMs: number;
  /** Start of the phase to the first Widget reconciled (for the cold start: the operator's start-up). */
  firstMs: number;
  /** How long the benchmark itself took to send the phase's writes (the floor of wallMs). */
  writesMs: number;
  operatorCpuMs: number;
  apiserverCpuMs: number;
  etcdCpuMs: number;
  requests: RequestCounts;
  /** Widgets not reconciled when the phase timed out. */
  missing: string[];
  /** Reconciles the operator ran in the phase (its own count). */
  reconciles: number;
  /** Widgets the phase wrote (N, N/10, N; 0 when idle). */
  objects: number;
}

export interface RunFigures {
  side: Operator["side"];
  n: number;
  phases: Partial<Record<"cold" | "burst" | "update" | "idle", PhaseFigures>>;
  /** Set-up before the operator starts: the bed, then the N Widgets (ms; not measured figures). */
  setupMs: { bed: number; widgets: number };
  peakRssBytes: number;
  idleRssBytes: number;
  /** Requests per minute of an idle operator with leader election on (only when asked). */
  leaderElectionPerMinute?: RequestCounts;
  /** Why the run stopped early, if it did. */
  failure?: string;
}

export interface RunOptions {
  idleMs: number;
  settleTimeoutMs: number;
  leaderElection: boolean;
}

const widgetName = (i: number) => ({ namespace: NAMESPACES[i % NAMESPACES.length]!, name: `w-${i}` });

export async function measureRun(operator: Operator, n: number, options: RunOptions): Promise<RunFigures> {
  const bedAt = performance.now();
  const bed = await startBed(NAMESPACES);
  const widgetsAt = performance.now();
  const result: RunFigures = {
    side: operator.side,
    n,
    phases: {},
    setupMs: { bed: widgetsAt - bedAt, widgets: 0 },
    peakRssBytes: 0,
    idleRssBytes: 0,
  };
  let tracker: ReconcileTracker | undefined;
  let proc: OperatorProcess | undefined;
  try {
    await createWidgets(bed.api, 0, n, "a");
    result.setupMs.widgets = performance.now() - widgetsAt;
    tracker = await ReconcileTracker.start(bed.api, NAMESPACES);
    for (let i = 0; i < n; i++) tracker.expect(widgetName(i).namespace, widgetName(i).name, `a-${i}`);
    const phase = new PhaseClock(bed, tracker, options);
    const started = performance.now();
    proc = OperatorProcess.start(operator, bed.operatorKubeconfig, bed.dir);
    phase.attach(proc);
    result.phases.cold = await phase.finish("cold start", started, started, n);

    const burst = Math.floor(n / 10);
    for (let i = n; i < n + burst; i++) tracker.expect(widgetName(i).namespace, widgetName(i).name, `a-${i}`);
    const burstAt = performance.now();
    await createWidgets(bed.api, n, burst, "a");
    result.phases.burst = await phase.finish("burst", burstAt, performance.now(), burst);

    for (let i = 0; i < n; i++) tracker.expect(widgetName(i).namespace, widgetName(i).name, `b-${i}`);
    const updateAt = performance.now();
    await updateWidgets(bed.api, n, "b");
    result.phases.update = await phase.finish("update wave", updateAt, performance.now(), n);

    const idleAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.idleMs));
    result.phases.idle = await phase.finish("idle", idleAt, idleAt, 0, false);
    proc.rss.sample();
    result.idleRssBytes = proc.rss.last;
    result.peakRssBytes = proc.rss.peak;

    if (options.leaderElection) {
      await proc.stop();
      proc = OperatorProcess.start(operator, bed.operatorKubeconfig, bed.dir, [
        "--leader-elect",
        "--leader-election-namespace",
        NAMESPACES[0]!,
      ]);
      phase.attach(proc);
      result.leaderElectionPerMinute = await phase.leaderMinute();
    }
  } catch (error) {
    const said = proc ? `\n--- ${operator.side} log (last lines) ---\n${proc.tail()}` : "";
    result.failure = `${error instanceof Error ? error.message : String(error)}${said}`;
  } finally {
    await proc?.stop();
    tracker?.stop();
    await bed.stop();
  }
  return result;
}

async function createWidgets(api: BenchApi, from: number, count: number, prefix: string): Promise<void> {
  await BenchApi.pool(count, WRITERS, async (k) => {
    const i = from + k;
    const { namespace, name } = widgetName(i);
    await api.send("POST", `/apis/bench.tsop.dev/v1/namespaces/${namespace}/widgets`, {
      apiVersion: "bench.tsop.dev/v1",
      kind: "Widget",
      metadata: { name },
      spec: { data: `${prefix}-${i}` },
    });
  });
}

async function updateWidgets(api: BenchApi, count: number, prefix: string): Promise<void> {
  await BenchApi.pool(count, WRITERS, async (i) => {
    const { namespace, name } = widgetName(i);
    await api.send(
      "PATCH",
      `${WIDGETS.replace("/widgets", `/namespaces/${namespace}/widgets`)}/${name}`,
      { spec: { data: `${prefix}-${i}` } },
      "application/merge-patch+json",
    );
  });
}

/** Takes a phase's figures: waits for every Widget, then for the operator to fall quiet. */
class PhaseClock {
  private proc: OperatorProcess | undefined;
  private readonly audit: AuditLog;
  private last: { operator: number; apiserver: number; etcd: number; reconciles: number };

  constructor(
    private readonly bed: Bed,
    private readonly tracker: ReconcileTracker,
    private readonly options: RunOptions,
  ) {
    this.audit = new AuditLog(bed.auditLog);
    this.audit.take();
    this.last = {
      operator: 0,
      apiserver: cpuMs(bed.pids.apiserver),
      etcd: cpuMs(bed.pids.etcd),
      reconciles: 0,
    };
  }

  /** A new operator process: its CPU counts from zero. */
  attach(proc: OperatorProcess): void {
    this.proc = proc;
    this.last.operator = 0;
    this.last.reconciles = 0;
  }

  async finish(
    name: string,
    startedAt: number,
    writtenAt: number,
    objects: number,
    waitQuiet = true,
  ): Promise<PhaseFigures> {
    const proc = this.proc!;
    const settled = await Promise.race([
      this.tracker.settle(this.options.settleTimeoutMs),
      proc.exited.then((code) => {
        throw new Error(`the operator exited (code ${code}) during the ${name}`);
      }),
    ]);
    const requests: RequestCounts = {};
    if (waitQuiet) await this.quiet(requests);
    else Object.assign(requests, this.audit.take());
    const now = {
      operator: proc.cpuMs(),
      apiserver: cpuMs(this.bed.pids.apiserver),
      etcd: cpuMs(this.bed.pids.etcd),
      reconciles: await proc.reconciles(),
    };
    const figures: PhaseFigures = {
      wallMs: Math.max(settled.at - startedAt, 0),
      firstMs: Math.max(settled.first - startedAt, 0),
      writesMs: writtenAt - startedAt,
      operatorCpuMs: now.operator - this.last.operator,
      apiserverCpuMs: now.apiserver - this.last.apiserver,
      etcdCpuMs: now.etcd - this.last.etcd,
      requests,
      missing: settled.missing,
      reconciles: now.reconciles - this.last.reconciles,
      objects,
    };
    this.last = now;
    if (settled.missing.length > 0)
      throw new Error(
        `${settled.missing.length} Widget(s) never reconciled in the ${name} within ${this.options.settleTimeoutMs / 1000} s (e.g. ${settled.missing.slice(0, 5).join(", ")})`,
      );
    return figures;
  }

  /** Waits until no request of the operator was logged for QUIET_MS (at most 60 s), adding them up. */
  private async quiet(into: RequestCounts): Promise<void> {
    const deadline = performance.now() + 60_000;
    let quietSince = performance.now();
    for (;;) {
      const fresh = this.audit.take();
      if (total(fresh) > 0) quietSince = performance.now();
      for (const [k, v] of Object.entries(fresh)) into[k] = (into[k] ?? 0) + v;
      if (performance.now() - quietSince >= QUIET_MS || performance.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Leader election on: lets the new process take the lease and settle, then counts one minute. */
  async leaderMinute(): Promise<RequestCounts> {
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    this.audit.take();
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    return this.audit.take();
  }
}
