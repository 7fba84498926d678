// Fault injection: fail the next N matching requests with a status (429 carries Retry-After), add
// latency, hang requests until released, partition one user, and perturb watch streams (hold
// events back, delay them, cut streams, answer the next watch 410 Gone), all matched by method,
// path (exact string, "prefix*" string, or RegExp), watch or not, and user. Shared by the
// in-memory server and the real control plane's fault proxy; the answers are memory/status.ts's
// Status bodies.
import { ApiError } from "./memory/status.js";
import { type FaultMatch, type MatchedRequest, matches } from "./fault-match.js";
import { WatchGate, type WatchRules, type WatchSink } from "./watch-gate.js";

export { type FaultMatch, type MatchedRequest, matches } from "./fault-match.js";

export interface FaultSpec extends FaultMatch {
  /** HTTP status to answer with (e.g. 500, 503, 429, 409, 410). */
  status: number;
  /** How many matching requests fail; Infinity for all. Default 1. */
  count?: number;
  /** Sent as the Retry-After header and details.retryAfterSeconds (default 1 for 429). */
  retryAfterSeconds?: number;
  /** Overrides the Status message. */
  message?: string;
  /** Overrides the Status reason. */
  reason?: string;
}

export interface PartitionOptions {
  /** "fail" (default): every request answers `status`; "hang": no request is answered until healed. */
  mode?: "fail" | "hang";
  /** Status of failed requests (default 503). */
  status?: number;
}

interface ActiveFault extends FaultSpec {
  remaining: number;
}

interface LatencyRule {
  ms: number;
  match: FaultMatch;
}

interface HangRule {
  match: FaultMatch;
  waiting: Set<() => void>;
}

/** The fault-injection controls exposed as `cluster.faults`. */
export class Faults implements WatchRules {
  private active: ActiveFault[] = [];
  private latencies: LatencyRule[] = [];
  private hangs: HangRule[] = [];
  private holds: FaultMatch[] = [];
  private watchDelays: LatencyRule[] = [];
  private readonly gates = new Set<WatchGate>();
  /** Requests answered by an injected fault so far. */
  injected = 0;

  /** Fail the next `count` (default 1) requests matching `spec` with `spec.status`; returns a function that removes the fault. */
  add(spec: FaultSpec): () => void {
    const fault = { ...spec, remaining: spec.count ?? 1 };
    this.active.push(fault);
    return () => {
      this.active = this.active.filter((f) => f !== fault);
    };
  }

  /** Delay every matching request by `ms` milliseconds (until clear()). */
  latency(ms: number, match: FaultMatch = {}): void {
    this.latencies.push({ ms, match });
  }

  /**
   * Matching requests are not answered (nor sent on) until the returned function or clear() is
   * called; then they go on as usual. A client that gives up meanwhile is simply gone.
   */
  hang(match: FaultMatch = {}): () => void {
    const rule: HangRule = { match, waiting: new Set() };
    this.hangs.push(rule);
    return () => this.releaseHang(rule);
  }

  /** Requests waiting in a hang now. */
  hanging(): number {
    return this.hangs.reduce((n, h) => n + h.waiting.size, 0);
  }

  /**
   * Hold back the events of matching watch streams, open ones and those opened later: the client
   * sees nothing new (a stale view) until the returned function or clear() releases them, in order.
   */
  holdWatchEvents(match: FaultMatch = {}): () => void {
    const rule = { ...match };
    this.holds.push(rule);
    return () => {
      this.holds = this.holds.filter((h) => h !== rule);
      for (const g of [...this.gates]) g.recheck();
    };
  }

  /** Events held back right now, over all streams. */
  heldWatchEvents(): number {
    let n = 0;
    for (const g of this.gates) n += g.heldEvents;
    return n;
  }

  /** Deliver each event of matching watch streams `ms` later (order kept); returns a function that ends it. */
  delayWatchEvents(ms: number, match: FaultMatch = {}): () => void {
    const rule = { ms, match };
    this.watchDelays.push(rule);
    return () => {
      this.watchDelays = this.watchDelays.filter((d) => d !== rule);
    };
  }

  /** Ends matching open watch streams at once (held or delayed events dropped); returns how many. */
  closeWatches(match: FaultMatch = {}): number {
    const cut = [...this.gates].filter((g) => matches(match, g.request));
    for (const g of cut) g.cut();
    return cut.length;
  }

