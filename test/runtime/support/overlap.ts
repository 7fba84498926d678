// The overlap recorder: each replica's reconciler records when it starts and ends a key; two
// replicas must never have reconciles of one key running at the same time (leadership is fenced).
export interface Interval {
  replica: string;
  key: string;
  start: number;
  end: number;
}

export class OverlapRecorder {
  readonly intervals: Interval[] = [];
  private readonly open = new Map<symbol, { replica: string; key: string; start: number }>();

  /** Marks a reconcile of `key` by `replica` as started; call the returned function when it ends. */
  begin(replica: string, key: string): () => void {
    const id = Symbol(key);
    this.open.set(id, { replica, key, start: performance.now() });
    return () => {
      const o = this.open.get(id);
      if (!o) return;
      this.open.delete(id);
      this.intervals.push({ ...o, end: performance.now() });
    };
  }

  /** Reconciles still running, as intervals ending now. */
  private running(): Interval[] {
    const now = performance.now();
    return [...this.open.values()].map((o) => ({ ...o, end: now }));
  }

  /** Reconciles (finished or running) of one replica. */
  of(replica: string): Interval[] {
    return [...this.intervals, ...this.running()].filter((i) => i.replica === replica);
  }

  /** Pairs of intervals of different replicas on the same key that overlap in time. */
  overlaps(): Array<[Interval, Interval]> {
    const all = [...this.intervals, ...this.running()];
    const found: Array<[Interval, Interval]> = [];
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) {
        const a = all[i]!;
        const b = all[j]!;
        if (a.replica !== b.replica && a.key === b.key && a.start < b.end && b.start < a.end)
          found.push([a, b]);
      }
    return found;
  }
}
