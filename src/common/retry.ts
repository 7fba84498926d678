// The one retry policy for HTTP: the API server client (CLI and operator library), the informer's
// reconnects and the registry transport. 429 and 5xx (500, 502, 503, 504) answers and dropped
// connections are retried with exponential backoff plus jitter; a Retry-After header (seconds or an
// HTTP date) wins over the backoff, capped. As client-go does, a policy may retry only the answers
// that carry Retry-After (the operator's client, whose reconciles requeue anyway); one-shot commands
// also retry 5xx answers without it and dropped connections.
import { setTimeout as sleepFor } from "node:timers/promises";

export interface RetryPolicy {
  /** Attempts in total, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After honoured. */
  retryAfterCapMs: number;
  /** Also retry 5xx answers without Retry-After and dropped connections (not only hinted answers). */
  unhinted: boolean;
  /** Also retry refused connections (a registry restarting); an API server that refuses is reported. */
  refused?: boolean;
}

/** The CLI's cluster and registry requests: a command has no requeue, so it rides out short outages. */
export const COMMAND_RETRY: RetryPolicy = {
  attempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  retryAfterCapMs: 10_000,
  unhinted: true,
};

/** The operator's client: what the server asks to retry (Retry-After), as client-go; the rest requeues. */
export const OPERATOR_RETRY: RetryPolicy = {
  attempts: 10,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  retryAfterCapMs: 10_000,
  unhinted: false,
};

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
/** Connection failures worth another attempt (the request may not have reached the server). */
export const TRANSIENT_NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "TSOP_TIMEOUT", // tsop's own idle timeout (no byte for too long)
]);

/** The n-th (0-based) delay of an exponential backoff with jitter, never above max. */
export function backoffDelay(
  attempt: number,
  base: number,
  max: number,
  jitter = 0.1,
  random: () => number = Math.random,
): number {
  // 2^attempt overflows to Infinity for large attempts, which min() handles.
  const exp = Math.min(max, base * 2 ** attempt);
  return Math.min(max, exp * (1 + jitter * random()));
}

/** Retry-After in milliseconds (seconds or an HTTP date), capped; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, capMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), capMs) : undefined;
}

/** Whether an answer with this status (and Retry-After header) is tried again under the policy. */
export function retriesStatus(
  policy: RetryPolicy,
  status: number,
  retryAfter: string | string[] | undefined,
): boolean {
  if (!RETRYABLE_STATUS.has(status)) return false;
  return policy.unhinted || retryAfterMs(retryAfter, policy.retryAfterCapMs) !== undefined;
}

/** Whether a connection failure with this code is tried again under the policy. */
export function retriesNetworkError(policy: RetryPolicy, code: string | undefined): boolean {
  if (!policy.unhinted || code === undefined) return false;
  return TRANSIENT_NETWORK_CODES.has(code) || (policy.refused === true && code === "ECONNREFUSED");
}

/** How long to wait after the given (1-based) failed attempt: the server's Retry-After, else backoff. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfter?: string | string[] | undefined,
): number {
  return (
    retryAfterMs(retryAfter, policy.retryAfterCapMs) ??
    backoffDelay(attempt - 1, policy.baseDelayMs, policy.maxDelayMs, 0.2)
  );
}

/** Waits ms, or less when the signal aborts (the caller checks the signal). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, { signal }).catch(() => undefined);
}
