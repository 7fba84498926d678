// The root of the CLI: builds the commander program from one module per command group and is the
// only place that prints fatal errors and chooses exit codes. Command modules import their domain
// code lazily inside actions, so `tsop --help` loads nothing heavy.
import { Command, CommanderError, suggestForValuedFlags } from "./commander.js";
import { colorEnabled, palette } from "../common/color.js";
import { ExitCode, formatLocation, isTsopError } from "../common/errors.js";
import { writeError } from "../common/output/write-error.js";
import { tsopVersion } from "../common/version.js";
import { bundleCommand } from "./bundle.js";
import { catalogCommand } from "./catalog.js";
import { completionCommand } from "./completion.js";
import { generateCommand } from "./generate.js";
import { helmCommand } from "./helm.js";
import { imageCommand } from "./image.js";
import { createCommand } from "./create.js";
import { initCommand } from "./init.js";
import { olmCommand } from "./olm.js";
import { cleanupCommand } from "./cleanup.js";
import { deployCommand, installCommand, undeployCommand, uninstallCommand } from "./devloop.js";
import { operatorSdkSpelling } from "./operator-sdk.js";
import { runCommand } from "./run.js";
import { testCommand } from "./test.js";
import { versionCommand } from "./version.js";

export function buildProgram({ versionFlag = true }: { versionFlag?: boolean } = {}): Command {
  const program = new Command("tsop").description(
    "Scaffold, generate, bundle and ship Kubernetes operators written in TypeScript",
  );
  if (versionFlag) program.version(tsopVersion(), "--version", "print tsop's version");
  program
    .option("-q, --quiet", "print only data and errors")
    .option("-v, --verbose", "print debug detail on stderr")
    .option("--no-color", "disable colors (also: NO_COLOR=1, TERM=dumb)")
    .showSuggestionAfterError()
    .configureHelp({ sortSubcommands: false })
    .addHelpText(
      "after",
      '\nExit codes: 0 ok, 1 failure, 2 usage error, 3 timed out, 4 OLM cannot install, 130 interrupted, 143 SIGTERM.\nDocs: README.md, section "Command reference".',
    );

  // Command groups, in the order of the operator workflow. A group is added here only once it works.
  program.addCommand(versionCommand());
  program.addCommand(initCommand());
  program.addCommand(createCommand());
  program.addCommand(generateCommand());
  program.addCommand(installCommand());
  program.addCommand(uninstallCommand());
  program.addCommand(olmCommand());
  program.addCommand(imageCommand());
  program.addCommand(bundleCommand());
  program.addCommand(catalogCommand());
  program.addCommand(runCommand());
  program.addCommand(testCommand());
  program.addCommand(deployCommand());
  program.addCommand(helmCommand());
  program.addCommand(undeployCommand());
  program.addCommand(cleanupCommand());
  program.addCommand(completionCommand(() => program));

  applyRecursively(program, (c) => {
    c.exitOverride();
    suggestForValuedFlags(c);
  });
  return program;
}

function applyRecursively(command: Command, fn: (c: Command) => void): void {
  fn(command);
  for (const sub of command.commands) applyRecursively(sub, fn);
}

/** Runs the CLI and returns the exit code; never calls process.exit. */
export async function run(argv: readonly string[]): Promise<number> {
  // `--version` after a subcommand is that command's own flag (`create api --version v1`), as in cobra.
  const firstCommand = argv.findIndex((arg) => !arg.startsWith("-"));
  const program = buildProgram({ versionFlag: firstCommand < 0 || argv.indexOf("--version") < firstCommand });
  try {
    const spelling = operatorSdkSpelling(argv);
    if (spelling instanceof Error) throw spelling;
    if (spelling) process.stderr.write(`${spelling.note}\n`);
    await program.parseAsync(spelling?.argv ?? [...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok;
  } catch (error) {
    return reportError(error);
  }
}

export function reportError(thrown: unknown): number {
  // A file system refusal (read-only, permission, full disk) is the user's to fix, not a tsop bug.
  const path = (thrown as NodeJS.ErrnoException | undefined)?.path;
  const error = typeof path === "string" ? writeError(path, thrown, false) : thrown;
  const c = palette(
    colorEnabled({ isTTY: Boolean(process.stderr.isTTY), noColor: process.argv.includes("--no-color") }),
  );
  if (error instanceof CommanderError) {
    // commander already printed its message; help and --version are not failures.
    if (
      error.code === "commander.helpDisplayed" ||
      error.code === "commander.version" ||
      error.code === "commander.help"
    ) {
      return ExitCode.ok;
    }
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (isTsopError(error)) {
    const where = error.location ? `${formatLocation(error.location)}: ` : "";
    process.stderr.write(`${c.red("error:")} ${where}${error.message}\n`);
    if (error.hint) process.stderr.write(`${c.dim("hint:")} ${error.hint}\n`);
    if (process.argv.includes("--verbose") && error.cause !== undefined) {
      process.stderr.write(`${c.dim(`cause: ${String((error.cause as Error)?.stack ?? error.cause)}`)}\n`);
    }
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `${c.red("error:")} tsop hit an unexpected error. This is a bug in tsop; please report it with the text below.\n` +
      `tsop ${tsopVersion()}, node ${process.version}, ${process.platform}/${process.arch}\n${stack}\n`,
  );
  return ExitCode.failure;
}