  /** Open watch streams matching `match`. */
  openWatches(match: FaultMatch = {}): number {
    return [...this.gates].filter((g) => matches(match, g.request)).length;
  }

  /**
   * Cuts matching watch streams and answers as many next matching watches with 410 Gone (an
   * `Expired` ERROR event, as the server does for a compacted resourceVersion): clients must relist.
   */
  expireWatches(match: FaultMatch = {}): number {
    const n = this.closeWatches(match);
    this.add({
      ...match,
      watch: true,
      status: 410,
      reason: "Expired",
      message: "too old resource version: injected fault",
      count: Math.max(1, n),
    });
    return n;
  }

  /**
   * Cuts `user` off the API server: every request of that user fails (or hangs), and its open
   * watches end. The returned function heals it (hung requests then go on).
   */
  partition(user: string, options: PartitionOptions = {}): () => void {
    const heal =
      options.mode === "hang"
        ? this.hang({ user })
        : this.add({
            user,
            status: options.status ?? 503,
            count: Infinity,
            message: `injected partition: ${user} cannot reach the API server`,
          });
    this.closeWatches({ user });
    return heal;
  }

  /** Ends every fault: failures, latency, hangs (released), holds (released in order) and delays. */
  clear(): void {
    this.active = [];
    this.latencies = [];
    this.watchDelays = [];
    for (const h of [...this.hangs]) this.releaseHang(h);
    this.holds = [];
    for (const g of [...this.gates]) g.recheck();
  }

  /** Faults that have not fired their full count yet. */
  pending(): number {
    return this.active.filter((f) => f.remaining > 0).length;
  }

  delayFor(r: MatchedRequest): number {
    return this.latencies.filter((l) => matches(l.match, r)).reduce((sum, l) => sum + l.ms, 0);
  }

  /** For the planes: waits out latency and hangs (or until `signal` aborts: the client left). */
  async admit(r: MatchedRequest, signal?: AbortSignal): Promise<void> {
    const delay = this.delayFor(r);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    for (const rule of this.hangs.filter((h) => matches(h.match, r))) {
      if (signal?.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          rule.waiting.delete(done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        rule.waiting.add(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  /** Consumes and returns the fault for this request, if any. */
  take(r: MatchedRequest): FaultSpec | undefined {
    const f = this.active.find((a) => a.remaining > 0 && matches(a, r));
    if (!f) return undefined;
    f.remaining--;
    this.injected++;
    return f;
  }

  /** For the planes: the gate a watch stream's event lines pass through; `cut` ends the client's stream now. */
  watchStream(r: MatchedRequest, sink: WatchSink, cut: () => void): WatchGate {
    const gate = new WatchGate(r, sink, this, cut);
    this.gates.add(gate);
    return gate;
  }

  watchHeld(r: MatchedRequest): boolean {
    return this.holds.some((h) => matches(h, r));
  }

  watchDelayFor(r: MatchedRequest): number {
    return this.watchDelays.filter((d) => matches(d.match, r)).reduce((sum, d) => sum + d.ms, 0);
  }

  watchClosed(gate: WatchGate): void {
    this.gates.delete(gate);
  }

  private releaseHang(rule: HangRule): void {
    this.hangs = this.hangs.filter((h) => h !== rule);
    for (const done of [...rule.waiting]) done();
  }
}

/** The answer to a request a fault hits: its Status error, or for a watch and 410, a 200 stream with an ERROR event. */
export function faultAnswer(
  fault: FaultSpec,
  isWatch: boolean,
): { status: number; headers: Record<string, string>; body: string } {
  const retry = fault.retryAfterSeconds ?? (fault.status === 429 ? 1 : undefined);
  const headers: Record<string, string> = retry !== undefined ? { "Retry-After": String(retry) } : {};
  const defaultMessage =
    fault.status === 429
      ? "Too many requests, please try again later."
      : fault.status >= 500
        ? "Internal error occurred: injected fault"
        : `injected fault (${fault.status})`;
  const err = new ApiError(
    fault.status,
    fault.message ?? defaultMessage,
    fault.reason,
    retry !== undefined ? { retryAfterSeconds: retry } : undefined,
    headers,
  );
  if (isWatch && fault.status === 410) {
    return {
      status: 200,
      headers: {},
      body: `${JSON.stringify({ type: "ERROR", object: err.toStatus() })}\n`,
    };
  }
  return { status: fault.status, headers, body: JSON.stringify(err.toStatus()) };
}
