// Which write an Event needs, decided as client-go's EventCorrelator (tools/record/events_cache.go)
// decides it, so that an operator sends the Event requests a controller-runtime operator sends:
// - aggregation: the 10th distinct message for the same object, type and reason within 10 minutes
//   becomes one "(combined from similar events): …" Event, counted up from then on;
// - deduplication: an Event seen before (same object, type, reason and message) is a PATCH of its
//   count, message and lastTimestamp, not a new Event;
// - spam filter: per source and object, a token bucket of 25 writes refilled at one per 5 minutes;
//   writes beyond it are dropped.
// Caches are bounded (4096 keys, oldest dropped first). Pure: the recorder does the requests.

export interface EventDraft {
  apiVersion?: string;
  kind?: string;
  namespace: string;
  name?: string;
  uid?: string;
  type: string;
  reason: string;
  message: string;
}

export type Correlation =
  | { action: "skip" }
  | { action: "create"; name: string; message: string; count: 1 }
  | { action: "patch"; name: string; message: string; count: number };

const CACHE_SIZE = 4096;
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;

/** A Map that forgets its oldest key beyond CACHE_SIZE (client-go uses an LRU of that size). */
export class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    this.delete(key); // re-inserted: now the newest
    super.set(key, value);
    if (this.size > CACHE_SIZE) this.delete(this.keys().next().value as string);
    return this;
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

export class EventCorrelator {
  private readonly aggregates = new BoundedMap<{ messages: Set<string>; at: number }>();
  private readonly observed = new BoundedMap<{ name: string; count: number }>();
  private readonly buckets = new BoundedMap<Bucket>();

  constructor(
    /** source.component + source.host: part of every key, as in client-go. */
    private readonly source: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The write for one event; `newName` names the Event if one is created. */
  correlate(draft: EventDraft, newName: () => string): Correlation {
    const object = [this.source, draft.kind, draft.namespace, draft.name, draft.uid, draft.apiVersion];
    const { key, message } = this.aggregate(draft, [...object, draft.type, draft.reason].join("\u0000"));
    const last = this.observed.get(key);
    const name = last?.name ?? newName();
    const count = (last?.count ?? 0) + 1;
    this.observed.set(key, { name, count });
    if (!this.take([...object, draft.type].join("\u0000"))) return { action: "skip" };
    return count === 1
      ? { action: "create", name, message, count }
      : { action: "patch", name, message, count };
  }

  private aggregate(draft: EventDraft, aggregateKey: string): { key: string; message: string } {
    const now = this.now();
    let record = this.aggregates.get(aggregateKey);
    if (!record || now - record.at > AGGREGATE_INTERVAL_MS) record = { messages: new Set(), at: now };
    record.messages.add(draft.message);
    record.at = now;
    this.aggregates.set(aggregateKey, record);
    if (record.messages.size < AGGREGATE_MAX_EVENTS)
      return { key: `${aggregateKey}\u0000${draft.message}`, message: draft.message };
    record.messages.delete(record.messages.values().next().value as string);
    return { key: aggregateKey, message: `(combined from similar events): ${draft.message}` };
  }

  /** client-go's passive token bucket: true when a token was available. */
  private take(spamKey: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(spamKey) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + ((now - bucket.at) / 1000) * SPAM_QPS);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(spamKey, bucket);
    return allowed;
  }
}
