#!/usr/bin/env node
// Launcher only: all logic lives in dist/cli/main.js (built from src/cli/main.ts).
import { run } from "../dist/cli/main.js";

const code = await run(process.argv.slice(2));
// The command has finished: exit once stdout and stderr are flushed instead of waiting for idle
// keep-alive sockets and timers to drain (that wait cost ~200 ms after `run bundle` saw its CSV
// succeed).
await Promise.all(
  [process.stdout, process.stderr].map((stream) => new Promise((done) => stream.write("", done))),
);
process.exit(code);
