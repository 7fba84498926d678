// The project lock as a user meets it (the built CLI on a project): a live holder makes
// `tsop generate` wait, then fail naming the holder's pid and the lock to remove; a holder that is
// gone (its pid free) or whose pid now belongs to another process (another start time) is taken
// over, and the run leaves no lock behind.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { resource, tsconfig } from "../codegen/support.js";

const CRD = "config/crd/bases/things.tsop.dev_things.yaml";

async function project(): Promise<string> {
  return testdir({
    PROJECT: "domain: tsop.dev\nlayout:\n- tsop.dev/v1\nprojectName: locked\n",
    "tsconfig.json": tsconfig(),
    "api/thing.ts": resource("  size?: string;"),
  });
}

function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

/** A process that lives for the test (a stand-in for another tsop). */
function liveProcess(): number {
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  onTestFinished(() => void child.kill("SIGKILL"));
  return child.pid!;
}

async function holdLock(dir: string, pid: number, start: string): Promise<void> {
  await mkdir(join(dir, ".tsop-lock"));
  const holder = {
    pid,
    hostname: hostname(),
    startTime: start,
    command: "tsop bundle",
    since: "2026-01-01T00:00:00.000Z",
    nonce: "a1b2c3d4e5f6",
  };
  await writeFile(join(dir, ".tsop-lock/1.json"), JSON.stringify(holder));
}

describe("one writer per project", () => {
  test("a live holder: wait, then fail naming it; nothing written", async () => {
    const dir = await project();
    const pid = liveProcess();
    await holdLock(dir, pid, startTime(pid));
    const run = await runTsop(["generate"], { cwd: dir, env: { TSOP_LOCK_TIMEOUT: "1" } });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `waiting for another tsop writing this project (pid ${pid}, \`tsop bundle\``,
    );
    expect(run.stderr).toContain(
      `error: another tsop is writing this project (pid ${pid}, \`tsop bundle\` since 2026-01-01T00:00:00.000Z); waited 1 s`,
    );
    expect(run.stderr).toContain(`if no tsop is running, remove ${join(dir, ".tsop-lock")}`);
    expect(await readdir(dir)).not.toContain("config");
  });

  test("a holder whose pid is gone is taken over", async () => {
    const dir = await project();
    const child = spawn("true");
    const pid = child.pid!;
    await new Promise((resolve) => child.on("close", resolve));
    await holdLock(dir, pid, "12345");
    const run = await runTsop(["generate"], { cwd: dir, env: { TSOP_LOCK_TIMEOUT: "0" } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await readdir(join(dir, "config/crd/bases"))).toEqual([CRD.split("/").pop()]);
    expect(await readdir(dir)).not.toContain(".tsop-lock");
  });

  test("a pid now used by another process (another start time) is taken over", async () => {
    const dir = await project();
    const pid = liveProcess();
    await holdLock(dir, pid, String(Number(startTime(pid)) - 1));
    const run = await runTsop(["generate"], { cwd: dir, env: { TSOP_LOCK_TIMEOUT: "0" } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await readdir(dir)).not.toContain(".tsop-lock");
  });
});
