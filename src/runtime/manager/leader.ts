// Leader election on a coordination.k8s.io/v1 Lease, following client-go's algorithm: a candidate
// takes the lease when it is free or its holder has not renewed it for leaseDuration (measured on
// the candidate's own clock from when it last saw the record change, so clock skew does not
// matter); the leader renews every retryPeriod, with one PUT of the lease it last saw (client-go's
// fast path; a failure falls back to reading the lease first), and gives up if it cannot renew
// within renewDeadline. On shutdown the leader releases the lease so a standby takes over at once.
// Fencing: renewDeadline < leaseDuration (validated), so a leader that cannot renew gives up before
// any standby can see its lease expire; the manager then stops its work at once.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Client } from "../client/client.js";
import { ConfigError, isAlreadyExists, isConflict } from "../connect/errors.js";
import type { Logger } from "../log/logger.js";

export interface LeaderElectionOptions {
  enabled?: boolean;
  /** Lease name, e.g. "<project>.<domain>" (the scaffold uses a stable id per operator). */
  id: string;
  /** Lease namespace. Default: the pod's namespace in-cluster; required otherwise. */
  namespace?: string;
  /** Default: hostname + "_" + a random id. */
  identity?: string;
  /** How long a lease is valid without renewal. Default 15. */
  leaseDurationSeconds?: number;
  /** How long the leader keeps trying to renew before giving up. Default 10. */
  renewDeadlineSeconds?: number;
  /** Time between attempts. Default 2. */
  retryPeriodSeconds?: number;
  /** Release the lease on shutdown (default true). */
  releaseOnCancel?: boolean;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: LeaseSpec;
}

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" } as const;

/** client-go's JitterFactor: the renew deadline must leave room for one jittered retry period. */
const JITTER_FACTOR = 1.2;

/**
 * Checks the timings as client-go's NewLeaderElector does: a renew deadline not below the lease
 * duration would let a standby take the lease while this replica still believes it leads.
 */
export function validateLeaderElection(options: LeaderElectionOptions): void {
  const lease = options.leaseDurationSeconds ?? 15;
  const renew = options.renewDeadlineSeconds ?? 10;
  const retry = options.retryPeriodSeconds ?? 2;
  const fail = (message: string, hint: string) =>
    new ConfigError(`leader election ${options.id}: ${message}`, { hint });
  for (const [name, value] of [
    ["leaseDurationSeconds", lease],
    ["renewDeadlineSeconds", renew],
    ["retryPeriodSeconds", retry],
  ] as const)
    if (!(value > 0) || !Number.isFinite(value))
      throw fail(
        `${name} must be a positive number of seconds (got ${value})`,
        "use the defaults: 15, 10 and 2",
      );
  if (renew >= lease)
    throw fail(
      `renewDeadlineSeconds (${renew}) must be less than leaseDurationSeconds (${lease})`,
      "a leader must give up before its lease can expire elsewhere; e.g. lease 15 s, renew deadline 10 s (--leader-elect-lease-duration, --leader-elect-renew-deadline)",
    );
  if (renew <= retry * JITTER_FACTOR)
    throw fail(
      `renewDeadlineSeconds (${renew}) must be greater than retryPeriodSeconds × ${JITTER_FACTOR} (${retry * JITTER_FACTOR})`,
      "leave room for at least one renewal attempt; e.g. renew deadline 10 s, retry period 2 s (--leader-elect-retry-period)",
    );
}

