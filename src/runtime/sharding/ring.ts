// The consistent-hash ring that assigns objects to shards: each shard stands at VIRTUAL_NODES
// points of a 32-bit circle (the hash of "<shard>#<i>"), and an object belongs to the first shard
// point at or after the hash of its "namespace/name". Adding or removing one shard moves only the
// objects between its points and their predecessors (about 1/k of them), and the same set of shards
// always gives the same assignment on every replica (the hash is FNV-1a, not Node's randomised one).

/** Points per shard: enough that k shards get within ~±30 % of 1/k each (sharding.test.ts bounds it). */
export const VIRTUAL_NODES = 64;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`, finished with a murmur3 mix for spread. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export class HashRing {
  private readonly points: Array<{ at: number; shard: string }>;
  readonly shards: readonly string[];

  constructor(shards: Iterable<string>, virtualNodes = VIRTUAL_NODES) {
    this.shards = [...new Set(shards)].sort();
    this.points = this.shards
      .flatMap((shard) =>
        Array.from({ length: virtualNodes }, (_, i) => ({ at: hash32(`${shard}#${i}`), shard })),
      )
      // Ties (vanishingly rare) broken by name so every replica builds the same ring.
      .sort((a, b) => a.at - b.at || (a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : 0));
  }

  /** The shard of an object key ("namespace/name", or "name" if cluster-scoped); undefined with no shard. */
  ownerOf(key: string): string | undefined {
    const points = this.points;
    if (points.length === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid]!.at < h) lo = mid + 1;
      else hi = mid;
    }
    return points[lo === points.length ? 0 : lo]!.shard;
  }
}
