// Read-your-own-writes: after a write succeeds, the cache serves the written object (or, after a
// delete, its absence) to this manager's readers until the informer has caught up with it. The
// informer's copy wins as soon as it is at least as new; an entry with nothing newer arriving for a
// while is dropped (the watch is then far behind, and reads are as stale as without the overlay).
import type { InformerObject } from "./informer.js";
import { objectKey } from "./informer.js";
import { isAtLeastVersion, isNewerVersion } from "./resource-version.js";

interface Written {
  /** The object as written (transformed as the cache transforms), or undefined: deleted. */
  object: InformerObject | undefined;
  resourceVersion: string | undefined;
  uid: string | undefined;
  at: number;
}

/** How long an entry outlives a watch that does not deliver its write. */
const ENTRY_TTL_MS = 60_000;

export class WrittenOverlay {
  /** kind key → object key → what this manager wrote last. */
  private readonly kinds = new Map<string, Map<string, Written>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Remembers a written object (transformed), to be served until the informer has it. */
  wrote(kind: string, object: InformerObject): void {
    this.entries(kind).set(objectKey(object), {
      object,
      resourceVersion: object.metadata?.resourceVersion,
      uid: object.metadata?.uid,
      at: this.now(),
    });
  }

  /** Remembers that this manager deleted `object` (or moved it out of what the cache holds). */
  removed(kind: string, object: InformerObject): void {
    this.entries(kind).set(objectKey(object), {
      object: undefined,
      resourceVersion: object.metadata?.resourceVersion,
      uid: object.metadata?.uid,
      at: this.now(),
    });
  }

  /** The informer delivered `object` (or its deletion): entries it supersedes are dropped. */
  caughtUp(kind: string, object: InformerObject, deleted: boolean): void {
    const entries = this.kinds.get(kind);
    const key = objectKey(object);
    const entry = entries?.get(key);
    if (!entry) return;
    const rv = object.metadata?.resourceVersion;
    if (deleted || entry.uid !== object.metadata?.uid || isAtLeastVersion(rv, entry.resourceVersion))
      entries!.delete(key);
  }

  /**
   * What a read of `key` should see given the informer's copy `stored`: stored itself, the newer
   * written object, or undefined when this manager deleted it.
   */
  resolve<T extends InformerObject>(kind: string, key: string, stored: T | undefined): T | undefined {
    const entry = this.live(kind, key);
    if (!entry) return stored;
    if (entry.object === undefined) return stored && stored.metadata?.uid !== entry.uid ? stored : undefined;
    if (!stored || isNewerVersion(entry.resourceVersion, stored.metadata?.resourceVersion))
      return entry.object as T;
    return stored;
  }

  /** The informer's objects with this manager's newer writes applied (deleted ones left out). */
  overlay<T extends InformerObject>(kind: string, stored: T[]): T[] {
    const entries = this.kinds.get(kind);
    if (!entries || entries.size === 0) return stored;
    const out: T[] = [];
    const seen = new Set<string>();
    for (const obj of stored) {
      const key = objectKey(obj);
      seen.add(key);
      const resolved = this.resolve(kind, key, obj);
      if (resolved) out.push(resolved);
    }
    for (const key of [...entries.keys()]) {
      if (seen.has(key)) continue;
      const entry = this.live(kind, key);
      if (entry?.object) out.push(entry.object as T);
    }
    return out;
  }

  private live(kind: string, key: string): Written | undefined {
    const entries = this.kinds.get(kind);
    const entry = entries?.get(key);
    if (entry && this.now() - entry.at > ENTRY_TTL_MS) {
      entries!.delete(key);
      return undefined;
    }
    return entry;
  }

  private entries(kind: string): Map<string, Written> {
    let entries = this.kinds.get(kind);
    if (!entries) this.kinds.set(kind, (entries = new Map()));
    return entries;
  }
}
