#!/usr/bin/env -S npx tsx
// Generation benchmark: `tsop generate` on synthetic projects with 1, 10 and 50 kinds, each kind
// with nested types (three levels of interfaces, arrays, maps, enums, a shared Condition list and
// validation tags). Reports the median of BENCH_RUNS end-to-end CLI runs (node start included) and
// the time per kind, so growth can be compared with linear, twice: the analysis (--no-cache: the
// compiler loads and analyses every run) and an unchanged project (answered from the generate
// cache). Goal (issue 5): < 2 s for 50 kinds.
// Run: npm run bench:generate  (needs a build: dist/)
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeTsProject } from "./projects.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const sizes = (process.env.BENCH_KINDS ?? "1,10,50").split(",").map(Number);

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// One run = one fresh node process running the CLI's entry; it reports its own wall and CPU time
// (CPU time is what to compare on a shared, busy machine).
const probe = `
const start = process.hrtime.bigint();
const { loadCli } = (await import("node:module")).createRequire(import.meta.url)(${JSON.stringify(fileURLToPath(new URL("../dist/cli/tsop-load-cli.cjs", import.meta.url)))});
const args = JSON.parse(process.env.TSOP_ARGS);
const code = await loadCli(args).cli.run(args);
const wall = Number(process.hrtime.bigint() - start) / 1e6;
const cpu = process.cpuUsage();
console.log(JSON.stringify({ code, wall, cpu: (cpu.user + cpu.system) / 1000 }));
`;

function once(dir, args) {
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", probe], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, TSOP_ARGS: JSON.stringify(args) },
  });
  const last = res.stdout.trim().split("\n").pop() ?? "";
  const m = last.startsWith("{") ? JSON.parse(last) : undefined;
  if (res.status !== 0 || !m || m.code !== 0) throw new Error(`generate failed in ${dir}:\n${res.stderr}`);
  return m;
}

const MODES = [
  ["analysis (--no-cache)", ["generate", "--quiet", "--no-cache"]],
  ["unchanged (cache hit)", ["generate", "--quiet"]],
];

console.log(
  `tsop generate, median of ${runs} runs (node ${process.version}; one process per run, startup included)`,
);
console.log("  kinds  mode                       wall ms    cpu ms   cpu ms/kind");
for (const kinds of sizes) {
  const dir = makeTsProject(kinds);
  try {
    for (const [mode, args] of MODES) {
      once(dir, args); // warm-up (file cache; fills the generate cache for the second mode)
      const samples = Array.from({ length: runs }, () => once(dir, args));
      const wall = median(samples.map((s) => s.wall));
      const cpu = median(samples.map((s) => s.cpu));
      console.log(
        `  ${String(kinds).padStart(5)}  ${mode.padEnd(24)} ${wall.toFixed(0).padStart(8)}  ${cpu.toFixed(0).padStart(8)}   ${(cpu / kinds).toFixed(1).padStart(11)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
