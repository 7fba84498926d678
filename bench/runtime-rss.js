#!/usr/bin/env node
// Resident memory of an operator process (issue 26): bare Node, after `import "tsop"`, and after
// `Manager.create()` against a tsop/testing server, each in a fresh child process (the server runs in
// this one, so it does not count). Median of N runs. Run: npm run build && node bench/runtime-rss.js
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const tsop = pathToFileURL(fileURLToPath(new URL("../dist/runtime/index.js", import.meta.url))).href;
const testing = new URL("../dist/testing/index.js", import.meta.url).href;

const { startTestCluster } = await import(testing);
const cluster = await startTestCluster();

const print = "console.log(process.memoryUsage().rss)";
const cases = [
  ["node (bare)", print],
  ['import "tsop"', `await import(${JSON.stringify(tsop)}); ${print}`],
  [
    "Manager.create()",
    `const { Manager } = await import(${JSON.stringify(tsop)});
     const m = await Manager.create({ kubeconfig: ${JSON.stringify(cluster.kubeconfigPath)}, handleSignals: false });
     ${print}`,
  ],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

console.log(`RSS, median of ${runs} runs (node ${process.version})`);
try {
  for (const [name, script] of cases) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${name}: exit ${r.status}\n${r.stderr}`);
      samples.push(Number(r.stdout.trim().split("\n").at(-1)));
    }
    console.log(`  ${name.padEnd(18)} ${(median(samples) / 2 ** 20).toFixed(1)} MiB`);
  }
} finally {
  await cluster.stop();
}
