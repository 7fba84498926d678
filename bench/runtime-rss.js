#!/usr/bin/env node
// Resident memory of an operator process (issue 26): bare Node, after `import "tsop"`, after
// `Manager.create()`, and with a started manager (one ConfigMap controller, caches synced) against a
// tsop/testing server, each in a fresh child process (the server runs in this one, so it does not
// count). Median of N runs. Run: npm run build && node bench/runtime-rss.js
// TSOP_RUNTIME=<dir>/dist/runtime/index.js measures another build of the runtime (before/after).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const tsop = pathToFileURL(
  process.env.TSOP_RUNTIME ?? fileURLToPath(new URL("../dist/runtime/index.js", import.meta.url)),
).href;
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
  [
    "manager started",
    `const { Manager } = await import(${JSON.stringify(tsop)});
     const m = await Manager.create({ kubeconfig: ${JSON.stringify(cluster.kubeconfigPath)}, handleSignals: false,
       metricsBindAddress: "0", healthProbeBindAddress: "0" });
     await m.controller({ apiVersion: "v1", kind: "ConfigMap" }).complete({ reconcile: async () => undefined });
     const running = m.start();
     while (!(await m.cachesSynced())) await new Promise((r) => setTimeout(r, 50));
     await new Promise((r) => setTimeout(r, 500));
     ${print}
     await m.stop(); await running;`,
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
      // Asynchronously: the test server in this process answers the child.
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
      samples.push(
        Number(
          stdout
            .trim()
            .split("\n")
            .filter((l) => /^\d+$/.test(l))
            .at(-1),
        ),
      );
    }
    console.log(`  ${name.padEnd(18)} ${(median(samples) / 2 ** 20).toFixed(1)} MiB`);
  }
} finally {
  await cluster.stop();
}
