// The fault suite's invariants, read from the API server directly (not through the fault proxy):
// a Widget has converged (its ConfigMap holds spec.data, Ready=True for the current generation),
// every field a user wrote is still there, and the manager's own metrics and log lines.
import { type Client, findCondition, type MetricsRegistry } from "../../../src/runtime/index.js";
import {
  CONFIGMAP,
  type ConfigMap,
  configMapName,
  FINALIZER,
  WIDGET,
  type Widget,
} from "./fault-suite-operator.js";

/** What a user wrote on an object: compared with what is there later. */
export interface UserFields {
  spec?: Widget["spec"];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Why a Widget has not converged yet, or undefined once it has. */
export async function notConverged(
  client: Client,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const widget = await client.get<Widget>(WIDGET, { namespace, name });
  if (!widget) return "the Widget is gone";
  if (!widget.metadata.finalizers?.includes(FINALIZER)) return "no finalizer";
  const cm = await client.get<ConfigMap>(CONFIGMAP, { namespace, name: configMapName(name) });
  if (!cm) return "no ConfigMap";
  if (JSON.stringify(sorted(cm.data ?? {})) !== JSON.stringify(sorted(widget.spec.data ?? {})))
    return `ConfigMap data ${JSON.stringify(cm.data)} != spec.data ${JSON.stringify(widget.spec.data)}`;
  const ready = findCondition(widget, "Ready");
  if (ready?.status !== "True") return `Ready is ${ready?.status ?? "missing"} (${ready?.message ?? ""})`;
  if (ready.observedGeneration !== widget.metadata.generation)
    return `Ready observedGeneration ${ready.observedGeneration} != generation ${widget.metadata.generation}`;
  return undefined;
}

/** The user fields that differ from what the user wrote ([] when all are there, unchanged). */
export function lostUserFields(
  object: {
    metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: unknown;
  },
  wrote: UserFields,
): string[] {
  const lost: string[] = [];
  if (wrote.spec && JSON.stringify(sorted(object.spec)) !== JSON.stringify(sorted(wrote.spec)))
    lost.push(`spec: wrote ${JSON.stringify(wrote.spec)}, found ${JSON.stringify(object.spec)}`);
  for (const [where, map] of [
    ["labels", wrote.labels],
    ["annotations", wrote.annotations],
  ] as const) {
    for (const [key, value] of Object.entries(map ?? {})) {
      const found = object.metadata[where]?.[key];
      if (found !== value)
        lost.push(`${where}[${key}]: wrote ${value.length} bytes, found ${found?.length ?? "none"}`);
    }
  }
  return lost;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sorted(v)]),
    );
  return value;
}

/** Sum of a metric's series whose labels include `labels`, read from the registry's exposition. */
export function metric(registry: MetricsRegistry, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of registry.render().split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Captured JSON log lines, parsed. */
export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export function parseLogs(lines: string[]): LogLine[] {
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
}
