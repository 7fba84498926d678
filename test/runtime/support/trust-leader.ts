// Helpers of the leadership tests: the lease as the server holds it, read with the test's own
// (admin) client, and a sampler that records every renewTime it sees while a promise is pending.
import type { Client, KubeObjectLike } from "../../../src/runtime/client/client.js";

export const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" } as const;

export type Lease = KubeObjectLike & {
  spec?: { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseTransitions?: number };
};

export async function readLease(
  client: Client,
  name: string,
  namespace = "default",
): Promise<Lease | undefined> {
  return client.get<Lease>(LEASE, { namespace, name });
}

/** The distinct renewTimes (ms since the epoch, sorted) seen every intervalMs until `until` settles. */
export async function sampleRenewals(
  client: Client,
  name: string,
  until: Promise<unknown>,
  intervalMs = 100,
): Promise<number[]> {
  const seen = new Set<number>();
  let done = false;
  until.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    const renew = (await readLease(client, name).catch(() => undefined))?.spec?.renewTime;
    if (renew) seen.add(Date.parse(renew));
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return [...seen].sort((a, b) => a - b);
}

/** The longest time between consecutive renewals (ms). */
export function longestGap(renewals: number[]): number {
  let gap = 0;
  for (let i = 1; i < renewals.length; i++) gap = Math.max(gap, renewals[i]! - renewals[i - 1]!);
  return gap;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