/** MicroTime as the API expects it (RFC 3339 with microseconds). */
function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class LeaderElector {
  readonly identity: string;
  private leading = false;
  private observedKey = "";
  private observedAt = 0;
  private lease: Lease | undefined;

  constructor(
    private readonly base: Client,
    private readonly options: Required<Pick<LeaderElectionOptions, "id" | "namespace">> &
      LeaderElectionOptions & {
        /** Labels of the Lease when this elector creates it (sharding: the ring of a shard Lease). */
        labels?: Record<string, string>;
      },
    private readonly log: Logger,
  ) {
    validateLeaderElection(options);
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
  }

  private get leaseDuration(): number {
    return (this.options.leaseDurationSeconds ?? 15) * 1000;
  }
  private get renewDeadline(): number {
    return (this.options.renewDeadlineSeconds ?? 10) * 1000;
  }
  private get retryPeriod(): number {
    return (this.options.retryPeriodSeconds ?? 2) * 1000;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Campaigns until leadership is acquired (resolves true) or the signal aborts (false).
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info("attempting to acquire leader lease", {
      lease: `${this.options.namespace}/${this.options.id}`,
      identity: this.identity,
    });
    while (!signal.aborted) {
      if (await this.attemptBy(Date.now() + this.renewDeadline)) {
        this.leading = true;
        this.log.info("successfully acquired lease", {
          lease: `${this.options.namespace}/${this.options.id}`,
        });
        return true;
      }
      await sleep(this.retryPeriod * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  /**
   * Renews every retryPeriod until the signal aborts (resolves) or no renewal succeeds within
   * renewDeadline of the last one (rejects: leadership lost). It is measured from the start of the
   * last successful attempt (others can only have seen that renewal later), and the loop wakes at
   * the deadline rather than a retry period after it.
   */
  async holdUntil(signal: AbortSignal): Promise<void> {
    let lastRenew = Date.now();
    while (!signal.aborted) {
      const deadline = lastRenew + this.renewDeadline;
      await sleep(Math.min(this.retryPeriod, Math.max(0, deadline - Date.now())), signal);
      if (signal.aborted) return;
      const attempt = Date.now();
      if (await this.attemptBy(deadline)) {
        lastRenew = attempt;
        continue;
      }
      if (signal.aborted) return;
      if (Date.now() >= deadline) {
        this.leading = false;
        throw new Error(
          `leader election lost: could not renew lease ${this.options.namespace}/${this.options.id} within the renew deadline (${this.renewDeadline / 1000} s)`,
        );
      }
    }
  }

  /**
   * Stops counting as leader without writing the lease, which then expires after its duration: for
   * a shutdown whose reconciles may still be writing (a standby must not take over before).
   */
  abandon(): void {
    this.leading = false;
  }

  /**
   * Gives the lease up (holder cleared) if we hold it: one PUT of the lease as last seen, as client-go
   * does; a conflict means it changed hands meanwhile and is left alone.
   */
  async release(): Promise<void> {
    if (!this.leading || this.options.releaseOnCancel === false) return;
    this.leading = false;
    const lease = this.lease;
    if (!lease || lease.spec?.holderIdentity !== this.identity) return;
    try {
      const now = microTime();
      const put = this.base.withTimeout(this.renewDeadline).update({
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
        },
      });
      // Bounded as a renewal attempt is (see attemptBy): shutdown must not wait on a dead network.
      let timer: NodeJS.Timeout | undefined;
      const released = await Promise.race([
        put.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.renewDeadline))),
      ]).finally(() => clearTimeout(timer));
      if (!released) throw new Error(`no answer within the renew deadline (${this.renewDeadline / 1000} s)`);
      this.log.info("released leader lease", { lease: `${this.options.namespace}/${this.options.id}` });
    } catch (err) {
      this.log.warn("could not release leader lease", { err: err as Error });
    }
  }

  /**
   * One attempt, given up at `deadline` whatever its requests do: each request's timeout is an
   * idle timeout, and a reset connection is sent again with a fresh one, so on a partitioned
   * network the requests alone can outlast the deadline (seen on the real API server). A request
   * left behind can only renew a lease this replica no longer acts on.
   */
  private async attemptBy(deadline: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([this.tryAcquireOrRenew(deadline), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One attempt, its requests (fast path, then read and write) all ending by `deadline`: a hung
   * request must not keep a leader "leading" after its lease expired elsewhere (client-go bounds the
   * whole renewal by the renew deadline the same way).
   */
  private async tryAcquireOrRenew(deadline: number): Promise<boolean> {
    const now = Date.now();
    if (deadline <= now) return false;
    const client = () => this.base.withTimeout(Math.max(1, deadline - Date.now()));
    const desired: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.round(this.leaseDuration / 1000),
      acquireTime: microTime(new Date(now)),
      renewTime: microTime(new Date(now)),
      leaseTransitions: 0,
    };
    if (
      this.leading &&
      this.lease &&
      this.leaseValid(now) &&
      (await this.renewOptimistically(client(), desired))
    )
      return true;
    try {
      const lease = await client().get<Lease>(LEASE, {
        namespace: this.options.namespace,
        name: this.options.id,
      });
      if (!lease) {
        this.lease = await client().create<Lease>({
          ...LEASE,
          metadata: {
            name: this.options.id,
            namespace: this.options.namespace,
            ...(this.options.labels ? { labels: this.options.labels } : {}),
          },
          spec: desired,
        });
        this.observe(this.lease.spec ?? {});
        return true;
      }
      this.lease = lease;
      const spec = lease.spec ?? {};
      this.observe(spec);
      const holder = spec.holderIdentity ?? "";
      const held = holder !== "" && holder !== this.identity;
      if (held && this.leaseValid(now)) return false;
      if (holder === this.identity) {
        desired.acquireTime = spec.acquireTime ?? desired.acquireTime;
        desired.leaseTransitions = spec.leaseTransitions ?? 0;
      } else {
        desired.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
      }
      this.lease = await client().update({ ...lease, spec: desired });
      this.observe(desired);
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return false;
      this.log.warn("leader lease request failed", { err: err as Error });
      return false;
    }
  }

  /**
   * client-go's fast path: while leading on a valid lease, renew with one PUT of the lease as last
   * seen (its resourceVersion guards against a change meanwhile). false (conflict, error) sends the
   * caller down the slow path, which reads the lease first.
   */
  private async renewOptimistically(client: Client, desired: LeaseSpec): Promise<boolean> {
    const lease = this.lease as Lease;
    const spec = lease.spec ?? {};
    try {
      this.lease = await client.update({
        ...lease,
        spec: { ...desired, acquireTime: spec.acquireTime, leaseTransitions: spec.leaseTransitions ?? 0 },
      });
      this.observe(this.lease.spec ?? {});
      return true;
    } catch (err) {
      this.log.debug("optimistic lease renewal failed, reading the lease", { err: err as Error });
      return false;
    }
  }

  /** Whether the lease last observed is still valid, on our own clock from when we observed it. */
  private leaseValid(now: number): boolean {
    return this.observedAt + (this.lease?.spec?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private observe(spec: LeaseSpec): void {
    const key = `${spec.holderIdentity}|${spec.renewTime}|${spec.leaseDurationSeconds}`;
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = Date.now();
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
