#!/usr/bin/env node
// Launcher only: all logic lives in dist/cli/tsop.js (src/cli/main.ts, bundled by scripts/bundle-cli.mjs);
// --help, --version and `version` are answered by dist/cli/tsop-fast-path.cjs (src/cli/fast-path.ts,
// bundled by scripts/bundle-cli.mjs) without loading it. CommonJS, like the fast path: those answers
// then never set up Node's ES module loader (~4 ms of a ~55 ms start); the CLI is an ES module, loaded
// with import().
"use strict";
const { answeredWithoutCli } = require("../dist/cli/tsop-fast-path.cjs");

if (!answeredWithoutCli(process.argv.slice(2))) {
  stopQuietlyOnClosedPipe();
  runCli();
}

/** A reader that stops early (`tsop … | head`) closes the pipe: stop quietly instead of crashing. */
function stopQuietlyOnClosedPipe() {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}

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
