// The operator of the own-writes tests (both tiers): it only writes status.observedGeneration of
// its Widgets, and records the generation each reconcile saw, per Widget.
import type { ReconcileContext, Request } from "../../../src/runtime/controller/controller.js";
import type { Manager } from "../../../src/runtime/manager/manager.js";
import { type Widget, WIDGET } from "./trust-writes.js";

export interface StatusOperator {
  /** Generations seen by each reconcile, in order, per Widget name. */
  reconciles: Map<string, number[]>;
}

/** Wires the controller; `beforeWrite` runs inside a reconcile between its read and its write. */
export async function statusController(
  manager: Manager,
  beforeWrite?: (seen: number[]) => Promise<void>,
): Promise<StatusOperator> {
  const reconciles = new Map<string, number[]>();
  await manager.controller(WIDGET).complete(async (req: Request, { client }: ReconcileContext) => {
    const w = await client.get<Widget>(WIDGET, req);
    if (!w) return;
    const seen = reconciles.get(req.name) ?? [];
    reconciles.set(req.name, seen);
    seen.push(w.metadata.generation ?? 0);
    if (w.status?.observedGeneration === w.metadata.generation) return;
    await beforeWrite?.(seen);
    await client.patchStatus(w, { status: { observedGeneration: w.metadata.generation } });
  });
  return { reconciles };
}
