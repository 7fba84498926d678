// Condition helpers with metav1 semantics (apimachinery meta.SetStatusCondition): one entry per
// type, lastTransitionTime changes only when the status changes, observedGeneration records which
// generation of the spec the condition describes.
import type { Condition } from "../schema.js";

export interface ConditionInput {
  type: string;
  status: Condition["status"];
  reason: string;
  message?: string;
  /** Defaults to the object's metadata.generation when a whole object is given. */
  observedGeneration?: number;
}

/** An object with status.conditions (the usual shape), or the conditions array itself. */
export type ConditionTarget =
  Condition[] | { metadata?: { generation?: number }; status?: { conditions?: Condition[] } | undefined };

function conditionsOf(target: ConditionTarget, create: boolean): Condition[] | undefined {
  if (Array.isArray(target)) return target;
  if (!create) return target.status?.conditions;
  target.status ??= {};
  target.status.conditions ??= [];
  return target.status.conditions;
}

/**
 * Sets (adds or updates) the condition of `input.type`. Returns true when anything changed, so a
 * reconciler can skip a status update that would change nothing.
 */
export function setCondition(
  target: ConditionTarget,
  input: ConditionInput,
  now: Date = new Date(),
): boolean {
  const list = conditionsOf(target, true) as Condition[];
  const generation = Array.isArray(target) ? undefined : target.metadata?.generation;
  const observedGeneration = input.observedGeneration ?? generation;
  const next: Condition = {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message ?? "",
    lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  };
  const index = list.findIndex((c) => c.type === input.type);
  const existing = list[index];
  if (!existing) {
    list.push(next);
    return true;
  }
  let changed = false;
  if (existing.status !== next.status) {
    existing.status = next.status;
    existing.lastTransitionTime = next.lastTransitionTime;
    changed = true;
  }
  if (existing.reason !== next.reason) {
    existing.reason = next.reason;
    changed = true;
  }
  if (existing.message !== next.message) {
    existing.message = next.message;
    changed = true;
  }
  if (next.observedGeneration !== undefined && existing.observedGeneration !== next.observedGeneration) {
    existing.observedGeneration = next.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of this type, if present. */
export function findCondition(target: ConditionTarget, type: string): Condition | undefined {
  return conditionsOf(target, false)?.find((c) => c.type === type);
}

export function isConditionTrue(target: ConditionTarget, type: string): boolean {
  return findCondition(target, type)?.status === "True";
}

export function isConditionFalse(target: ConditionTarget, type: string): boolean {
  return findCondition(target, type)?.status === "False";
}

/** Removes the condition of this type; returns true when one was removed. */
export function removeCondition(target: ConditionTarget, type: string): boolean {
  const list = conditionsOf(target, false);
  if (!list) return false;
  const index = list.findIndex((c) => c.type === type);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}
