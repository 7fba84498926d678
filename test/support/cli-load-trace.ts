// Whether a tsop process loaded the full CLI (dist/cli/tsop.cjs) or answered from the launcher's
// start-up fast path, and which text of the TypeScript compiler it compiled: a preload, given
// through NODE_OPTIONS, writes a line to stderr when either file is read (src/cli/load-cli.ts and
// src/codegen/cache/code-cache.ts read them to compile them with V8's code cache).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const tracer = join(mkdtempSync(join(tmpdir(), "tsop-cli-trace-")), "trace.cjs");
writeFileSync(
  tracer,
  `const fs = require("node:fs");
const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (typeof path === "string" && /[\\\\/]dist[\\\\/]cli[\\\\/]tsop\\.cjs$/.test(path)) {
    fs.writeSync(2, "tsop-trace: CLI loaded from " + path + "\\n");
  }
  if (typeof path === "string" && /[\\\\/](typescript\\.js|typescript-[^\\\\/]*\\.min\\.cjs)$/.test(path)) {
    fs.writeSync(2, "tsop-trace: compiler loaded from " + path + "\\n");
  }
  return readFileSync.call(this, path, ...rest);
};
`,
);

/** Environment that makes a tsop process say on stderr when it loads the full CLI. */
export const CLI_LOAD_TRACE_ENV = { NODE_OPTIONS: `--require ${tracer}` };

/** Whether the stderr of a process run with CLI_LOAD_TRACE_ENV shows the full CLI loaded (from `where`). */
export function cliLoaded(stderr: string, where = /\/dist\/cli\/tsop\.cjs/): boolean {
  return stderr
    .split("\n")
    .some((line) => line.startsWith("tsop-trace: CLI loaded from ") && where.test(line));
}

/** The files of the TypeScript compiler a process run with CLI_LOAD_TRACE_ENV read to compile it. */
export function compilerFiles(stderr: string): string[] {
  const prefix = "tsop-trace: compiler loaded from ";
  return stderr
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}
