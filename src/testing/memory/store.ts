// Object storage: one bucket per resource (all served versions share it), a global resourceVersion
// counter, and a bounded event history that watches replay from.
import type { KObj } from "./types.js";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  rv: number;
  type: EventType;
  storageKey: string;
  namespace: string;
  /** The object after the change (for DELETED: the last state, carrying the deletion's rv). */
  object: KObj;
  /** The object before the change (used to turn selector transitions into ADDED/DELETED). */
  previous: KObj | undefined;
}

export type StoreListener = (event: StoreEvent) => void;

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export class Store {
  private rv = 1;
  private buckets = new Map<string, Map<string, KObj>>();
  private history: StoreEvent[] = [];
  /** Watches from a resourceVersion older than this answer 410 Gone. */
  private compactedRv = 1;
  private listeners = new Set<StoreListener>();
  private pending: StoreEvent[] = [];
  private dispatching = false;

  constructor(private readonly historySize: number) {}

  currentRv(): number {
    return this.rv;
  }

  oldestWatchableRv(): number {
    return this.compactedRv;
  }

  /** Forget all history: every watch or continue token from an older resourceVersion gets 410. */
  compact(): void {
    this.history = [];
    this.compactedRv = this.rv;
  }

  get(storageKey: string, namespace: string, name: string): KObj | undefined {
    return this.buckets.get(storageKey)?.get(objectKey(namespace, name));
  }

  /** Objects of a bucket sorted by namespace then name (etcd key order); namespace "" = all. */
  list(storageKey: string, namespace = ""): KObj[] {
    const bucket = this.buckets.get(storageKey);
    if (!bucket) return [];
    const keys = [...bucket.keys()].sort();
    const out: KObj[] = [];
    for (const k of keys) {
      const obj = bucket.get(k)!;
      if (namespace === "" || (obj.metadata?.namespace ?? "") === namespace) out.push(obj);
    }
    return out;
  }

  bucketKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Stores the object with a fresh resourceVersion and records the event. Returns the stored object. */
  put(storageKey: string, object: KObj, type: "ADDED" | "MODIFIED"): KObj {
    const ns = object.metadata.namespace ?? "";
    let bucket = this.buckets.get(storageKey);
    if (!bucket) {
      bucket = new Map();
      this.buckets.set(storageKey, bucket);
    }
    const key = objectKey(ns, object.metadata.name);
    const previous = bucket.get(key);
    this.rv++;
    object.metadata.resourceVersion = String(this.rv);
    bucket.set(key, object);
    this.record({ rv: this.rv, type, storageKey, namespace: ns, object, previous });
    return object;
  }

  remove(storageKey: string, object: KObj): KObj {
    const ns = object.metadata.namespace ?? "";
    const bucket = this.buckets.get(storageKey);
    const key = objectKey(ns, object.metadata.name);
    const previous = bucket?.get(key);
    bucket?.delete(key);
    this.rv++;
    const last = structuredClone(object);
    last.metadata.resourceVersion = String(this.rv);
    this.record({ rv: this.rv, type: "DELETED", storageKey, namespace: ns, object: last, previous });
    return last;
  }

  /** Drops a whole bucket without events (used when a CRD stops serving). */
  dropBucket(storageKey: string): void {
    this.buckets.delete(storageKey);
  }

  /** Events after `rv`, or undefined when history no longer reaches back that far. */
  eventsSince(rv: number): StoreEvent[] | undefined {
    if (rv < this.compactedRv) return undefined;
    return this.history.filter((e) => e.rv > rv);
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private record(event: StoreEvent): void {
    this.history.push(event);
    while (this.history.length > this.historySize) {
      const dropped = this.history.shift()!;
      this.compactedRv = dropped.rv;
    }
    // A listener may write (nested put); queue so every listener sees events in resourceVersion order.
    this.pending.push(event);
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let e = this.pending.shift(); e; e = this.pending.shift()) {
        for (const l of [...this.listeners]) l(e);
      }
    } finally {
      this.dispatching = false;
    }
  }
}
