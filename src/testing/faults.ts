// Fault injection: fail the next N matching requests with a status (429 carries Retry-After), add
// latency, all matched by method and path (exact string, "prefix*" string, or RegExp). Shared by the
// in-memory server and the real control plane's fault proxy; the answers are memory/status.ts's
// Status bodies.
import { ApiError } from "./memory/status.js";

export interface FaultMatch {
  /** HTTP method (GET, POST, PUT, PATCH, DELETE); any when omitted. */
  method?: string;
  /** Exact path, a "prefix*" string, or a RegExp tested against the path (query string excluded). */
  path?: string | RegExp;
  /** Only watch requests (true) or only non-watch requests (false); both when omitted. */
  watch?: boolean;
}

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

export interface MatchedRequest {
  method: string;
  path: string;
  watch: boolean;
}

interface ActiveFault extends FaultSpec {
  remaining: number;
}

interface LatencyRule {
  ms: number;
  match: FaultMatch;
}

export function matches(m: FaultMatch, r: MatchedRequest): boolean {
  if (m.method && m.method.toUpperCase() !== r.method) return false;
  if (m.watch !== undefined && m.watch !== r.watch) return false;
  if (m.path === undefined) return true;
  if (m.path instanceof RegExp) return m.path.test(r.path);
  if (m.path.endsWith("*")) return r.path.startsWith(m.path.slice(0, -1));
  return r.path === m.path;
}

/** The fault-injection controls exposed as `cluster.faults`. */
export class Faults {
  private active: ActiveFault[] = [];
  private latencies: LatencyRule[] = [];
  /** Requests answered by an injected fault so far. */
  injected = 0;

  /** Fail the next `count` (default 1) requests matching `spec` with `spec.status`. */
  add(spec: FaultSpec): void {
    this.active.push({ ...spec, remaining: spec.count ?? 1 });
  }

  /** Delay every matching request by `ms` milliseconds (until clear()). */
  latency(ms: number, match: FaultMatch = {}): void {
    this.latencies.push({ ms, match });
  }

  clear(): void {
    this.active = [];
    this.latencies = [];
  }

  /** Faults that have not fired their full count yet. */
  pending(): number {
    return this.active.filter((f) => f.remaining > 0).length;
  }

  delayFor(r: MatchedRequest): number {
    return this.latencies.filter((l) => matches(l.match, r)).reduce((sum, l) => sum + l.ms, 0);
  }

  /** Consumes and returns the fault for this request, if any. */
  take(r: MatchedRequest): FaultSpec | undefined {
    const f = this.active.find((a) => a.remaining > 0 && matches(a, r));
    if (!f) return undefined;
    f.remaining--;
    this.injected++;
    return f;
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
