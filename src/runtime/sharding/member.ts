// A replica's side of sharding: it reconciles only what its shard holds and hands objects over when
// the sharder asks. Its informers of primary and owned kinds already select its shard server-side
// (cache.shardSelector); this adds the handover and the gate. When an object of the shard carries the
// drain label, the replica stops admitting its key, waits until no reconcile of the key runs in any
// controller of the kind, then removes the shard and drain labels in one JSON patch whose test
// operations make it apply only while they still name this shard (the acknowledgement). From then
// the key stays refused here (the informer's DELETED event must not start a reconcile) until the
// object comes back to this shard.
import type { Client, KubeObjectLike } from "../client/client.js";
import type { Controller } from "../controller/controller.js";
import { objectKey, type InformerObject, type SharedInformer } from "../cache/informer.js";
import type { Logger } from "../log/logger.js";
import type { ShardLabels } from "./labels.js";

interface KindShare {
  ref: { apiVersion: string; kind: string };
  informer: SharedInformer;
  controllers: Controller[];
  /** Keys being handed over: refused, waiting for their reconciles to end. */
  draining: Set<string>;
  /** Keys acknowledged to the sharder: refused until the object is assigned here again. */
  handedOff: Set<string>;
  /** Objects of the shard deleted (not handed off): their key is admitted once, to clean up. */
  gone: Set<string>;
}

/** A JSON Pointer segment (RFC 6901): "/" and "~" escaped. */
export function pointer(label: string): string {
  return `/metadata/labels/${label.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

export class ShardMember {
  private readonly shares = new Map<string, KindShare>();
  private stopped = false;

  constructor(
    readonly identity: string,
    private readonly labels: ShardLabels,
    /** Writes straight to the server (the manager's apiReader). */
    private readonly client: Client,
    private readonly log: Logger,
    private readonly retryPeriodMs: number,
  ) {}

  /** Joins `controller` (its primary kind's informer selects this shard) to the handover of its kind. */
  attach(ref: { apiVersion: string; kind: string }, informer: SharedInformer, controller: Controller): void {
    const kindKey = `${ref.apiVersion}/${ref.kind}`;
    let share = this.shares.get(kindKey);
    if (!share) {
      const made: KindShare = {
        ref,
        informer,
        controllers: [],
        draining: new Set(),
        handedOff: new Set(),
        gone: new Set(),
      };
      share = made;
      this.shares.set(kindKey, made);
      const seen = (obj: InformerObject) => this.seen(made, obj);
      informer.addHandler({
        onAdd: seen,
        onUpdate: (_old, obj) => seen(obj),
        onDelete: (obj) => {
          const key = objectKey(obj);
          if (!made.handedOff.has(key)) made.gone.add(key);
        },
      });
    }
    share.controllers.push(controller);
    const s = share;
    controller.admits = (key) => this.admits(s, key);
  }

  /** Stops starting handovers (the manager stops). */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Whether a key of the kind may be reconciled here now: its object is in this shard's cache and
   * not moving away, or it was just deleted from the shard. Any other key (one a watches() handler
   * mapped to an object of another shard) is another replica's.
   */
  private admits(share: KindShare, key: string): boolean {
    if (share.draining.has(key) || share.handedOff.has(key)) return false;
    const cached = share.informer.get(keyParts(key));
    if (!cached) return share.gone.delete(key);
    return (
      cached.metadata?.labels?.[this.labels.shard] === this.identity &&
      cached.metadata?.labels?.[this.labels.drain] === undefined
    );
  }

  private seen(share: KindShare, obj: InformerObject): void {
    const labels = obj.metadata?.labels ?? {};
    if (labels[this.labels.shard] !== this.identity) return;
    const key = objectKey(obj);
    share.gone.delete(key);
    if (labels[this.labels.drain] === undefined) share.handedOff.delete(key);
    else void this.handOver(share, key);
  }

  private async handOver(share: KindShare, key: string): Promise<void> {
    if (this.stopped || share.draining.has(key) || share.handedOff.has(key)) return;
    share.draining.add(key);
    try {
      await Promise.all(share.controllers.map((c) => c.whenIdle(key)));
      share.handedOff.add(key);
      const { shard, drain } = this.labels;
      await this.client.patch(
        { kind: share.ref, key: keyParts(key) },
        [
          { op: "test", path: pointer(shard), value: this.identity },
          { op: "test", path: pointer(drain), value: "true" },
          { op: "remove", path: pointer(shard) },
          { op: "remove", path: pointer(drain) },
        ],
        { type: "json" },
      );
      this.log.debug("handed over", { kind: share.ref.kind, key });
    } catch (err) {
      // The labels changed meanwhile (or the request failed): look again after a retry period.
      share.handedOff.delete(key);
      this.log.debug("handover not acknowledged; trying again", { key, err: err as Error });
      setTimeout(() => {
        const obj = share.informer.get(keyParts(key));
        if (obj) this.seen(share, obj);
      }, this.retryPeriodMs).unref();
    } finally {
      share.draining.delete(key);
    }
  }

  /**
   * Labels a child about to be created with its controller owner's shard, when the owner is an
   * object of this shard: the child lands in this replica's owned-kind informer at once.
   */
  prepareCreate<T extends KubeObjectLike>(obj: T): T {
    const meta = (
      obj as {
        metadata?: {
          namespace?: string;
          labels?: Record<string, string>;
          ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; controller?: boolean }>;
        };
      }
    ).metadata;
    const owner = meta?.ownerReferences?.find((o) => o.controller);
    if (!meta || !owner || meta.labels?.[this.labels.shard] !== undefined) return obj;
    const share = this.shares.get(`${owner.apiVersion}/${owner.kind}`);
    const cached = share?.informer.get({ namespace: meta.namespace, name: owner.name });
    if (cached?.metadata?.labels?.[this.labels.shard] !== this.identity) return obj;
    return { ...obj, metadata: { ...meta, labels: { ...meta.labels, [this.labels.shard]: this.identity } } };
  }
}

function keyParts(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
