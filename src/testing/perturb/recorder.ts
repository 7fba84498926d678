// What a run's reconciles did: when each of one key started and ended (overlaps), which failed
// and whether the failure was surfaced, and which keys still wait for a retry (settling).
import type { ReconcileError, ReconcileSpan } from "./types.js";

export class RunRecorder {
  readonly spans: ReconcileSpan[] = [];
  readonly errors: ReconcileError[] = [];
  /** Writes of the operator through its reconcile context, all generations. */
  writes = 0;
  /** Keys whose last reconcile failed or asked to be requeued soon: the run is not settled yet. */
  readonly retrying = new Set<string>();
  private tick = 0;

  begin(key: string, generation: number): ReconcileSpan {
    const span: ReconcileSpan = { key, generation, start: ++this.tick };
    this.spans.push(span);
    this.retrying.delete(key);
    return span;
  }

  end(span: ReconcileSpan): void {
    span.end = ++this.tick;
  }

  running(): number {
    return this.spans.filter((s) => s.end === undefined).length;
  }

  /** Pairs of reconciles of one key that ran at the same time (a running one lasts forever). */
  overlaps(): Array<[ReconcileSpan, ReconcileSpan]> {
    const found: Array<[ReconcileSpan, ReconcileSpan]> = [];
    const byKey = new Map<string, ReconcileSpan[]>();
    for (const s of this.spans) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
    for (const spans of byKey.values()) {
      for (let i = 0; i < spans.length; i++) {
        for (let j = i + 1; j < spans.length; j++) {
          const [a, b] = [spans[i]!, spans[j]!];
          if (b.start < (a.end ?? Infinity) && a.start < (b.end ?? Infinity)) found.push([a, b]);
        }
      }
    }
    return found;
  }
}
