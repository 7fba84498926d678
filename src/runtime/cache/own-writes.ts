// Events caused by a controller's own writes. A watch event is the controller's own when its object
// has exactly the resourceVersion one of the controller's writes returned AND the informer's copy
// before it had exactly the resourceVersion the write was made from: the watch delivers every change
// of an object in order, so nothing else changed in between, and the reconcile that wrote already
// saw everything that event carries. Events of a relist (after a watch gap) are never counted as own:
// the list may have folded another actor's change into the same transition.
import type { InformerObject } from "./informer.js";
import { objectKey } from "./informer.js";
import { comparableVersion, isNewerVersion } from "./resource-version.js";

/**
 * Which own writes do not enqueue their controller again: "status" (default) status writes;
 * "all" also creates, updates and patches of objects and their metadata; "none" every event
 * enqueues, as in controller-runtime.
 */
export type OwnWriteEvents = "status" | "all" | "none";

interface OwnWrite {
  writer: string;
  resourceVersion: string;
  /** The resourceVersion the write was made from; "" for a create. */
  basedOn: string;
  status: boolean;
  at: number;
}

/** What the decisions read of an object (informer objects and KubeObjectLike both fit). */
type Versioned = { metadata?: { namespace?: string; name?: string; resourceVersion?: string } };

const ENTRY_TTL_MS = 60_000;
/** Writes remembered per object: a reconcile writes an object a few times at most. */
const PER_OBJECT = 8;

export class OwnWrites {
  private readonly kinds = new Map<string, Map<string, OwnWrite[]>>();
  /**
   * Writes sent and not yet answered, per object, and the watch events of that object that came
   * meanwhile: the server may send a write's event before its answer, and only the answer tells
   * whether the event is the write's own. Parked events run, in order, once every write is answered.
   */
  private readonly pending = new Map<string, { writes: number; parked: Array<() => void> }>();

  constructor(
    readonly mode: OwnWriteEvents,
    private readonly now: () => number = Date.now,
  ) {}

  record(
    kind: string,
    object: InformerObject,
    write: { writer: string; basedOn: string | undefined; status: boolean },
  ): void {
    const rv = object.metadata?.resourceVersion;
    if (this.mode === "none" || write.basedOn === undefined || !comparableVersion(rv)) return;
    if (this.mode === "status" && !write.status) return;
    let entries = this.kinds.get(kind);
    if (!entries) this.kinds.set(kind, (entries = new Map()));
    const key = objectKey(object);
    const list = (entries.get(key) ?? []).filter((w) => this.now() - w.at <= ENTRY_TTL_MS);
    list.push({ ...write, basedOn: write.basedOn, resourceVersion: rv!, at: this.now() });
    entries.set(key, list.slice(-PER_OBJECT));
  }

  /** A write that may be filtered is being sent: returns what to call once it is answered (or failed). */
  beginWrite(kind: string, key: string, write: { writer: string | undefined; status: boolean }): () => void {
    if (!write.writer || this.mode === "none" || (this.mode === "status" && !write.status)) return () => {};
    const id = `${kind}|${key}`;
    let entry = this.pending.get(id);
    if (!entry) this.pending.set(id, (entry = { writes: 0, parked: [] }));
    entry.writes++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--entry.writes > 0) return;
      this.pending.delete(id);
      for (const run of entry.parked) run();
    };
  }

  /** Runs `decide` now, or (a write of the object awaiting its answer) once every such write is answered. */
  whenAnswered(kind: string, object: Versioned, decide: () => void): void {
    const entry = this.pending.get(`${kind}|${objectKey(object)}`);
    if (entry) entry.parked.push(decide);
    else decide();
  }

  /**
   * Whether the watch event old → object (old undefined: an add) is `controller`'s own write.
   * Consumes the matching entry.
   */
  isOwn(controller: string, kind: string, old: Versioned | undefined, object: Versioned): boolean {
    const list = this.kinds.get(kind)?.get(objectKey(object));
    if (!list) return false;
    const rv = object.metadata?.resourceVersion;
    const before = old ? (old.metadata?.resourceVersion ?? "") : "";
    const i = list.findIndex(
      (w) =>
        w.writer === controller &&
        w.resourceVersion === rv &&
        w.basedOn === before &&
        this.now() - w.at <= ENTRY_TTL_MS,
    );
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  /**
   * The informer delivered `object`: writes older than it can no longer match an event; the one it
   * carries stays for the writer's own handler (which runs after the cache's) to consume.
   */
  caughtUp(kind: string, object: InformerObject, deleted: boolean): void {
    const entries = this.kinds.get(kind);
    const key = objectKey(object);
    const list = entries?.get(key);
    if (!list) return;
    const rv = object.metadata?.resourceVersion;
    const left = deleted ? [] : list.filter((w) => !isNewerVersion(rv, w.resourceVersion));
    if (left.length === 0) entries!.delete(key);
    else entries!.set(key, left);
  }
}
