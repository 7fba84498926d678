// commander, loaded through require: it is a CommonJS package, and importing it as ESM makes Node
// parse it for named exports first, which cost ~10 ms of every `tsop` start (bench/startup.js).
// CLI modules import commander from here, never from "commander" directly.
import { createRequire } from "node:module";

type CommanderModule = typeof import("commander");
const commander = createRequire(import.meta.url)("commander") as CommanderModule;

export const { Argument, Command, CommanderError, InvalidArgumentError, Option } = commander;
export type Argument = import("commander").Argument;
export type Command = import("commander").Command;
export type CommanderError = import("commander").CommanderError;
export type InvalidArgumentError = import("commander").InvalidArgumentError;
export type Option = import("commander").Option;
