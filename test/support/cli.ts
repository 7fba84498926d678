// Black-box runs of the built CLI (bin/tsop.cjs → dist/): what a user types, with stdout, stderr
// and the exit code captured. The test command builds dist/ before vitest runs.
import { execa } from "execa";
import { fileURLToPath } from "node:url";

export const TSOP_BIN = fileURLToPath(new URL("../../bin/tsop.cjs", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
}

export async function runTsop(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [TSOP_BIN, ...args], {
    cwd: options.cwd,
    // A clean, predictable environment: no colors unless a test asks, never a CI-driven difference.
    env: { NO_COLOR: "1", FORCE_COLOR: undefined, ...options.env },
    extendEnv: true,
    input: options.input ?? "",
    reject: false,
    timeout: options.timeoutMs ?? 60_000,
    stripFinalNewline: false,
  });
  return {
    stdout: result.stdout as string,
    stderr: result.stderr as string,
    exitCode: result.exitCode ?? -1,
  };
}
