#!/usr/bin/env node
// Startup benchmark: `tsop --help` (and `--version`) against a bare `node -e 0`, median of N runs.
// Goal (issue 2): tsop --help at most 1.6x node's own startup. Run: npm run bench:startup
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../bin/tsop.cjs", import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 30);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function time(args) {
  const samples = [];
  // One warm-up run so the file system cache is the same for every case.
  spawnSync(process.execPath, args, { stdio: "ignore" });
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: "ignore" });
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

const baseline = time(["-e", "0"]);
const cases = [
  ["tsop --help", [bin, "--help"]],
  ["tsop --version", [bin, "--version"]],
  ["tsop version", [bin, "version"]],
];
console.log(`startup, median of ${runs} runs (node ${process.version})`);
console.log(`  node -e 0          ${baseline.toFixed(1)} ms`);
for (const [name, args] of cases) {
  const ms = time(args);
  console.log(`  ${name.padEnd(18)} ${ms.toFixed(1)} ms  (${(ms / baseline).toFixed(2)}x node)`);
}
