// The sharder: on the elected leader only, it assigns every object of the sharded primary kinds to
// one live shard of the ring and moves objects when shards come and go. It watches the ring's shard
// Leases and (metadata only) every object of the primary and owned kinds, and after each change
// makes one pass:
//   - an object without a shard label is labelled with the ring's choice, its children first;
//   - an object of a live shard that the ring now gives to another gets the drain label: its shard
//     hands it back (member.ts) by removing both labels, and the next pass assigns it;
//   - an object of a dead shard (its Lease not renewed for its duration, or released) is relabelled
//     at once: that replica stopped reconciling before its Lease could expire (the fence);
//   - a child whose shard label differs from its controller owner's is relabelled to follow it.
// Liveness is judged on this process's clock from when a Lease's renewal was first seen (as leader
// election does), so clock skew between replicas does not matter; a new leader therefore waits one
// lease duration before it declares any shard dead. Every write is conditional (a JSON patch that
// tests the labels it changes, or the resourceVersion it saw), so a stale view only costs a retry.
import type { Client } from "../client/client.js";
import type { ResourceMapping } from "../connect/mapper.js";
import type { RestClient } from "../connect/rest.js";
import { Informer, type InformerObject, type InformerSettings, objectKey } from "../cache/informer.js";
import type { Logger } from "../log/logger.js";
import { RING_LABEL, type ShardLabels } from "./labels.js";
import { pointer } from "./member.js";
import { HashRing } from "./ring.js";

export interface SharderOptions {
  rest: RestClient;
  /** Writes straight to the server. */
  client: Client;
  settings: InformerSettings;
  labels: ShardLabels;
  /** Where the shard Leases are (the leader election namespace). */
  leaseNamespace: string;
  leaseMapping: ResourceMapping;
  primary: ResourceMapping[];
  owned: ResourceMapping[];
  /** How often a pass runs without any event (lease expiry is a matter of time). */
  retryPeriodMs: number;
  log: Logger;
  /** Patches sent at once. Default 8. */
  concurrency?: number;
}

interface LeaseObject extends InformerObject {
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

interface Meta extends InformerObject {
  metadata?: InformerObject["metadata"] & {
    uid?: string;
    resourceVersion?: string;
    ownerReferences?: Array<{ uid: string; controller?: boolean }>;
  };
}

/** The least time between two passes, so that a burst of events is taken in one. */
const PASS_GAP_MS = 50;

export class Sharder {
  /** Objects written from a version: not written again until a newer version is seen (uid → rv). */
  private readonly written = new Map<string, string>();
  private readonly observed = new Map<string, { stamp: string; at: number }>();
  private wake: (() => void) | undefined;
  private dirty = true;
  /** Last pass's ring, for tests and logs. */
  ring = new HashRing([]);

  constructor(private readonly o: SharderOptions) {}

