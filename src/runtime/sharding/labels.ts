// The names sharding writes on the API server: the ring label on shard Leases, the shard label and
// the drain label on objects, and the shard Lease's name. Validated once, so that a ring or an
// identity that cannot be a label fails at start with the option named, not at the first patch.
import { ConfigError } from "../connect/errors.js";

/** On each shard Lease: which ring it belongs to. */
export const RING_LABEL = "sharding.tsop.io/ring";

export interface ShardLabels {
  ring: string;
  /** `shard.tsop.io/<ring>`: the shard (replica identity) an object is assigned to. */
  shard: string;
  /** `drain.shard.tsop.io/<ring>`: "true" while the object moves away from its shard. */
  drain: string;
}

const LABEL_NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

export function shardLabels(ring: string): ShardLabels {
  if (!LABEL_NAME.test(ring))
    throw new ConfigError(`sharding.ring "${ring}" cannot name a label`, {
      hint: "use at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (it defaults to the leader election id)",
    });
  return { ring, shard: `shard.tsop.io/${ring}`, drain: `drain.shard.tsop.io/${ring}` };
}

/** Checks a shard identity: it is a label value and part of a Lease name. */
export function validateShardIdentity(identity: string): void {
  if (!LABEL_NAME.test(identity))
    throw new ConfigError(`shard identity "${identity}" cannot be a label value`, {
      hint: "set leaderElection.identity to at most 63 lowercase letters, digits, '-' and '.' (the default, the pod name and a random suffix, is one)",
    });
}

/** The shard Lease of `identity` in `ring`. */
export function shardLeaseName(ring: string, identity: string): string {
  return `${ring}-shard-${identity}`;
}

/** Room for the host name in an identity: 63 for a label value, less "-" and an 8-character suffix. */
const HOST_ROOM = 50;
/** What a long host name keeps of its end: a pod's ReplicaSet hash (≤ 10) and its own suffix (5). */
const HOST_TAIL = 16;

/**
 * A default identity: the host (pod) name, a random suffix (a restarted pod is a new shard). A name
 * too long loses its middle, not its end: two replicas' pod names differ only in their last
 * characters, and the label must still say which pod holds an object.
 */
export function defaultShardIdentity(host: string, random: string): string {
  const name = host.toLowerCase().replace(/[^a-z0-9-.]/g, "-");
  const fitted =
    name.length <= HOST_ROOM ? name : `${name.slice(0, HOST_ROOM - HOST_TAIL - 1)}-${name.slice(-HOST_TAIL)}`;
  const base = fitted.replace(/^[^a-z0-9]+/, "").replace(/[^a-z0-9]+$/, "");
  return `${base || "replica"}-${random.slice(0, 8)}`;
}
