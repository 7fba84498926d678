// In-process runs of the commander program for the wiring tests (argv → the options a mocked
// domain function receives): process.argv as bin/tsop.cjs would see it, stdout captured.
import type { Command } from "../../src/cli/commander.js";

export async function parseInProcess(program: Command, argv: string[]): Promise<string> {
  const processArgv = process.argv;
  process.argv = [process.execPath, "/usr/bin/tsop", ...argv];
  const write = process.stdout.write;
  let stdout = "";
  process.stdout.write = ((chunk: unknown) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(argv, { from: "user" });
  } finally {
    process.stdout.write = write;
    process.argv = processArgv;
  }
  return stdout;
}
