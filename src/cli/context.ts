// Turns the global flags and the environment into what a command action needs: a reporter for
// progress on stderr and a writer for data on stdout.
import type { Command } from "commander";
import { colorEnabled } from "../common/color.js";
import { preloadSpinners, type Reporter, TerminalReporter } from "../common/reporter.js";

export interface GlobalOptions {
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export interface CliContext {
  reporter: Reporter;
  /** Writes data (the command's result) to stdout. */
  out(text: string): void;
  color: boolean;
  /** Whether stdin and stderr are a terminal a person can answer prompts on. */
  interactive: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export async function cliContext(command: Command): Promise<CliContext> {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const stderrTTY = Boolean(process.stderr.isTTY);
  const color = colorEnabled({ noColor: globals.color === false, isTTY: stderrTTY });
  const quiet = globals.quiet ?? false;
  const spinners = stderrTTY && !quiet && process.env.TERM !== "dumb" && process.env.CI === undefined;
  if (spinners) await preloadSpinners();
  return {
    reporter: new TerminalReporter({ quiet, verbose: globals.verbose ?? false, color, spinners }),
    out: (text) => {
      process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    },
    color,
    interactive: Boolean(process.stdin.isTTY) && stderrTTY && process.env.CI === undefined,
    cwd: process.cwd(),
    env: process.env,
  };
}
