// The human report of `tsop test upgrades`: per edge a header (PASS/FAIL, the edge, its channels and
// kinds), a table of its steps with their times, then one line per failure naming the edge, the
// sample and the field. `-o json` prints the result object itself.
import type { EdgeFailure, EdgeResult } from "./edge-run.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("   ")
      .trimEnd(),
  );
}

export function failureLine(edge: string, f: EdgeFailure): string {
  const where = [
    `edge ${edge}`,
    ...(f.sample ? [`sample ${f.sample}`] : []),
    ...(f.field ? [`field ${f.field}`] : []),
  ];
  return `${where.join(", ")}: ${f.message}`;
}

export function formatEdgeReport(results: readonly EdgeResult[]): string {
  const blocks = results.map((r) => {
    const head = `${r.ok ? "PASS" : "FAIL"}  ${r.edge}  (${r.kinds.join(", ")}; channel ${r.channels.join(", ")})`;
    const rows = [
      ["STEP", "TIME", "RESULT"],
      ...r.steps.map((s) => [s.step, seconds(s.ms), s.ok ? "ok" : "failed"]),
    ];
    const total = r.steps.reduce((n, s) => n + s.ms, 0);
    return [
      head,
      ...table(rows).map((l) => `  ${l}`),
      `  total ${seconds(total)}`,
      ...r.failures.map((f) => `  ${failureLine(r.edge, f)}`),
    ].join("\n");
  });
  const failed = results.filter((r) => !r.ok).length;
  return `${blocks.join("\n\n")}\n\n${results.length - failed} of ${results.length} edge(s) passed\n`;
}
