#!/usr/bin/env -S npx tsx
// Start-up side by side: `tsop --help` against `operator-sdk --help` (the rig's v1.42.2, a static Go
// binary) and a bare `node -e 0` (the floor of any Node CLI). Runs are interleaved, one process per
// run, stdout checked. BENCH_RUNS (default 20). Run: npm run bench:vs-help
// Measured twice: in this environment, and with NODE_EXTRA_CA_CERTS removed from it. Node reads and
// parses that file of extra CA certificates at every start, before any of tsop's code runs (Go's
// operator-sdk ignores the variable), so the second block is the start-up of tsop itself.
import { interleave, main, ok, report, rigBinary, stats, timed, fail } from "./side-by-side.js";
import type { RunSpec } from "./side-by-side.js";
import { TSOP_BIN } from "../test/support/cli.js";

const runs = Number(process.env.BENCH_RUNS ?? 20);
const EXTRA_CA = "NODE_EXTRA_CA_CERTS";
const WITHOUT_EXTRA_CA: RunSpec = { env: { [EXTRA_CA]: undefined } };

main(async () => {
  const sdk = rigBinary("operator-sdk");
  /** One run of each of the three, in `spec`'s environment; keys prefixed with `tag`. */
  const once = async (tag: string, spec: RunSpec = {}) => {
    const node = ok("node -e 0", await timed(process.execPath, ["-e", "0"], spec));
    const tsop = ok("tsop --help", await timed(process.execPath, [TSOP_BIN, "--help"], spec));
    const peer = ok("operator-sdk --help", await timed(sdk, ["--help"], spec));
    if (!tsop.stdout.includes("Usage: tsop")) fail(`tsop --help printed no usage:\n${tsop.stdout}`);
    if (!peer.stdout.includes("operator-sdk [command]"))
      fail(`operator-sdk --help printed no usage:\n${peer.stdout}`);
    return { [`${tag}tsop`]: tsop.ms, [`${tag}operator-sdk`]: peer.ms, [`${tag}node -e 0`]: node.ms };
  };
  const samples = await interleave(runs, 2, async () => ({
    ...(await once("")),
    ...(await once("-", WITHOUT_EXTRA_CA)),
  }));
  const block = (tag: string) => ({
    tsop: samples[`${tag}tsop`]!,
    "operator-sdk": samples[`${tag}operator-sdk`]!,
    "node -e 0": samples[`${tag}node -e 0`]!,
  });
  const asIs = block("");
  const withoutCa = block("-");
  const set = process.env[EXTRA_CA];
  const cost = stats(asIs["node -e 0"]).median - stats(withoutCa["node -e 0"]).median;
  report({
    benchmark: "start-up: tsop --help vs operator-sdk --help vs node -e 0",
    runs,
    peers: ["operator-sdk", "node -e 0"],
    cases: [
      { label: `--help, environment as is (${EXTRA_CA}=${set ?? "(not set)"})`, samples: asIs },
      { label: `--help, ${EXTRA_CA} removed from the environment`, samples: withoutCa },
    ],
    notes: [
      set === undefined
        ? `${EXTRA_CA} is not set here: both blocks run in the same environment`
        : `${EXTRA_CA} costs Node ${cost.toFixed(1)} ms of each start in this run (median of node -e 0 with it` +
          ` minus without); operator-sdk does not read it`,
    ],
  });
});
