// commander for the CLI modules, which import it from here, never from "commander" directly. In the
// built CLI, commander is bundled into dist/cli/tsop.cjs (scripts/bundle-cli.mjs): imported from the
// unbundled modules, Node would load it as CommonJS and first scan it for named exports, which cost
// ~10 ms of every `tsop` start (bench/startup.js); bundled, it costs neither the scan nor the loads
// of its seven files.
import type { Command } from "commander";

export { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";

/**
 * "Did you mean" for `--flag=value` too: commander compares the whole argument
 * (`--plain-htp=127.0.0.1:5000`) with the known flags, too far from any to suggest one, so its
 * (private) unknownOption gets the flag without the value.
 */
export function suggestForValuedFlags(command: Command): void {
  const own = command as unknown as { unknownOption(flag: string): void };
  const unknownOption = own.unknownOption.bind(command);
  own.unknownOption = (flag) => {
    const equals = flag.indexOf("=");
    unknownOption(flag.startsWith("--") && equals > 0 ? flag.slice(0, equals) : flag);
  };
}
