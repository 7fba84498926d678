// The inner dev loop: `tsop install | uninstall | deploy | undeploy` and `tsop run local`.
// Flags → options → src/devloop (imported lazily) → a table of what changed, or YAML for GitOps.
import { Command, InvalidArgumentError, Option } from "./commander.js";
import { type CliContext, cliContext } from "./context.js";
import {
  addClusterFlags,
  addRegistryFlags,
  type ClusterFlags,
  clusterOptions,
  type RegistryFlags,
  registryOptions,
  timeoutOption,
} from "./flags.js";
import { formatTable, renderData } from "./output.js";

interface Item {
  kind: string;
  namespace?: string;
  name: string;
  action: string;
}

async function printItems(ctx: CliContext, items: Item[], output: "table" | "json" | "yaml"): Promise<void> {
  if (output !== "table") return ctx.out(await renderData({ items }, output));
  if (items.length === 0) return;
  ctx.out(
    formatTable(
      ["KIND", "NAMESPACE", "NAME", "ACTION"],
      items.map((i) => [i.kind, i.namespace ?? "", i.name, i.action]),
    ),
  );
}

/** Ctrl-C stops the command; what was already applied stays (the commands are idempotent). */
const STOP = { rollback: "stopping; what was applied so far stays in the cluster" };

/** install and deploy run `tsop generate` first, as `make install` / `make deploy` run `make manifests`. */
const SKIP_GENERATE = "--skip-generate";
const SKIP_GENERATE_HELP = "do not run `tsop generate` first (use config/ as it is on disk)";

const tableOutput = () =>
  new Option("-o, --output <format>", "output format").choices(["table", "json", "yaml"]).default("table");

export function installCommand(): Command {
  const command = new Command("install")
    .description(
      "install the project's CRDs (config/crd, generated first) with server-side apply and wait until they are established",
    )
    .option(SKIP_GENERATE, SKIP_GENERATE_HELP)
    .addOption(timeoutOption("2m", "how long to wait for the CRDs"))
    .addOption(tableOutput());
  addClusterFlags(command, { namespace: false });
  command.action(
    async (
      flags: ClusterFlags & { skipGenerate?: boolean; timeout: number; output: "table" | "json" | "yaml" },
      cmd: Command,
    ) => {
      const ctx = await cliContext(cmd);
      const { install } = await import("../devloop/index.js");
      const result = await install({
        ...clusterOptions(flags, ctx),
        cwd: ctx.cwd,
        skipGenerate: flags.skipGenerate,
        timeoutMs: flags.timeout,
      });
      const items = result.crds.map((c) => ({
        kind: "CustomResourceDefinition",
        name: c.name,
        action: c.action,
      }));
      await printItems(ctx, items, flags.output);
    },
  );
  return command;
}

export function uninstallCommand(): Command {
  const command = new Command("uninstall")
    .description("delete the project's CRDs; refuses while custom resources exist unless --force")
    .option("--force", "delete the custom resources first (waiting for their finalizers), then the CRDs")
    .addOption(timeoutOption("2m", "how long to wait for the deletions"))
    .addOption(tableOutput());
  addClusterFlags(command, { namespace: false });
  command.action(
    async (
      flags: ClusterFlags & { force?: boolean; timeout: number; output: "table" | "json" | "yaml" },
      cmd: Command,
    ) => {
      const ctx = await cliContext(cmd);
      const { uninstall } = await import("../devloop/index.js");
      const { withInterrupt } = await import("../common/interrupt.js");
      const result = await withInterrupt(STOP, (signal) =>
        uninstall({
          ...clusterOptions(flags, ctx),
          cwd: ctx.cwd,
          force: flags.force,
          timeoutMs: flags.timeout,
          signal,
        }),
      );
      await printItems(ctx, result.items, flags.output);
    },
  );
  return command;
}

interface DeployFlags extends ClusterFlags, RegistryFlags {
  skipImageCheck?: boolean;
  /** A file, or false for --no-verify-key. */
  verifyKey?: string | false;
  image?: string;
  replicas?: number;
  dryRun?: boolean;
  skipGenerate?: boolean;
  timeout: number;
  output: "table" | "json" | "yaml";
}

/** commander argument parser for --replicas: a whole number from 1. */
function replicasArg(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value))
    throw new InvalidArgumentError(
      `"${value}" is not a number of replicas; use 1 or more (tsop undeploy removes it).`,
    );
  return Number(value);
}

