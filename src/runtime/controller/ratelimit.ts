// Retry delays for the work queue: per-key exponential backoff (a failing object slows down alone),
// combined with an overall token bucket (a burst of failures cannot hammer the API). The delay for
// a key is the larger of the two. The defaults are client-go's DefaultTypedControllerRateLimiter
// (util/workqueue/default_rate_limiters.go), which controller-runtime uses: 5 ms × 2^failures capped
// at 1000 s, without jitter, and a 10 qps bucket of 100.
import { backoffDelay } from "../../common/retry.js";

export { backoffDelay };

export interface RateLimiter {
  /** How long to wait before the next retry of this key (ms); counts one more failure. */
  when(key: string): number;
  /** Forgets the key's failures (after a successful reconcile). */
  forget(key: string): void;
  /** Failures counted for the key since the last forget. */
  retries(key: string): number;
}

export interface BackoffOptions {
  /** First retry delay (ms). Default 5. */
  baseDelay?: number;
  /** Upper bound (ms). Default 1000 s, as controller-runtime. */
  maxDelay?: number;
  /** Extra random delay as a fraction of the delay: d × (1 + jitter × random). Default 0 (client-go). */
  jitter?: number;
  /** Random source in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Per-key exponential backoff: base × 2^failures (jittered if asked), capped at maxDelay. */
export class ExponentialBackoffRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly baseDelay: number;
  private readonly maxDelay: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.baseDelay = options.baseDelay ?? 5;
    this.maxDelay = options.maxDelay ?? 1_000_000;
    this.jitter = options.jitter ?? 0;
    this.random = options.random ?? Math.random;
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return backoffDelay(n, this.baseDelay, this.maxDelay, this.jitter, this.random);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

export interface BucketOptions {
  /** Sustained rate (tokens per second). Default 10. */
  qps?: number;
  /** Bucket size. Default 100. */
  burst?: number;
  now?: () => number;
}

/** Overall token bucket: each retry takes a token; when empty, retries wait for the next one. */
export class BucketRateLimiter implements RateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly now: () => number;
  private tokens: number;
  private last: number;

  constructor(options: BucketOptions = {}) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    this.now = options.now ?? Date.now;
    this.tokens = this.burst;
    this.last = this.now();
  }

  when(_key: string): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    // A negative balance is a reservation: wait until it would be paid back.
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  retries(_key: string): number {
    return 0;
  }
}

/** The largest delay of several limiters (retries counted by the first). */
export class MaxOfRateLimiter implements RateLimiter {
  constructor(private readonly limiters: readonly RateLimiter[]) {}

  when(key: string): number {
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(key));
    return delay;
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: string): number {
    return Math.max(0, ...this.limiters.map((l) => l.retries(key)));
  }
}

/** controller-runtime's default: per-key 5 ms…1000 s backoff, plus a 10 qps / 100 bucket. */
export function defaultRateLimiter(options: BackoffOptions & BucketOptions = {}): RateLimiter {
  return new MaxOfRateLimiter([new ExponentialBackoffRateLimiter(options), new BucketRateLimiter(options)]);
}
