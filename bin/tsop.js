#!/usr/bin/env node
// Launcher only: all logic lives in dist/cli/tsop.js (src/cli/main.ts, bundled by scripts/bundle-cli.mjs);
// --help, --version and `version` are answered by dist/cli/tsop-fast-path.js (src/cli/fast-path.ts,
// bundled by scripts/bundle-cli.mjs) without loading it.
import { answeredWithoutCli } from "../dist/cli/tsop-fast-path.js";

// A reader that stops early (`tsop … | head`) closes the pipe: stop quietly instead of crashing.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

if (!answeredWithoutCli(process.argv.slice(2))) await runCli();

async function runCli() {
  const { run } = await import("../dist/cli/tsop.js");
  const code = await run(process.argv.slice(2));
  process.exitCode = code;
  // The command has finished: exit once stdout and stderr are flushed instead of waiting for idle
  // keep-alive sockets and timers to drain (that wait cost ~200 ms after `run bundle` saw its CSV
  // succeed).
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", done))),
  );
  process.exit(code);
}
