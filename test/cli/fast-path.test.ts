// The start-up fast path (src/cli/fast-path.ts): `tsop --help`, `-h`, `--version` and `version`
// print what the full CLI prints, without loading it (dist/cli/tsop.cjs, which a preload sees read:
// test/support/cli-load-trace.ts).
import { spawn } from "node:child_process";
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, runTsop, TSOP_BIN } from "../support/cli.js";
import { CLI_LOAD_TRACE_ENV, cliLoaded } from "../support/cli-load-trace.js";
import { runOnTerminal } from "../support/pty.js";
import { testdir } from "../support/testdir.js";

async function tsop(args: string[]) {
  const run = await runTsop(args, { env: CLI_LOAD_TRACE_ENV });
  expect(run.exitCode, run.stderr).toBe(0);
  return { stdout: run.stdout, cliLoaded: cliLoaded(run.stderr) };
}

describe("start-up fast path", () => {
  it("--help and -h print the CLI's own help without loading the CLI", async () => {
    // `tsop help` is commander's help command: the full CLI, the same text.
    const full = await tsop(["help"]);
    expect(full.cliLoaded).toBe(true);
    expect(full.stdout).toContain("Usage: tsop");
    for (const flag of ["--help", "-h"]) {
      const fast = await tsop([flag]);
      expect(fast.stdout).toBe(full.stdout);
      expect(fast.cliLoaded).toBe(false);
    }
  });

  it("--version and version print what the CLI prints without loading it", async () => {
    const { version } = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, "utf8")) as { version: string };
    const fastFlag = await tsop(["--version"]);
    expect(fastFlag).toEqual({ stdout: `${version}\n`, cliLoaded: false });
    const fullFlag = await tsop(["--version", "--quiet"]);
    expect(fullFlag).toEqual({ stdout: `${version}\n`, cliLoaded: true });

    const fast = await tsop(["version"]);
    const full = await tsop(["version", "-o", "text"]);
    expect(full.cliLoaded).toBe(true);
    expect(fast).toEqual({ stdout: full.stdout, cliLoaded: false });
    expect(fast.stdout).toMatch(new RegExp(`^tsop ${version.replaceAll(".", "\\.")}\nnode v`));
  });
});

describe("where stdout is a character device", () => {
  it("on a terminal the CLI answers --help (commander wraps it to the width); /dev/null gets the fast path", async () => {
    const terminal = runOnTerminal(["--help"], { env: CLI_LOAD_TRACE_ENV });
    expect(await terminal.exited, terminal.output()).toBe(0);
    expect(terminal.output()).toContain("Usage: tsop");
    expect(cliLoaded(terminal.output().replaceAll("\r", ""))).toBe(true);

    const devNull = await execa(process.execPath, [TSOP_BIN, "--help"], {
      stdout: "ignore",
      reject: false,
      env: CLI_LOAD_TRACE_ENV,
    });
    expect(devNull.exitCode, devNull.stderr).toBe(0);
    expect(cliLoaded(devNull.stderr)).toBe(false);
  });
});

describe("a reader that closed the pipe (`tsop … | head`)", () => {
  /** Runs tsop with stdout a pipe nobody reads any more: every write to it fails with EPIPE. */
  async function intoClosedPipe(args: string[]) {
    const fifo = join(await testdir(), "pipe");
    // fd 3 opens the FIFO for reading and writing (so opening fd 4 for writing does not block),
    // then closes: fd 4 is left the write end of a pipe without a reader.
    const script = 'mkfifo "$1"; exec 3<>"$1" 4>"$1"; exec 3<&-; shift; exec "$@" >&4';
    return execa("bash", ["-c", script, "bash", fifo, process.execPath, TSOP_BIN, ...args], {
      reject: false,
      env: { NO_COLOR: "1" },
    });
  }

  it.each([["--help"], ["--version"], ["version"], ["help"]])(
    "tsop %s stops quietly: exit 0, nothing on stderr",
    async (...args) => {
      const run = await intoClosedPipe(args);
      expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    },
  );
});

describe("stdout a full pipe that another writer made non-blocking", () => {
  /**
   * The answer's write fails with EAGAIN: tsop must wait for the reader, not crash. The FIFO's write
   * end is opened non-blocking and filled here, and reaches tsop as fd 3 of bash (Node's spawn makes
   * a child's fds 0-2 blocking again), which makes it tsop's stdout.
   */
  async function intoFullPipe(args: string[]) {
    const fifo = join(await testdir(), "pipe");
    await execa("mkfifo", [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    let filled = 0;
    try {
      for (;;) filled += writeSync(writer, Buffer.alloc(4096, "x"));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe("EAGAIN");
    }
    const script = 'exec "$@" >&3 3>&-';
    const child = spawn("bash", ["-c", script, "bash", process.execPath, TSOP_BIN, ...args], {
      stdio: ["ignore", "ignore", "pipe", writer],
    });
    closeSync(writer);
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // Nothing is read until tsop has ended or had ample time to reach its write.
    await Promise.race([exited, delay(1500)]);
    const chunks: Buffer[] = [];
    const pipe = new Socket({ fd: reader, readable: true, writable: false });
    pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
    const [exitCode] = await Promise.all([exited, new Promise((end) => pipe.on("end", end))]);
    return { exitCode, stderr, stdout: Buffer.concat(chunks).subarray(filled).toString() };
  }

  it.each([["--help"], ["--version"], ["version"]])(
    "tsop %s waits for the reader and prints it all",
    async (...args) => {
      const expected = await runTsop(args);
      expect(await intoFullPipe(args)).toEqual({ exitCode: 0, stderr: "", stdout: expected.stdout });
    },
  );
});
