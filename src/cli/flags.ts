// Flags shared by several commands, defined once: kubectl-style cluster flags, registry access,
// Go durations, and the one fix for options a parent command shares with its subcommands.
import { resolve } from "node:path";
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

export interface RegistryFlags {
  registryConfig?: string;
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string;
  caFile?: string;
  /** operator-sdk's spellings of --skip-tls-verify and --plain-http (see addRegistryFlags). */
  skipTls?: boolean;
  useHttp?: boolean;
}

export interface RegistryFlagsSetup {
  /** Which registry access the flags are for, added to their help (default: all the command does). */
  scope?: string;
  /** --ca-file: only where the domain function takes extra CA certificates (default true). */
  caFile?: boolean;
  /** operator-sdk's hidden spellings --skip-tls and --use-http (`run bundle`, `run bundle-upgrade`). */
  operatorSdkNames?: boolean;
}

/** The registry access flags of every command that pulls or pushes images. */
export function addRegistryFlags(command: Command, setup: RegistryFlagsSetup = {}): Command {
  const scope = setup.scope ? `; ${setup.scope}` : "";
  const alias = (name: string) => (setup.operatorSdkNames ? ` (operator-sdk: ${name})` : "");
  command
    .option(
      "--registry-config <file>",
      `registry auth file (default: $REGISTRY_AUTH_FILE, podman, docker)${scope}`,
    )
    .option(
      "--skip-tls-verify",
      `do not verify registry TLS certificates (insecure)${scope}${alias("--skip-tls")}`,
    )
    .option(
      "--plain-http [registries]",
      `use plain HTTP: for every registry, or only the comma-separated host[:port] list${scope}${alias("--use-http")}`,
    );
  if (setup.caFile !== false)
    command.option("--ca-file <pem>", `extra CA certificates to trust (also: SSL_CERT_FILE)${scope}`);
  command.addHelpText(
    "after",
    "\nRegistry mirrors: TSOP_REGISTRY_MIRRORS=<source>=<mirror>[,…] reads images under <source> (a\n" +
      "registry or registry/repository prefix) from <mirror> first, then from <source>, keeping their names\n" +
      "(e.g. docker.io=registry.internal:5000/docker.io; `npm run cluster` prints its own). Pushes never\n" +
      "go to a mirror. See docs/images.md.",
  );
  if (setup.operatorSdkNames) {
    command
      .addOption(new Option("--skip-tls", "operator-sdk's name for --skip-tls-verify").hideHelp())
      .addOption(new Option("--use-http", "operator-sdk's name for --plain-http").hideHelp());
  }
  return command;
}

/** The registry flags as the domain functions take them: paths from cwd, --plain-http's list split. */
export function registryOptions(flags: RegistryFlags, cwd: string) {
  const skipTlsVerify = flags.skipTlsVerify ?? flags.skipTls;
  const plainHttp =
    typeof flags.plainHttp === "string"
      ? flags.plainHttp
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : (flags.plainHttp ?? flags.useHttp);
  return {
    ...(flags.registryConfig ? { registryConfig: resolve(cwd, flags.registryConfig) } : {}),
    ...(skipTlsVerify ? { skipTlsVerify: true } : {}),
    ...(plainHttp ? { plainHttp } : {}),
    ...(flags.caFile ? { caFile: resolve(cwd, flags.caFile) } : {}),
  };
}

/**
 * commander lets a parent command with options of its own (`bundle`: -o, --registry-config, ...)
 * claim them wherever they appear on the line, also after a subcommand's name; before a
 * subcommand's action runs, hand the values the parent took back to it.
 */
export function reclaimSharedOptions(parent: Command): void {
  for (const sub of parent.commands) {
    sub.hook("preAction", (_hooked, action) => {
      for (const option of action.options) {
        const key = option.attributeName();
        if (parent.getOptionValueSource(key) === "cli" && action.getOptionValueSource(key) !== "cli")
          action.setOptionValueWithSource(key, parent.getOptionValue(key), "cli");
      }
    });
  }
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
