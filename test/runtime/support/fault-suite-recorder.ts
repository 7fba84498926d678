// Records when each reconcile of each key starts and ends, per replica, so a test can check the
// runtime's central promise: one key is never reconciled twice at the same time, in one replica or
// across replicas. Wrap a reconciler (or call begin() / the returned end()) and ask overlaps().
import type { ReconcileContext, Reconciler, Request, Result } from "../../../src/runtime/index.js";

export interface ReconcileSpan {
  key: string;
  replica: string;
  /** Order numbers from one counter shared by all replicas: no clock involved. */
  start: number;
  end?: number;
  outcome?: "ok" | "error";
}

export class ReconcileRecorder {
  readonly spans: ReconcileSpan[] = [];
  private tick = 0;

  /** Marks a reconcile of `key` as started by `replica`; call the result when it ends. */
  begin(key: string, replica = "replica-0"): (outcome?: "ok" | "error") => void {
    const span: ReconcileSpan = { key, replica, start: ++this.tick };
    this.spans.push(span);
    return (outcome = "ok") => {
      span.end = ++this.tick;
      span.outcome = outcome;
    };
  }

  /** The same reconciler, recording every call (key = namespace/name). */
  wrap(reconciler: Reconciler, replica = "replica-0"): Reconciler {
    return {
      reconcile: async (req: Request, ctx: ReconcileContext): Promise<Result | undefined | void> => {
        const end = this.begin(`${req.namespace}/${req.name}`, replica);
        try {
          const result = await reconciler.reconcile(req, ctx);
          end("ok");
          return result;
        } catch (error) {
          end("error");
          throw error;
        }
      },
    };
  }

  /** Pairs of reconciles of one key that ran at the same time (a still-running one lasts forever). */
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

  /** Reconciles of `key` so far (optionally only those that ended with `outcome`). */
  count(key: string, outcome?: "ok" | "error"): number {
    return this.spans.filter((s) => s.key === key && (outcome === undefined || s.outcome === outcome)).length;
  }

  /** Reconciles running right now. */
  running(key?: string): number {
    return this.spans.filter((s) => s.end === undefined && (key === undefined || s.key === key)).length;
  }
}
