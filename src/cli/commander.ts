// commander for the CLI modules, which import it from here, never from "commander" directly. In the
// built CLI, commander is bundled into dist/cli/tsop.cjs (scripts/bundle-cli.mjs): imported from the
// unbundled modules, Node would load it as CommonJS and first scan it for named exports, which cost
// ~10 ms of every `tsop` start (bench/startup.js); bundled, it costs neither the scan nor the loads
// of its seven files.
export { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";
