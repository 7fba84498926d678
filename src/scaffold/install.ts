// `npm install` in a new project (execa). Output is captured; on failure its tail goes into the
// error so the user sees why without scrolling through a spinner. The lock it leaves must pass
// `npm ci` (the project's Dockerfile and CI run it), so edges npm ci would refuse are dropped.
import { readFile, writeFile } from "../common/fs.js";
import { join } from "node:path";
import { execa } from "execa";
import { describeDangling, dropDanglingOptionals } from "../common/npm-lock.js";
import { TsopError } from "../common/errors.js";
import { interruptedError } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import { messages } from "./messages.js";

function tail(text: string, lines = 20): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Runs `npm install` in dir; aborting `signal` (Ctrl-C) stops npm and throws InterruptedError. */
export async function installDependencies(
  dir: string,
  reporter: Reporter,
  signal?: AbortSignal,
  tsopSpec?: string,
): Promise<void> {
  const progress = reporter.progress(`installing dependencies (npm install in ${dir})`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = await execa(npm, ["install", "--no-audit", "--no-fund"], {
    cwd: dir,
    reject: false,
    all: true,
    stdin: "ignore",
    ...(signal ? { cancelSignal: signal } : {}),
  });
  if (signal?.aborted) {
    progress.fail("npm install interrupted");
    throw interruptedError(signal, `interrupted during npm install in ${dir}`);
  }
  if (result.failed) {
    progress.fail(messages.installFailed(dir));
    const output = typeof result.all === "string" ? tail(result.all) : "";
    // npm's 404 for tsop itself: the registry does not have this tsop (it is not published).
    const tsopMissing = tsopSpec !== undefined && /E404[\s\S]*\btsop@/.test(output);
    throw new TsopError(`${messages.installFailed(dir)}${output ? `:\n${output}` : ""}`, {
      hint: tsopMissing ? messages.tsopNotOnRegistryHint(tsopSpec) : messages.installFailedHint,
      cause: result,
    });
  }
  progress.succeed("installed dependencies");
  await repairLock(dir, reporter);
}

/** Drops optional edges to packages npm install could not get, which npm ci refuses (npm-lock.ts). */
async function repairLock(dir: string, reporter: Reporter): Promise<void> {
  const path = join(dir, "package-lock.json");
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return;
  const { text: repaired, dropped } = dropDanglingOptionals(text);
  if (dropped.length === 0) return;
  await writeFile(path, repaired);
  reporter.warn(messages.lockRepaired(path, dropped.map(describeDangling)));
}
