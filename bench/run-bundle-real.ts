#!/usr/bin/env -S npx tsx
// `run bundle` on the real test bed: the real kube-apiserver with OLM v0.28.0 installed by
// `tsop olm install`, OLM's operators, the registry pod (opm serve) and the bundle-unpack Job run by
// the pod runner, the bundle pulled from a real registry on 127.0.0.1. Measures, per run, the wall
// time of `tsop run bundle` as a user runs it, until it exits after "operator installed" (CSV
// Succeeded), and the time of each phase tsop reports (-o json), then `tsop cleanup`. Also the bed's
// start-up (control plane + OLM install). Runs BENCH_RUNS times (default 3); needs root (the pod
// runner) and the rig (`npm run rig -- build`).
// Run: npm run bench:run-bundle-real
import { runTsop } from "../test/support/cli.js";
import { startRegistry } from "../test/support/registry.js";
import { startOlmBed } from "../test/support/rig/olm-bed.js";
import { pushBundle, withoutRequiredApis } from "../test/run/bed.js";
import { linkRigAssets } from "./rig-assets.js";

const runs = Number(process.env.BENCH_RUNS ?? 3);

linkRigAssets();
const registry = await startRegistry();
const bedStarted = Date.now();
const bed = await startOlmBed({ namespaces: ["bench"] });
const bedMs = Date.now() - bedStarted;
const kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
const walls: number[] = [];
try {
  const image = await pushBundle(registry, "memcached-bundle", "0.0.1", withoutRequiredApis);
  for (let i = 0; i < runs; i++) {
    const started = Date.now();
    const run = await runTsop(
      ["run", "bundle", image, "-n", "bench", "--plain-http", "--timeout", "5m", "-o", "json", ...kubeconfig],
      {
        timeoutMs: 330_000,
      },
    );
    const wall = Date.now() - started;
    if (run.exitCode !== 0) throw new Error(`run bundle failed:\n${run.stderr}`);
    walls.push(wall);
    const phases = (JSON.parse(run.stdout) as { phases: Array<{ phase: string; ms: number }> }).phases;
    console.log(
      `run ${i + 1}: ${wall} ms to "operator installed" — ${phases.map((p) => `${p.phase} ${p.ms}`).join(", ")}`,
    );
    const cleanup = await runTsop(
      ["cleanup", "memcached-operator", "-n", "bench", "--delete-crds", ...kubeconfig],
      {
        timeoutMs: 330_000,
      },
    );
    if (cleanup.exitCode !== 0) throw new Error(`cleanup failed:\n${cleanup.stderr}`);
  }
} finally {
  await bed.stop();
  await registry.stop();
}
const sorted = [...walls].sort((a, b) => a - b);
console.log(
  `bed start-up (control plane + tsop olm install): ${bedMs} ms; run bundle to "operator installed": median ${sorted[Math.floor(sorted.length / 2)]} ms, min ${sorted[0]} ms, max ${sorted.at(-1)} ms over ${runs} runs`,
);
