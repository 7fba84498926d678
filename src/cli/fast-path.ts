// Start-up fast path: `tsop --help`, `tsop --version` and `tsop version` answered without loading
// the CLI (commander, every command module, their imports), so they cost Node's own start and
// little else. bin/tsop.cjs asks here first (this file is bundled as CommonJS, dist/cli/tsop-fast-path.cjs,
// so these answers never set up Node's ES module loader). The help is the text the CLI itself printed
// at build time (scripts/bundle-cli.mjs runs `tsop --help` into dist/cli/help.txt), so it is the same
// bytes; it is used only where commander would print exactly that text: stdout not a terminal, since
// commander wraps help to a terminal's width. Anything else goes to the CLI.
// Stdout is used as a file descriptor: process.stdout and node:tty (streams and net, ~30 modules
// loaded on first use) cost ~3 ms of Node's ~20 ms start.
import { fstatSync, readFileSync, writeSync } from "node:fs";
import { tsopVersion } from "../common/version.js";
import { versionText } from "./version-info.js";

export const HELP_FILE = new URL("./help.txt", import.meta.url);

const STDOUT = 1;

/** Prints the answer and returns true when argv is one of the questions answered here. */
export function answeredWithoutCli(argv: readonly string[]): boolean {
  if (argv.length !== 1) return false;
  const [arg] = argv;
  if (arg === "--version") return print(`${tsopVersion()}\n`);
  if (arg === "version") return print(`${versionText()}\n`);
  if ((arg === "--help" || arg === "-h") && !mayBeTerminal(STDOUT)) {
    const help = builtHelp();
    return help !== undefined && print(help);
  }
  return false;
}

/**
 * Whether commander could wrap the help (stdout a terminal), or stdout cannot be examined. node:tty
 * is asked only about a character device (a terminal, /dev/null): a pipe or a file, the usual
 * non-terminal stdout, then does not load it.
 */
function mayBeTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return true;
  }
  return process.getBuiltinModule("node:tty").isatty(fd);
}

function builtHelp(): string | undefined {
  try {
    return readFileSync(HELP_FILE, "utf8");
  } catch {
    return undefined;
  }
}

function print(text: string): true {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(STDOUT, rest));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A reader that stops early (`tsop --help | head`) closed the pipe: stop quietly, as the CLI does.
    if (code === "EPIPE") return true;
    // A non-blocking stdout that is full: the stream waits for it to drain.
    if (code === "EAGAIN") process.stdout.write(rest);
    else throw error;
  }
  return true;
}
