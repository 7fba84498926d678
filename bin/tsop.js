#!/usr/bin/env node
// Launcher only: all logic lives in dist/cli/main.js (built from src/cli/main.ts).
import { run } from "../dist/cli/main.js";

process.exitCode = await run(process.argv.slice(2));
