// `tsop cleanup <package>`: flags → options → src/olm/run (imported lazily) → table of what was deleted.
import { Argument, Command, InvalidArgumentError, Option } from "./commander.js";
import { checkDnsSubdomain } from "../project/names.js";
import { cliContext } from "./context.js";
import { addClusterFlags, type ClusterFlags, clusterOptions, timeoutOption } from "./flags.js";
import { formatTable, renderData } from "./output.js";

interface CleanupFlags extends ClusterFlags {
  timeout: number;
  deleteCrds?: boolean;
  /** operator-sdk's spelling: everything tsop and OLM created, CRDs included. */
  deleteAll?: boolean;
  dryRun?: boolean;
  output: "table" | "json" | "yaml";
  olm?: "v0" | "v1";
}

/**
 * OLM package names are DNS-1123 subdomains. Checked before any cluster is contacted, and so that
 * the label selector is exact: "memop)" must not become the label value "memop".
 */
function packageName(value: string): string {
  const problem = checkDnsSubdomain("package name", value);
  if (problem)
    throw new InvalidArgumentError(`${problem}; give the package name as \`tsop run bundle\` printed it.`);
  return value;
}

export function cleanupCommand(): Command {
  const command = new Command("cleanup")
    .description("remove an operator that `tsop run bundle` installed, and everything tsop created for it")
    .addArgument(new Argument("<package>", "OLM package name of the operator").argParser(packageName))
    .option(
      "--delete-crds",
      "also delete the CRDs the operator owns, and with them every custom resource (never CRDs it only requires); operator-sdk: --delete-all",
    )
    .addOption(new Option("--delete-all", "operator-sdk's name for --delete-crds").hideHelp())
    .option("--dry-run", "list what would be deleted and change nothing")
    .addOption(
      new Option(
        "--olm <version>",
        "what `tsop run bundle --olm` installed through (default: v1 when only OLM v1's APIs are served, else v0)",
      ).choices(["v0", "v1"]),
    )
    .addOption(timeoutOption("5m", "how long to wait for the deletions"))
    .addOption(
      new Option("-o, --output <format>", "output format")
        .choices(["table", "json", "yaml"])
        .default("table"),
    );
  addClusterFlags(command);
  command.action(async (pkg: string, flags: CleanupFlags, cmd: Command) => {
    const ctx = await cliContext(cmd);
    const { withInterrupt } = await import("../common/interrupt.js");
    const interrupt = { rollback: "stopping the cleanup (run it again to finish)" };
    const { chooseOlm } = await import("../olm/run/v1/index.js");
    const v1 = (await chooseOlm({ ...clusterOptions(flags, ctx), olm: flags.olm })) === "v1";
    if (v1 && flags.deleteCrds !== undefined) {
      const { UsageError } = await import("../common/errors.js");
      throw new UsageError(
        "--delete-crds applies to OLM v0 only: OLM v1 removes what it installed, CRDs included, with the ClusterExtension",
      );
    }
    const { cleanup } = await import("../olm/run/index.js");
    type Result = Awaited<ReturnType<typeof cleanup>> | import("../olm/run/v1/index.js").CleanupV1Result;
    const run = withInterrupt(interrupt, async (signal): Promise<Result> =>
      v1
        ? (await import("../olm/run/v1/index.js")).cleanupV1({
            ...clusterOptions(flags, ctx),
            packageName: pkg,
            timeoutMs: flags.timeout,
            dryRun: flags.dryRun,
            signal,
          })
        : cleanup({
            ...clusterOptions(flags, ctx),
            packageName: pkg,
            timeoutMs: flags.timeout,
            deleteCrds: flags.deleteCrds ?? flags.deleteAll,
            dryRun: flags.dryRun,
            signal,
          }),
    );
    // With -o json|yaml a script always gets a result on stdout, also when the cleanup fails.
    const result = await run.catch(async (error: unknown) => {
      if (flags.output !== "table") {
        const { ExitCode } = await import("../common/errors.js");
        const failed = {
          packageName: pkg,
          ...(flags.namespace ? { namespace: flags.namespace } : {}),
          failed: true,
          error: (error as Error).message,
          exitCode: (error as { exitCode?: number }).exitCode ?? ExitCode.failure,
        };
        ctx.out(await renderData(failed, flags.output));
      }
      throw error;
    });
    if (flags.output !== "table") return ctx.out(await renderData(result, flags.output));
    if (result.items.length === 0) return;
    ctx.out(
      formatTable(
        ["KIND", "NAMESPACE", "NAME", "ACTION"],
        result.items.map((i) => [
          i.kind,
          i.namespace ?? "",
          i.name,
          i.reason ? `${i.action} (${i.reason})` : i.action,
        ]),
      ),
    );
  });
  return command;
}
