// The side-by-side figures of bench:vs-runtime: per N, each side's median over its runs and the
// ratio tsop / controller-runtime taken within each pair (same bed build, same minutes of the
// machine), reported as min / median over the pairs; the goals of issue 26 are checked on the median.
import { stats } from "../side-by-side.js";
import { type RequestCounts, total } from "./probe.js";
import type { PhaseFigures, RunFigures } from "./run.js";

export interface Pair {
  tsop: RunFigures;
  go: RunFigures;
}

interface Metric {
  label: string;
  unit: "s" | "cpu" | "count" | "MiB" | "per";
  value: (r: RunFigures) => number;
  /** Goal on the median ratio, if issue 26 sets one (applies from `fromN` objects). */
  goal?: { max: number; fromN?: number };
}

const WAVES = ["cold", "burst", "update"] as const;
const wave = (r: RunFigures, f: (p: PhaseFigures) => number) =>
  WAVES.reduce((sum, w) => sum + (r.phases[w] ? f(r.phases[w]) : 0), 0);
const controlPlane = (p: PhaseFigures) => p.apiserverCpuMs + p.etcdCpuMs;
const perWidget = (p: PhaseFigures | undefined) => (p && p.objects > 0 ? p.reconciles / p.objects : NaN);

export const METRICS: Metric[] = [
  {
    label: "cold start → all reconciled",
    unit: "s",
    value: (r) => r.phases.cold?.wallMs ?? NaN,
    goal: { max: 1 },
  },
  {
    label: "  cold start → first reconciled",
    unit: "s",
    value: (r) => r.phases.cold?.firstMs ?? NaN,
  },
  {
    label: "burst of N/10 creates → all reconciled",
    unit: "s",
    value: (r) => r.phases.burst?.wallMs ?? NaN,
    goal: { max: 1 },
  },
  {
    label: "update wave of N → all reconciled",
    unit: "s",
    value: (r) => r.phases.update?.wallMs ?? NaN,
    goal: { max: 1 },
  },
  {
    label: "operator CPU, the three waves",
    unit: "cpu",
    value: (r) => wave(r, (p) => p.operatorCpuMs),
    goal: { max: 1 },
  },
  {
    label: "apiserver+etcd CPU, the three waves",
    unit: "cpu",
    value: (r) => wave(r, controlPlane),
    goal: { max: 1 },
  },
  {
    label: "API requests, the three waves",
    unit: "count",
    value: (r) => wave(r, (p) => total(p.requests)),
    goal: { max: 1 },
  },
  {
    label: "reconciles per Widget, the three waves",
    unit: "per",
    value: (r) => wave(r, (p) => p.reconciles) / wave(r, (p) => p.objects),
  },
  { label: "  cold start reconciles per Widget", unit: "per", value: (r) => perWidget(r.phases.cold) },
  { label: "  burst reconciles per Widget", unit: "per", value: (r) => perWidget(r.phases.burst) },
  { label: "  update reconciles per Widget", unit: "per", value: (r) => perWidget(r.phases.update) },
  { label: "  cold start requests", unit: "count", value: (r) => total(r.phases.cold?.requests ?? {}) },
  { label: "  burst requests", unit: "count", value: (r) => total(r.phases.burst?.requests ?? {}) },
  { label: "  update wave requests", unit: "count", value: (r) => total(r.phases.update?.requests ?? {}) },
  { label: "idle: operator CPU", unit: "cpu", value: (r) => r.phases.idle?.operatorCpuMs ?? NaN },
  {
    label: "idle: apiserver+etcd CPU",
    unit: "cpu",
    value: (r) => (r.phases.idle ? controlPlane(r.phases.idle) : NaN),
  },
  { label: "idle: API requests", unit: "count", value: (r) => total(r.phases.idle?.requests ?? {}) },
  { label: "peak RSS", unit: "MiB", value: (r) => r.peakRssBytes / 2 ** 20, goal: { max: 1.3, fromN: 5000 } },
  { label: "idle RSS", unit: "MiB", value: (r) => r.idleRssBytes / 2 ** 20 },
];

const show = (value: number, unit: Metric["unit"]) => {
  if (!Number.isFinite(value)) return "–";
  if (unit === "s") return `${(value / 1000).toFixed(1)} s`;
  if (unit === "cpu") return `${(value / 1000).toFixed(1)} s`;
  if (unit === "MiB") return `${value.toFixed(0)} MiB`;
  if (unit === "per") return value.toFixed(2);
  return String(Math.round(value));
};
/** Request ratios get 3 decimals: a few extra requests in 40,000 must not print as "1.00x". */
const ratioText = (values: number[], unit: Metric["unit"]) => {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return "–";
  const s = stats(finite);
  const digits = unit === "count" ? 3 : 2;
  return `${s.min.toFixed(digits)}x / ${s.median.toFixed(digits)}x`;
};
const median = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length ? stats(finite).median : NaN;
};

