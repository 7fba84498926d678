// `npm run bench:vs-runtime`: tsop's operator runtime against controller-runtime (issue 26). The
// same Widget operator written for each (bench/runtime-twin/ts and /go) runs against the rig's real
// kube-apiserver + etcd, a fresh bed per run, at each N: cold start with N Widgets, a burst of N/10
// creates, an update wave over N, an idle minute. Pairs alternate which side goes first; ratios are
// taken within a pair and reported as min / median. See docs/bench-runtime.md.
//
//   --n 1000,5000,20000           object counts; ":k" gives that N its own number of pairs
//   --pairs 3                     pairs per N otherwise
//   --idle 60                     idle phase, seconds
//   --leader-election             also count lease requests per minute at the smallest N
//   --tsop <dir>                  run the tsop twin on another built tsop checkout (default: this one)
//   --peer v0.25.2                controller-runtime version of the Go twin (v0.25.2 or v0.22.5)
//   --profile <dir>               the tsop twin writes a V8 CPU profile of each run there
// Environment: BENCH_RUNTIME_N, BENCH_PAIRS, BENCH_IDLE_S, BENCH_LEADER_ELECTION=1, BENCH_TSOP, BENCH_PROFILE say the same;
// BENCH_JSON=<file> writes every run's figures.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fail, machine, main } from "./side-by-side.js";
import { type Pair, perObjectCost, printSummary, summarise, type Summary } from "./runtime-twin/report.js";
import { measureRun, type RunFigures, type RunOptions } from "./runtime-twin/run.js";
import { goTwin, type Operator, type Peer, PEERS, tsTwin } from "./runtime-twin/twins.js";

interface Plan {
  sizes: Array<{ n: number; pairs: number }>;
  tsop: string;
  peer: Peer;
  profileDir: string | undefined;
  options: RunOptions;
}

function plan(): Plan {
  const { values } = parseArgs({
    options: {
      n: { type: "string" },
      pairs: { type: "string" },
      idle: { type: "string" },
      "leader-election": { type: "boolean" },
      tsop: { type: "string" },
      peer: { type: "string" },
      profile: { type: "string" },
    },
  });
  const pairs = Number(values.pairs ?? process.env.BENCH_PAIRS ?? 3);
  const idleS = Number(values.idle ?? process.env.BENCH_IDLE_S ?? 60);
  const list = values.n ?? process.env.BENCH_RUNTIME_N ?? "1000,5000,20000";
  if (!Number.isInteger(pairs) || pairs < 1)
    fail(`--pairs (BENCH_PAIRS) must be a whole number ≥ 1, not ${pairs}`);
  if (!(idleS >= 0)) fail(`--idle (BENCH_IDLE_S) must be a number of seconds ≥ 0`);
  const sizes = list.split(",").map((item) => {
    const [n, k] = item.split(":").map(Number);
    if (!Number.isInteger(n) || n! < 10 || (k !== undefined && (!Number.isInteger(k) || k < 1)))
      fail(`--n (BENCH_RUNTIME_N): "${item}" is not N (≥ 10) or N:pairs`);
    return { n: n!, pairs: k ?? pairs };
  });
  const largest = Math.max(...sizes.map((s) => s.n));
  const peer = values.peer ?? process.env.BENCH_PEER ?? "v0.25.2";
  if (!(peer in PEERS))
    fail(`--peer (BENCH_PEER) must be one of ${Object.keys(PEERS).join(", ")}, not ${peer}`);
  return {
    sizes,
    tsop: resolve(values.tsop ?? process.env.BENCH_TSOP ?? join(import.meta.dirname, "..")),
    peer: peer as Peer,
    profileDir: values.profile ?? process.env.BENCH_PROFILE,
    options: {
      idleMs: idleS * 1000,
      // generous: controller-runtime took ~27 ms per Widget in an update wave at load average 25
      // on the 2-core machine; allow 60 ms, and at least 3 minutes
      settleTimeoutMs: Math.max(180_000, largest * 60),
      leaderElection: Boolean(values["leader-election"] ?? process.env.BENCH_LEADER_ELECTION === "1"),
    },
  };
}

/** The tsop commit measured (with "+changes" when the work tree differs from it). */
function commit(dir: string): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
  try {
    return `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") ? "+changes" : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

async function runOne(operator: Operator, n: number, options: RunOptions): Promise<RunFigures> {
  const started = Date.now();
  const figures = await measureRun(operator, n, options);
  const cold = figures.phases.cold?.wallMs;
  console.log(
    `    ${operator.side.padEnd(18)} ${figures.failure ? "FAILED" : `cold ${((cold ?? 0) / 1000).toFixed(1)} s`}` +
      ` (run ${((Date.now() - started) / 1000).toFixed(0)} s; bed ${(figures.setupMs.bed / 1000).toFixed(0)} s,` +
      ` creating the Widgets ${(figures.setupMs.widgets / 1000).toFixed(0)} s)`,
  );
  return figures;
}

main(async () => {
  const { sizes, tsop, peer, options, profileDir } = plan();
  const go = goTwin(peer);
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const ts = await tsTwin(tsop, profileDir);
  const tsopCommit = commit(tsop);
  console.log(
    `vs-runtime: tsop ${tsopCommit} vs controller-runtime ${peer}; ${sizes.map((s) => `N=${s.n}×${s.pairs}`).join(", ")}, idle ${options.idleMs / 1000} s (${machine()})`,
  );
  const summaries: Summary[] = [];
  const failures: string[] = [];
  const runs: RunFigures[] = [];
  let pairIndex = 0;
  try {
    const smallest = Math.min(...sizes.map((s) => s.n));
    for (const { n, pairs } of sizes) {
      const measured: Pair[] = [];
      const le = { ...options, leaderElection: options.leaderElection && n === smallest };
      for (let p = 0; p < pairs; p++, pairIndex++) {
        const order = pairIndex % 2 === 0 ? [ts, go] : [go, ts];
        console.log(`  N=${n} pair ${p + 1}/${pairs}: ${order.map((o) => o.side).join(" then ")}`);
        const pair: Partial<Pair> = {};
        for (const operator of order) {
          const figures = await runOne(operator, n, le);
          runs.push(figures);
          if (figures.failure) failures.push(`N=${n} ${operator.side}: ${figures.failure}`);
          pair[operator === ts ? "tsop" : "go"] = figures;
        }
        if (!pair.tsop!.failure && !pair.go!.failure) measured.push(pair as Pair);
      }
      if (measured.length) {
        const summary = summarise(n, measured);
        summaries.push(summary);
        printSummary(summary);
      }
    }
  } finally {
    rmSync(ts.cwd, { recursive: true, force: true });
  }
  const cost = perObjectCost(summaries);
  if (cost)
    console.log(
      `\n  idle RSS per cached object (Widget or ConfigMap), slope from N=${cost.from} to N=${cost.to}: ` +
        `tsop ${(cost.tsop / 1024).toFixed(2)} KiB, controller-runtime ${(cost.go / 1024).toFixed(2)} KiB`,
    );
  console.log(`  (${machine()})`);
  const file = process.env.BENCH_JSON;
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ benchmark: "vs-runtime", commit: tsopCommit, date: new Date().toISOString(), machine: machine(), options, summaries, perObjectCost: cost, runs, failures }, null, 2)}\n`,
    );
    console.log(`  written to ${file}`);
  }
  if (failures.length) fail(`${failures.length} run(s) failed:\n${failures.join("\n\n")}`);
});
