#!/usr/bin/env -S npx tsx
// Start-up side by side: `tsop --help` against `operator-sdk --help` (the rig's v1.42.2, a static Go
// binary) and a bare `node -e 0` (the floor of any Node CLI). Runs are interleaved, one process per
// run, stdout checked. BENCH_RUNS (default 20). Run: npm run bench:vs-help
import { interleave, main, ok, report, rigBinary, timed, fail } from "./side-by-side.js";
import { TSOP_BIN } from "../test/support/cli.js";

const runs = Number(process.env.BENCH_RUNS ?? 20);

main(async () => {
  const sdk = rigBinary("operator-sdk");
  const samples = await interleave(runs, 2, async () => {
    const node = ok("node -e 0", await timed(process.execPath, ["-e", "0"]));
    const tsop = ok("tsop --help", await timed(process.execPath, [TSOP_BIN, "--help"]));
    const peer = ok("operator-sdk --help", await timed(sdk, ["--help"]));
    if (!tsop.stdout.includes("Usage: tsop")) fail(`tsop --help printed no usage:\n${tsop.stdout}`);
    if (!peer.stdout.includes("operator-sdk [command]"))
      fail(`operator-sdk --help printed no usage:\n${peer.stdout}`);
    return { tsop: tsop.ms, "operator-sdk": peer.ms, "node -e 0": node.ms };
  });
  report({
    benchmark: "start-up: tsop --help vs operator-sdk --help vs node -e 0",
    runs,
    peers: ["operator-sdk", "node -e 0"],
    cases: [{ label: "--help", samples }],
    notes: [],
  });
});