export interface Summary {
  n: number;
  pairs: number;
  metrics: Array<{ label: string; tsop: number; go: number; ratios: number[]; goal?: string; met?: boolean }>;
  requestsByVerb: { tsop: RequestCounts; go: RequestCounts };
  leaderElectionPerMinute?: { tsop: number; go: number };
}

/** Median per-verb request counts over a side's runs (the waves together). */
function byVerb(runs: RunFigures[]): RequestCounts {
  const keys = new Set(runs.flatMap((r) => WAVES.flatMap((w) => Object.keys(r.phases[w]?.requests ?? {}))));
  const out: RequestCounts = {};
  for (const key of [...keys].sort())
    out[key] = median(runs.map((r) => WAVES.reduce((sum, w) => sum + (r.phases[w]?.requests[key] ?? 0), 0)));
  return out;
}

export function summarise(n: number, pairs: Pair[]): Summary {
  const metrics = METRICS.map((m) => {
    const ratios = pairs.map((p) => m.value(p.tsop) / m.value(p.go));
    const applies = m.goal && n >= (m.goal.fromN ?? 0);
    const finite = ratios.filter(Number.isFinite);
    return {
      label: m.label,
      tsop: median(pairs.map((p) => m.value(p.tsop))),
      go: median(pairs.map((p) => m.value(p.go))),
      ratios,
      ...(applies
        ? {
            goal: `≤ ${m.goal!.max.toFixed(1)}x`,
            met: finite.length > 0 && stats(finite).median <= m.goal!.max,
          }
        : {}),
    };
  });
  const le = pairs.filter((p) => p.tsop.leaderElectionPerMinute && p.go.leaderElectionPerMinute);
  return {
    n,
    pairs: pairs.length,
    metrics,
    requestsByVerb: { tsop: byVerb(pairs.map((p) => p.tsop)), go: byVerb(pairs.map((p) => p.go)) },
    ...(le.length
      ? {
          leaderElectionPerMinute: {
            tsop: median(le.map((p) => total(p.tsop.leaderElectionPerMinute!))),
            go: median(le.map((p) => total(p.go.leaderElectionPerMinute!))),
          },
        }
      : {}),
  };
}

export function printSummary(s: Summary): void {
  console.log(
    `\n  N = ${s.n} Widgets (+${Math.floor(s.n / 10)} in the burst), ${s.pairs} pair(s); medians, ratio tsop / controller-runtime per pair: min / median`,
  );
  console.log(
    `    ${"".padEnd(42)} ${"tsop".padStart(10)} ${"c-runtime".padStart(10)}   ratio (min / median)   goal`,
  );
  for (const m of s.metrics) {
    const unit = METRICS.find((x) => x.label === m.label)!.unit;
    const goal = m.goal ? `${m.goal} ${m.met ? "met" : "NOT met"}` : "";
    console.log(
      `    ${m.label.padEnd(42)} ${show(m.tsop, unit).padStart(10)} ${show(m.go, unit).padStart(10)}   ${ratioText(m.ratios, unit).padEnd(20)}   ${goal}`,
    );
  }
  const verbs = [
    ...new Set([...Object.keys(s.requestsByVerb.tsop), ...Object.keys(s.requestsByVerb.go)]),
  ].sort();
  console.log(`    requests by verb and resource, the three waves (median):`);
  for (const v of verbs)
    console.log(
      `      ${v.padEnd(40)} ${String(s.requestsByVerb.tsop[v] ?? 0).padStart(10)} ${String(s.requestsByVerb.go[v] ?? 0).padStart(10)}`,
    );
  if (s.leaderElectionPerMinute)
    console.log(
      `    leader election on, idle: requests per minute ${s.leaderElectionPerMinute.tsop} (tsop) vs ${s.leaderElectionPerMinute.go} (controller-runtime)`,
    );
}

/** Per-object cost of the caches: slope of idle RSS between the smallest and largest N (Widgets + ConfigMaps). */
export function perObjectCost(
  summaries: Summary[],
): { tsop: number; go: number; from: number; to: number } | undefined {
  if (summaries.length < 2) return undefined;
  const sorted = [...summaries].sort((a, b) => a.n - b.n);
  const [lo, hi] = [sorted[0]!, sorted.at(-1)!];
  const objects = (n: number) => 2 * (n + Math.floor(n / 10));
  const idle = (s: Summary, side: "tsop" | "go") =>
    s.metrics.find((m) => m.label === "idle RSS")![side] * 2 ** 20;
  const per = (side: "tsop" | "go") => (idle(hi, side) - idle(lo, side)) / (objects(hi.n) - objects(lo.n));
  return { tsop: per("tsop"), go: per("go"), from: lo.n, to: hi.n };
}
