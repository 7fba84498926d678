// Shared plumbing of the side-by-side benchmarks (tsop against operator-sdk, controller-gen,
// kustomize): run a command and time it, interleave the tools run by run (so a busy moment of the
// shared machine hits both), and report each tool's min/median/max and the per-run ratio
// tsop / peer. A failed run or a wrong output ends the benchmark with exit 1 (`fail`).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";

export interface Timed {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunSpec {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
}

/** Runs `command args` to completion, measuring wall time from spawn to exit. */
export function timed(command: string, args: readonly string[], spec: RunSpec = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, {
      cwd: spec.cwd,
      env: { ...process.env, NO_COLOR: "1", ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
      timeout: spec.timeoutMs ?? 300_000,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
    child.stdin.end(spec.input ?? "");
  });
}

/** A pipeline run by bash with pipefail, so a failure of any stage fails the run. */
export function pipeline(script: string, spec: RunSpec = {}): Promise<Timed> {
  return timed("bash", ["-c", `set -euo pipefail; ${script}`], spec);
}

export class BenchFailure extends Error {}

/** Ends the benchmark: a run failed or its output is wrong. */
export function fail(message: string): never {
  throw new BenchFailure(message);
}

/** Fails unless the run exited 0, quoting the end of its stderr. */
export function ok(what: string, run: Timed): Timed {
  if (run.code !== 0) {
    const said = `${run.stdout}\n${run.stderr}`.trim().split("\n").slice(-20).join("\n");
    fail(`${what} exited ${run.code}:\n${said}`);
  }
  return run;
}

export interface Stats {
  min: number;
  median: number;
  max: number;
}

export function stats(values: readonly number[]): Stats {
  if (values.length === 0) fail("no samples");
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return { min: s[0]!, median: s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2, max: s.at(-1)! };
}

/** A rig binary's path (`npm run rig -- path NAME`); fails if the rig has not built it. */
export function rigBinary(name: string): string {
  const rig = join(import.meta.dirname, "../scripts/rig/index.mjs");
  try {
    return execFileSync(process.execPath, [rig, "path", name], { encoding: "utf8" }).trim();
  } catch {
    fail(`the rig has no ${name} built: run \`npm run rig -- build ${name}\` first`);
  }
}

/** One measured case: each tool's times (ms) per run, in run order. */
export interface Case {
  label: string;
  samples: Record<string, number[]>;
  /** Other per-run figures (e.g. API request counts), reported as min/median/max too. */
  counts?: Record<string, number[]>;
}

export interface Report {
  benchmark: string;
  runs: number;
  /** The tool the ratios are taken against ("tsop / <peer>"). */
  peers: string[];
  cases: Case[];
  notes: string[];
}

/** Runs `once` `runs` times after `warmups` unrecorded runs; once(i) returns each tool's ms. */
export async function interleave(
  runs: number,
  warmups: number,
  once: (run: number) => Promise<Record<string, number>>,
): Promise<Record<string, number[]>> {
  for (let i = 0; i < warmups; i++) await once(-1 - i);
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < runs; i++) {
    for (const [tool, ms] of Object.entries(await once(i))) (samples[tool] ??= []).push(ms);
  }
  return samples;
}

/** Per-run ratio a/b. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]!);
}

const fmt = (ms: number) =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
const fmtStats = (s: Stats, unit: (n: number) => string) =>
  `${unit(s.min)} / ${unit(s.median)} / ${unit(s.max)}`;

export function machine(): string {
  const [one, five] = loadavg();
  // Node parses that file at every start (~33 ms on the development machine, where it is set), so
  // every Node run pays it and the Go peers do not: say which environment the figures come from.
  const caCerts = process.env.NODE_EXTRA_CA_CERTS ? ", NODE_EXTRA_CA_CERTS set" : "";
  return `${cpus().length} cores, load average ${one!.toFixed(2)} (1 min) ${five!.toFixed(2)} (5 min), node ${process.version}${caCerts}`;
}

/** Prints the table (tools, then ratios tsop / peer) and writes BENCH_JSON if set. */
export function report(result: Report): void {
  console.log(`\n${result.benchmark}: ${result.runs} runs, min / median / max (${machine()})`);
  for (const c of result.cases) {
    console.log(`  ${c.label}`);
    for (const [tool, values] of Object.entries(c.samples))
      console.log(`    ${tool.padEnd(40)} ${fmtStats(stats(values), fmt)}`);
    for (const [what, values] of Object.entries(c.counts ?? {}))
      console.log(`    ${what.padEnd(40)} ${fmtStats(stats(values), (n) => String(Math.round(n)))}`);
    const tsop = c.samples.tsop;
    for (const peer of result.peers) {
      const other = c.samples[peer];
      if (!tsop || !other) continue;
      console.log(
        `    ${`ratio tsop / ${peer}`.padEnd(40)} ${fmtStats(stats(ratios(tsop, other)), (r) => `${r.toFixed(2)}x`)}`,
      );
    }
  }
  for (const note of result.notes) console.log(`  note: ${note}`);
  const file = process.env.BENCH_JSON;
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ ...result, date: new Date().toISOString(), machine: machine() }, null, 2)}\n`,
    );
    console.log(`  written to ${file}`);
  }
}

/** Runs a benchmark's main: a BenchFailure (or any error) prints its message and exits 1. */
export function main(body: () => Promise<void>): void {
  body().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
