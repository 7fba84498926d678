// When a sample counts as reconciled: a condition of the author's choice is True (default: Available
// or Ready), or a jsonpath holds a value, in kubectl wait's --for=jsonpath syntax ({.status.phase}=Running;
// without "=value": present and not empty, false or 0).
import { UsageError } from "../common/errors.js";
import { findCondition, type KubeObject } from "../kube/objects.js";
import { pathText, type Step, valueAt } from "./fields.js";

export type Readiness =
  | { kind: "condition"; types: string[] }
  | { kind: "jsonpath"; text: string; steps: Step[]; expected?: string };

export const DEFAULT_READY_CONDITIONS = ["Available", "Ready"];

export function conditionReadiness(types: string[] = DEFAULT_READY_CONDITIONS): Readiness {
  return { kind: "condition", types };
}

/** `{.status.phase}=Running`, `{.status.replicas}`, `{.status.items[0].ready}=true`. */
export function parseReadyJsonpath(text: string): Readiness {
  const m = /^\{((?:\.[A-Za-z0-9_-]+|\[\d+\])+)\}(?:=(.*))?$/.exec(text.trim());
  if (!m)
    throw new UsageError(`--ready-jsonpath "${text}" is not a jsonpath this command reads`, {
      hint: "write it as kubectl wait --for=jsonpath does: '{.status.phase}=Running' (fields and [index] steps only)",
    });
  const steps: Step[] = (m[1]!.match(/\.[^.[]+|\[\d+\]/g) ?? []).map((s) =>
    s.startsWith("[") ? Number(s.slice(1, -1)) : s.slice(1),
  );
  return { kind: "jsonpath", text: text.trim(), steps, ...(m[2] !== undefined ? { expected: m[2] } : {}) };
}

export interface ReadyState {
  ready: boolean;
  /** What was seen, for progress and failures ("Available=False (Deploying)"). */
  status: string;
  /** The condition that made it ready (condition readiness only). */
  condition?: string;
}

export function readyState(obj: KubeObject | undefined, readiness: Readiness): ReadyState {
  if (!obj) return { ready: false, status: "gone" };
  if (readiness.kind === "jsonpath") {
    const value = valueAt(obj, readiness.steps);
    const shown = value === undefined ? "absent" : JSON.stringify(value);
    const ready =
      readiness.expected !== undefined
        ? value !== undefined &&
          (typeof value === "string" ? value : JSON.stringify(value)) === readiness.expected
        : value !== undefined && value !== null && value !== "" && value !== false && value !== 0;
    return { ready, status: `${pathText(readiness.steps)} ${shown}` };
  }
  const seen: string[] = [];
  for (const type of readiness.types) {
    const c = findCondition(obj, type);
    if (c?.status === "True") return { ready: true, status: `${type}=True`, condition: type };
    if (c) seen.push(`${type}=${c.status}${c.reason ? ` (${c.reason})` : ""}`);
  }
  return { ready: false, status: seen.join(", ") || `no ${readiness.types.join(" or ")} condition` };
}

/** How the readiness reads in messages: "condition Available or Ready True". */
export function describeReadiness(readiness: Readiness): string {
  return readiness.kind === "condition"
    ? `condition ${readiness.types.join(" or ")} True`
    : `jsonpath ${readiness.text}`;
}