export function deployCommand(): Command {
  const command = new Command("deploy")
    .description(
      "deploy the operator in-cluster without OLM: config/default (namespace, RBAC, CRDs, manager) applied",
    )
    .option("--image <image>", "manager image (default: the one config/manager names)")
    .addOption(
      new Option(
        "--replicas <n>",
        "manager replicas (default: config/manager's); more than one needs --leader-elect in its args, and shares the work with --sharding",
      ).argParser(replicasArg),
    )
    .option("--dry-run", "print the objects deploy would apply (with -o yaml|json) and change nothing")
    .option(SKIP_GENERATE, SKIP_GENERATE_HELP)
    .option(
      "--skip-image-check",
      "do not check that the images exist in their registries first (e.g. a registry only the cluster reaches)",
    )
    .option(
      "--verify-key <file>",
      "before applying anything, check that every image deployed carries a valid cosign signature made with this public key (cosign.pub); default: $TSOP_VERIFY_KEY, else PROJECT's plugins.tsop.dev/v1.verify.key",
    )
    .option(
      "--no-verify-key",
      "do not verify signatures although $TSOP_VERIFY_KEY or PROJECT names a key (warned)",
    )
    .addOption(timeoutOption("5m", "how long to wait for the manager Deployment"))
    .addOption(tableOutput());
  addClusterFlags(command);
  addRegistryFlags(command);
  command.action(async (flags: DeployFlags, cmd: Command) => {
    const ctx = await cliContext(cmd);
    const { deploy } = await import("../devloop/index.js");
    const { withInterrupt } = await import("../common/interrupt.js");
    const { resolveVerifyKey } = await import("../oci/sign/policy.js");
    const key = await resolveVerifyKey({
      flag: flags.verifyKey,
      cwd: ctx.cwd,
      env: ctx.env,
      reporter: ctx.reporter,
    });
    const result = await withInterrupt(STOP, (signal) =>
      deploy({
        ...clusterOptions(flags, ctx),
        cwd: ctx.cwd,
        image: flags.image,
        ...(flags.replicas === undefined ? {} : { replicas: flags.replicas }),
        dryRun: flags.dryRun,
        skipGenerate: flags.skipGenerate,
        skipImageCheck: flags.skipImageCheck,
        ...(key ? { verifyKey: key.file, verifyKeyOrigin: key.origin } : {}),
        registry: { ...registryOptions(flags, ctx.cwd), env: ctx.env },
        timeoutMs: flags.timeout,
        signal,
      }),
    );
    if (flags.dryRun) {
      if (flags.output === "json")
        return ctx.out(await renderData({ apiVersion: "v1", kind: "List", items: result.objects }, "json"));
      const docs = await Promise.all(result.objects.map((o) => renderData(o, "yaml")));
      return ctx.out(docs.map((d) => `---\n${d}`).join(""));
    }
    await printItems(ctx, result.items, flags.output);
  });
  return command;
}

export function undeployCommand(): Command {
  const command = new Command("undeploy")
    .description(
      "remove exactly what `tsop deploy` created (found by its label); CRDs only with --delete-crds",
    )
    .option(
      "--delete-crds",
      "also delete the CRDs, after their custom resources (while the operator can still run their finalizers)",
    )
    .addOption(timeoutOption("5m", "how long to wait for the deletions"))
    .addOption(tableOutput());
  addClusterFlags(command, { namespace: false });
  command.action(
    async (
      flags: ClusterFlags & { deleteCrds?: boolean; timeout: number; output: "table" | "json" | "yaml" },
      cmd: Command,
    ) => {
      const ctx = await cliContext(cmd);
      const { undeploy } = await import("../devloop/index.js");
      const { withInterrupt } = await import("../common/interrupt.js");
      const result = await withInterrupt(STOP, (signal) =>
        undeploy({
          ...clusterOptions(flags, ctx),
          cwd: ctx.cwd,
          deleteCrds: flags.deleteCrds,
          timeoutMs: flags.timeout,
          signal,
        }),
      );
      await printItems(ctx, result.items, flags.output);
    },
  );
  return command;
}

interface RunLocalFlags extends ClusterFlags {
  watch?: boolean;
  leaderElect?: boolean;
  entry: string;
  build: boolean;
  install: boolean;
  timeout: number;
}

export function runLocalCommand(): Command {
  const command = new Command("local")
    .description(
      "run the manager on this machine against the cluster: build if stale, install CRDs, config/manager's env; Ctrl-C stops it",
    )
    .argument("[manager-args...]", "flags for the manager, after -- (e.g. -- --metrics-bind-address 0)")
    .option("--watch", "rebuild and restart the manager when a source file changes")
    .option("--leader-elect", "enable leader election (off by default for a local run)")
    .option("--entry <file>", "the compiled entry point", "dist/main.js")
    .option("--no-build", "do not build, even when sources are newer than the entry point")
    .option("--no-install", "do not install the CRDs first")
    .addOption(timeoutOption("2m", "how long to wait for the CRDs to be established"));
  addClusterFlags(command);
  command.action(async (managerArgs: string[], flags: RunLocalFlags, cmd: Command) => {
    const ctx = await cliContext(cmd);
    const { withInterrupt } = await import("../common/interrupt.js");
    const { runLocal } = await import("../devloop/index.js");
    // The first Ctrl-C stops the manager like the kubelet (SIGTERM, grace period); a second one
    // exits at once, and the manager process is killed with tsop.
    const result = await withInterrupt({ rollback: "stopping the manager" }, (signal) =>
      runLocal({
        ...clusterOptions(flags, ctx),
        cwd: ctx.cwd,
        entry: flags.entry,
        watch: flags.watch,
        leaderElect: flags.leaderElect,
        skipBuild: !flags.build,
        skipInstall: !flags.install,
        managerArgs,
        timeoutMs: flags.timeout,
        signal,
      }),
    );
    ctx.reporter.info(
      `manager stopped${result.exit.signal ? ` (${result.exit.signal})` : ` (exit code ${result.exit.code ?? "?"})`}${result.restarts ? ` after ${result.restarts} restart(s)` : ""}`,
    );
  });
  return command;
}
