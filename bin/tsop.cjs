#!/usr/bin/env node
// Launcher only: all logic lives in dist/cli/tsop.cjs (src/cli/main.ts, bundled by
// scripts/bundle-cli.mjs). dist/cli/tsop-fast-path.cjs (src/cli/fast-path.ts) answers --help,
// --version and `version` without loading it; otherwise dist/cli/tsop-load-cli.cjs
// (src/cli/load-cli.ts) loads it with V8's code cache. All CommonJS: Node's ES module loader is
// never set up for the CLI itself (~4 ms of a ~55 ms start).
"use strict";
const { answeredWithoutCli } = require("../dist/cli/tsop-fast-path.cjs");

const argv = process.argv.slice(2);
if (!answeredWithoutCli(argv)) {
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
  const { loadCli } = require("../dist/cli/tsop-load-cli.cjs");
  const { cli, saveCodeCache } = loadCli(argv);
  const code = await cli.run(argv);
  process.exitCode = code;
  saveCodeCache(code);
  // The command has finished: exit once stdout and stderr are flushed instead of waiting for idle
  // keep-alive sockets and timers to drain (that wait cost ~200 ms after `run bundle` saw its CSV
  // succeed).
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", done))),
  );
  process.exit(code);
}
