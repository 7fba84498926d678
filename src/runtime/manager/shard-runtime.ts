// The manager's side of ManagerOptions.sharding: this replica's identity and shard Lease (held with
// the leader election's own LeaderElector, under another name and with the ring label), the member
// that gates and hands over this shard's keys, and the sharder that the leader runs. Fencing: the
// shard Lease is renewed as a leader lease is, and a replica that cannot renew it within the renew
// deadline stops all its work at once (the manager fails, as on lost leadership), before the
// sharder, which waits for the lease duration, can give its objects to another shard.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Client } from "../client/client.js";
import type { Controller } from "../controller/controller.js";
import type { InformerSettings } from "../cache/informer.js";
import { ConfigError } from "../connect/errors.js";
import { gvkOf, type KindRef, type RestMapper } from "../connect/mapper.js";
import type { RestClient } from "../connect/rest.js";
import type { Logger } from "../log/logger.js";
import {
  defaultShardIdentity,
  RING_LABEL,
  type ShardLabels,
  shardLabels,
  shardLeaseName,
  validateShardIdentity,
} from "../sharding/labels.js";
import { ShardMember } from "../sharding/member.js";
import { Sharder } from "../sharding/sharder.js";
import { LeaderElector, type LeaderElectionOptions } from "./leader.js";

export interface ShardingOptions {
  /** The ring's name: labels `shard.tsop.io/<ring>`. Default: the leader election id. */
  ring?: string;
  /** Shard Lease timings (ms). Default: the leader election's (15 s, 10 s, 2 s). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export class ShardRuntime {
  readonly labels: ShardLabels;
  readonly identity: string;
  readonly member: ShardMember;
  private readonly primary = new Map<string, KindRef>();
  private readonly owned = new Map<string, KindRef>();
  private elector: LeaderElector | undefined;
  private readonly timings: {
    leaseDurationSeconds: number;
    renewDeadlineSeconds: number;
    retryPeriodSeconds: number;
  };

  constructor(
    options: ShardingOptions,
    private readonly le: LeaderElectionOptions | undefined,
    private readonly apiReader: Client,
    private readonly log: Logger,
  ) {
    if (!le || le.enabled === false)
      throw new ConfigError("sharding needs leader election (the leader assigns objects to shards)", {
        hint: "set leaderElection (--leader-elect --leader-election-id <id>) with sharding",
      });
    this.labels = shardLabels(options.ring ?? le.id);
    this.identity = le.identity ?? defaultShardIdentity(hostname(), randomUUID());
    validateShardIdentity(this.identity);
    const s = (ms: number | undefined, seconds: number | undefined, fallback: number) =>
      ms !== undefined ? ms / 1000 : (seconds ?? fallback);
    this.timings = {
      leaseDurationSeconds: s(options.leaseDurationMs, le.leaseDurationSeconds, 15),
      renewDeadlineSeconds: s(options.renewDeadlineMs, le.renewDeadlineSeconds, 10),
      retryPeriodSeconds: s(options.retryPeriodMs, le.retryPeriodSeconds, 2),
    };
    this.member = new ShardMember(
      this.identity,
      this.labels,
      apiReader,
      log.named("member"),
      this.timings.retryPeriodSeconds * 1000,
    );
  }

  /** The label selector of this replica's informers of primary and owned kinds. */
  get selector(): string {
    return `${this.labels.shard}=${this.identity}`;
  }

  /** A kind a controller reconciles ("primary") or owns: the sharder assigns its objects. */
  noteKind(kind: KindRef, role: "primary" | "owned"): void {
    const gvk = gvkOf(kind);
    (role === "primary" ? this.primary : this.owned).set(`${gvk.apiVersion}/${gvk.kind}`, kind);
  }

  /** A registered controller: its keys are gated by this shard. */
  register(controller: Controller): void {
    if (!controller.primary || !controller.primarySource) return;
    const gvk = gvkOf(controller.primary);
    this.member.attach({ apiVersion: gvk.apiVersion, kind: gvk.kind }, controller.primarySource, controller);
  }

  /** Takes this replica's shard Lease (resolves false if stopped first). */
  async acquire(namespace: string, signal: AbortSignal): Promise<boolean> {
    this.elector = new LeaderElector(
      this.apiReader,
      {
        id: shardLeaseName(this.labels.ring, this.identity),
        namespace,
        identity: this.identity,
        ...this.timings,
        labels: { [RING_LABEL]: this.labels.ring },
      },
      this.log.named("shard-lease"),
    );
    return this.elector.acquire(signal);
  }

  /** Renews the shard Lease until `signal` aborts; rejects when it could not within the renew deadline. */
  hold(signal: AbortSignal): Promise<void> {
    return this.elector ? this.elector.holdUntil(signal) : Promise.resolve();
  }

  /** On shutdown: give the Lease up when no reconcile runs (the sharder moves the shard at once), else let it expire. */
  async release(drained: boolean): Promise<void> {
    this.member.stop();
    if (!this.elector) return;
    if (drained) await this.elector.release();
    else this.elector.abandon();
  }

  /** The sharder, a runnable of the leader. */
  sharder(rest: RestClient, mapper: RestMapper, settings: InformerSettings, namespace: string) {
    return {
      needLeaderElection: true,
      start: async (signal: AbortSignal) => {
        const maps = (kinds: Map<string, KindRef>) =>
          Promise.all([...kinds.values()].map((k) => mapper.mapping(k)));
        const sharder = new Sharder({
          rest,
          client: this.apiReader,
          settings,
          labels: this.labels,
          leaseNamespace: namespace,
          leaseMapping: await mapper.mapping({ apiVersion: "coordination.k8s.io/v1", kind: "Lease" }),
          primary: await maps(this.primary),
          owned: await maps(this.owned),
          retryPeriodMs: this.timings.retryPeriodSeconds * 1000,
          log: this.log.named("sharder"),
        });
        await sharder.start(signal);
      },
    };
  }
}
