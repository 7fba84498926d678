// Start-up fast path: `tsop --help`, `tsop --version` and `tsop version` answered without loading
// the CLI (commander, every command module, their imports), so they cost Node's own start and
// little else. bin/tsop.js asks here first. The help is the text the CLI itself printed at build
// time (scripts/bundle-cli.mjs runs `tsop --help` into dist/cli/help.txt), so it is the same bytes;
// it is used only where commander would print exactly that text: stdout not a terminal, since
// commander wraps help to a terminal's width. Anything else goes to the CLI.
import { readFileSync } from "node:fs";
import { tsopVersion } from "../common/version.js";
import { versionText } from "./version-info.js";

export const HELP_FILE = new URL("./help.txt", import.meta.url);

/** Prints the answer and returns true when argv is one of the questions answered here. */
export function answeredWithoutCli(argv: readonly string[]): boolean {
  if (argv.length !== 1) return false;
  const [arg] = argv;
  if (arg === "--version") return print(`${tsopVersion()}\n`);
  if (arg === "version") return print(`${versionText()}\n`);
  if ((arg === "--help" || arg === "-h") && !process.stdout.isTTY) {
    const help = builtHelp();
    return help !== undefined && print(help);
  }
  return false;
}

function builtHelp(): string | undefined {
  try {
    return readFileSync(HELP_FILE, "utf8");
  } catch {
    return undefined;
  }
}

function print(text: string): true {
  process.stdout.write(text);
  return true;
}