  /** Runs until `signal` aborts (a leader runnable). */
  async start(signal: AbortSignal): Promise<void> {
    const { settings, labels } = this.o;
    const poke = () => {
      this.dirty = true;
      this.wake?.();
    };
    const handler = { onAdd: poke, onUpdate: poke, onDelete: poke };
    const leases = new Informer(this.o.rest, this.o.leaseMapping, {
      ...settings,
      namespace: this.o.leaseNamespace,
      labelSelector: `${RING_LABEL}=${labels.ring}`,
    });
    const watch = (m: ResourceMapping) =>
      new Informer(this.o.rest, m, { ...settings, metadataOnly: true }) as Informer<Meta>;
    const primary = this.o.primary.map((m) => ({ mapping: m, informer: watch(m) }));
    const owned = this.o.owned.map((m) => ({ mapping: m, informer: watch(m) }));
    const all = [leases, ...primary.map((p) => p.informer), ...owned.map((p) => p.informer)];
    for (const inf of all) {
      inf.addHandler(handler);
      inf.start();
    }
    try {
      await Promise.race([Promise.all(all.map((i) => i.waitForSync())), aborted(signal)]);
      while (!signal.aborted) {
        this.dirty = false;
        await this.pass(leases as Informer<LeaseObject>, primary, owned, signal).catch((err: unknown) =>
          this.o.log.warn("sharding pass failed; trying again", { err: err as Error }),
        );
        // Events coming in a burst (each write causes one) are taken in one pass.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, this.dirty ? PASS_GAP_MS : this.o.retryPeriodMs);
          function done() {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
          }
          this.wake = () => {
            clearTimeout(timer);
            setTimeout(done, PASS_GAP_MS);
          };
          signal.addEventListener("abort", done, { once: true });
        });
        this.wake = undefined;
      }
    } finally {
      await Promise.all(all.map((i) => i.stop()));
    }
  }

  /** The shards whose Lease is held and was renewed within its duration, as seen from here. */
  private liveShards(leases: Informer<LeaseObject>, now: number): Set<string> {
    const live = new Set<string>();
    const seen = new Set<string>();
    for (const lease of leases.list()) {
      const name = lease.metadata?.name ?? "";
      seen.add(name);
      const spec = lease.spec ?? {};
      const stamp = `${spec.holderIdentity}|${spec.renewTime}|${spec.leaseDurationSeconds}`;
      const prev = this.observed.get(name);
      if (prev?.stamp !== stamp) this.observed.set(name, { stamp, at: now });
      const at = this.observed.get(name)!.at;
      if (spec.holderIdentity && at + (spec.leaseDurationSeconds ?? 0) * 1000 > now)
        live.add(spec.holderIdentity);
    }
    for (const name of this.observed.keys()) if (!seen.has(name)) this.observed.delete(name);
    return live;
  }

  private async pass(
    leases: Informer<LeaseObject>,
    primary: Array<{ mapping: ResourceMapping; informer: Informer<Meta> }>,
    owned: Array<{ mapping: ResourceMapping; informer: Informer<Meta> }>,
    signal: AbortSignal,
  ): Promise<void> {
    const live = this.liveShards(leases, Date.now());
    const ring = new HashRing(live);
    if (ring.shards.join(",") !== this.ring.shards.join(","))
      this.o.log.info("shards changed", { ring: this.o.labels.ring, shards: ring.shards });
    this.ring = ring;
    if (live.size === 0) return;
    const { shard: SHARD, drain: DRAIN } = this.o.labels;
    const children = new Map<string, Array<{ mapping: ResourceMapping; obj: Meta }>>();
    for (const { mapping, informer } of owned)
      for (const obj of informer.list()) {
        const owner = obj.metadata?.ownerReferences?.find((o) => o.controller)?.uid;
        if (owner) children.set(owner, [...(children.get(owner) ?? []), { mapping, obj }]);
      }
    const writes: Array<() => Promise<unknown>> = [];
    const write = (obj: Meta, send: () => Promise<unknown>) => {
      const uid = obj.metadata?.uid ?? objectKey(obj);
      const rv = obj.metadata?.resourceVersion ?? "";
      if (this.written.get(uid) === rv) return; // sent from this version; wait for the next
      this.written.set(uid, rv);
      writes.push(() =>
        send().catch((err: unknown) => {
          this.written.delete(uid);
          throw err;
        }),
      );
    };
    const labelChildren = (parent: Meta, target: string) => {
      for (const child of children.get(parent.metadata?.uid ?? "") ?? [])
        if (child.obj.metadata?.labels?.[SHARD] !== target)
          write(child.obj, () => this.mergeLabels(child.mapping, child.obj, { [SHARD]: target }));
    };
    for (const { mapping, informer } of primary)
      for (const obj of informer.list()) {
        const labels = obj.metadata?.labels ?? {};
        const current = labels[SHARD];
        const wanted = ring.ownerOf(objectKey(obj))!;
        if (current === undefined) {
          // Children first: when the new shard starts, they are already in its cache.
          labelChildren(obj, wanted);
          write(obj, () => this.mergeLabels(mapping, obj, { [SHARD]: wanted, [DRAIN]: null }));
        } else if (!live.has(current)) {
          labelChildren(obj, wanted);
          write(obj, () => this.relabelFromDead(mapping, obj, current, wanted));
        } else if (current !== wanted && labels[DRAIN] === undefined) {
          write(obj, () => this.startDrain(mapping, obj, current));
        } else if (labels[DRAIN] === undefined) {
          labelChildren(obj, current);
        }
      }
    // Forget objects that are gone (the map holds only what the informers hold).
    const present = new Set(
      [...primary, ...owned].flatMap(({ informer }) =>
        informer.list().map((o) => o.metadata?.uid ?? objectKey(o)),
      ),
    );
    for (const uid of this.written.keys()) if (!present.has(uid)) this.written.delete(uid);
    await runAll(writes, this.o.concurrency ?? 8, signal, (err) =>
      this.o.log.debug("sharding write not applied; the next pass looks again", { err: err as Error }),
    );
    await this.collectDeadLeases(leases, live, primary, owned);
  }

  /** A merge patch of labels, refused (409) if the object changed since it was seen. */
  private mergeLabels(mapping: ResourceMapping, obj: Meta, labels: Record<string, string | null>) {
    const m = obj.metadata ?? {};
    return this.o.client.patch(
      { kind: mapping, key: { namespace: m.namespace, name: m.name ?? "" } },
      { metadata: { resourceVersion: m.resourceVersion, labels } },
      { type: "merge" },
    );
  }

  /** The dead shard's label replaced, only if it is still that shard's. */
  private relabelFromDead(mapping: ResourceMapping, obj: Meta, dead: string, wanted: string) {
    const m = obj.metadata ?? {};
    const ops: unknown[] = [
      { op: "test", path: pointer(this.o.labels.shard), value: dead },
      { op: "replace", path: pointer(this.o.labels.shard), value: wanted },
    ];
    if (m.labels?.[this.o.labels.drain] !== undefined)
      ops.push({ op: "remove", path: pointer(this.o.labels.drain) });
    return this.o.client.patch({ kind: mapping, key: { namespace: m.namespace, name: m.name ?? "" } }, ops, {
      type: "json",
    });
  }

  private startDrain(mapping: ResourceMapping, obj: Meta, current: string) {
    const m = obj.metadata ?? {};
    return this.o.client.patch(
      { kind: mapping, key: { namespace: m.namespace, name: m.name ?? "" } },
      [
        { op: "test", path: pointer(this.o.labels.shard), value: current },
        { op: "add", path: pointer(this.o.labels.drain), value: "true" },
      ],
      { type: "json" },
    );
  }

  /** Deletes the Lease of a dead shard once no object names it any more (a restarted pod is a new shard). */
  private async collectDeadLeases(
    leases: Informer<LeaseObject>,
    live: Set<string>,
    primary: Array<{ informer: Informer<Meta> }>,
    owned: Array<{ informer: Informer<Meta> }>,
  ): Promise<void> {
    const used = new Set<string>();
    for (const { informer } of [...primary, ...owned])
      for (const obj of informer.list()) {
        const s = obj.metadata?.labels?.[this.o.labels.shard];
        if (s) used.add(s);
      }
    for (const lease of leases.list()) {
      const holder = lease.spec?.holderIdentity ?? "";
      const identity = (lease.metadata?.name ?? "").slice(`${this.o.labels.ring}-shard-`.length);
      if (live.has(holder) || used.has(identity) || (holder && used.has(holder))) continue;
      const key = { namespace: this.o.leaseNamespace, name: lease.metadata?.name ?? "" };
      const resourceVersion = (lease.metadata as Meta["metadata"])?.resourceVersion;
      await this.o.client
        .delete({ kind: this.o.leaseMapping, key }, resourceVersion ? { resourceVersion } : {})
        .catch((err: unknown) =>
          this.o.log.debug("could not delete a dead shard lease", { err: err as Error }),
        );
    }
  }
}

/** Runs the writes, `limit` at a time; a failed one is reported and left to the next pass. */
async function runAll(
  writes: Array<() => Promise<unknown>>,
  limit: number,
  signal: AbortSignal,
  report: (err: unknown) => void,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < writes.length && !signal.aborted) {
      const write = writes[next++]!;
      await write().catch(report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, writes.length) }, lane));
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
