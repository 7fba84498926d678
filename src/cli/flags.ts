// Flags shared by several commands, defined once: kubectl-style cluster flags and Go durations.
import { type Command, InvalidArgumentError, Option } from "./commander.js";
import { parseDuration } from "../common/duration.js";
import type { CliContext } from "./context.js";

export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
}

export function addClusterFlags(command: Command, { namespace = true } = {}): Command {
  command
    .option("--kubeconfig <file>", "path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "kubeconfig context to use");
  if (namespace) command.option("-n, --namespace <name>", "namespace (default: the context's namespace)");
  return command;
}

/**
 * The cluster flags and the terminal, as every cluster command's domain function takes them (see
 * src/kube/connect.ts). Each command adds its own fields, and `cwd` where it reads the project.
 */
export function clusterOptions(flags: ClusterFlags, ctx: CliContext) {
  return {
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    namespace: flags.namespace,
    env: ctx.env,
    interactive: ctx.interactive,
    reporter: ctx.reporter,
  };
}

/** commander argument parser for Go-style durations; the value becomes milliseconds. */
export function durationArg(value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new InvalidArgumentError(
      `"${value}" is not a duration; use a Go-style duration such as 90s, 5m or 1h30m.`,
    );
  }
}

export function timeoutOption(
  defaultValue: string,
  description = "how long to wait before giving up",
): Option {
  return new Option("--timeout <duration>", `${description} (Go duration)`)
    .argParser(durationArg)
    .default(parseDuration(defaultValue), defaultValue);
}
