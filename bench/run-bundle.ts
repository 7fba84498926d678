#!/usr/bin/env -S npx tsx
// run bundle benchmark against tsop/testing + the OLM model (zero OLM delays) + a real local
// registry holding the fixture bundle (pushed by `tsop bundle push`). Measures, per run:
//   - latency: from the moment the model writes "CSV Succeeded" to the CLI printing its result
//     (tsop's last act) and to the CLI process exiting (goal, issue 9: < 100 ms; tsop watches the
//     CSV instead of polling it). The gap between the two is Node's own process teardown, which
//     grows with the modules loaded (@kubernetes/client-node alone adds ~80 ms here);
//   - wall time of `tsop run bundle` as a user runs it (node start included) and of the
//     in-process runBundle() call (the cluster work alone).
// Reports median and max over BENCH_RUNS runs (default 5).
// Run: npm run bench:run-bundle  (needs a build: dist/, Debian's docker-registry on PATH)
import { execa } from "execa";
import { MemoryReporter } from "../src/common/reporter.js";
import { runBundle } from "../src/olm/run/index.js";
import { TSOP_BIN } from "../test/support/cli.js";
import { startBundleRegistry, startRunEnv } from "../test/run/harness.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const CSV = "memcached-operator.v0.0.1";

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `median ${median.toFixed(0)} ms, max ${(sorted[sorted.length - 1] ?? 0).toFixed(0)} ms`;
}

const registry = await startBundleRegistry();
const latency: number[] = [];
const printed: number[] = [];
const cliWall: number[] = [];
const inProcess: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    // CLI run: the latency from "CSV Succeeded" (seen in-process, on the server) to process exit.
    const env = await startRunEnv({ cluster: { workloads: { podStartMs: 0, jobDurationMs: 0 } } });
    try {
      const succeeded = env.cluster
        .waitFor(
          "operators.coreos.com/v1alpha1",
          "ClusterServiceVersion",
          CSV,
          "demo",
          (o) => o?.status?.phase === "Succeeded",
          120_000,
        )
        .then(() => performance.now());
      const start = performance.now();
      const running = execa(
        process.execPath,
        [
          TSOP_BIN,
          "run",
          "bundle",
          registry.image("0.0.1"),
          "--kubeconfig",
          env.cluster.kubeconfigPath,
          "-n",
          "demo",
          "-q",
        ],
        { env: { ...registry.env, NO_COLOR: "1" }, reject: false },
      );
      let printedAt = 0;
      running.stdout?.on("data", () => {
        printedAt ||= performance.now();
      });
      const child = await running;
      const exited = performance.now();
      if (child.exitCode !== 0) throw new Error(`tsop run bundle failed:\n${child.stderr}`);
      const at = await succeeded;
      latency.push(exited - at);
      printed.push(printedAt - at);
      cliWall.push(exited - start);
    } finally {
      await env.stop();
    }
    // In-process run: the cluster phases without node start-up.
    const env2 = await startRunEnv({ cluster: { workloads: { podStartMs: 0, jobDurationMs: 0 } } });
    try {
      const start = performance.now();
      await runBundle({
        ...env2.base,
        image: registry.image("0.0.1"),
        namespace: "demo",
        timeoutMs: 60_000,
        reporter: new MemoryReporter(false),
      });
      inProcess.push(performance.now() - start);
    } finally {
      await env2.stop();
    }
  }
} finally {
  await registry.stop();
}

console.log(`run bundle benchmark (${runs} runs, OLM model with zero delays, bundle from a local registry)`);
console.log(`  CSV Succeeded → result printed:        ${stats(printed)}`);
console.log(`  CSV Succeeded → tsop exited:          ${stats(latency)}   (goal < 100 ms)`);
console.log(`  tsop run bundle, wall time (CLI):      ${stats(cliWall)}`);
console.log(`  runBundle() in process (cluster work): ${stats(inProcess)}`);
