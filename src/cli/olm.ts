// `tsop olm install | status | uninstall`: flags → options → src/olm (imported lazily) → output.
import { Command } from "./commander.js";
import { OLM_VERSION } from "../common/pins.js";
import { type CliContext, cliContext } from "./context.js";
import { addClusterFlags, type ClusterFlags, clusterOptions, timeoutOption } from "./flags.js";
import { failAfterReport, formatTable, outputOption, renderData } from "./output.js";

interface ManifestFlags {
  version?: string;
  manifests?: string;
  baseUrl?: string;
  cacheDir?: string;
}

interface CommonFlags extends ClusterFlags, ManifestFlags {
  timeout: number;
  output: "table" | "json" | "yaml";
  force?: boolean;
  v1?: boolean;
}

const V1_FLAG = "--v1";
const V1_HELP =
  "OLM v1 (catalogd and operator-controller, shipped with tsop) instead of OLM v0; docs/olm-v1.md";

/** OLM v1 ships one version offline: the release flags have nothing to choose. */
async function refuseReleaseFlags(flags: CommonFlags): Promise<void> {
  const given = (
    [
      ["--version", flags.version],
      ["--manifests", flags.manifests],
      ["--base-url", flags.baseUrl],
      ["--cache-dir", flags.cacheDir],
    ] as const
  ).find(([, value]) => value !== undefined);
  if (!given) return;
  const [{ errorFrom, UsageError }, { v1Messages }] = await Promise.all([
    import("../common/errors.js"),
    import("../olm/v1/messages.js"),
  ]);
  throw errorFrom(v1Messages.flagNotForV1(given[0]), UsageError);
}

function manifestFlags(command: Command, versionHelp: string): Command {
  return command
    .option("--version <version>", versionHelp)
    .option(
      "--manifests <dir|url|files>",
      "read crds.yaml and olm.yaml from this directory or URL, or the objects from YAML files joined by commas, instead of the release (offline use)",
    )
    .option(
      "--base-url <url>",
      "base URL of OLM's releases (default: $TSOP_OLM_RELEASES_URL or https://github.com/operator-framework/operator-lifecycle-manager/releases)",
    )
    .option(
      "--cache-dir <dir>",
      "where downloaded manifests are cached per version (default: $TSOP_CACHE_DIR or ~/.cache/tsop)",
    );
}

function baseOptions(flags: CommonFlags, ctx: CliContext) {
  return {
    ...clusterOptions(flags, ctx),
    cwd: ctx.cwd,
    timeoutMs: flags.timeout,
    version: flags.version,
    manifests: flags.manifests,
    baseUrl: flags.baseUrl,
    cacheDir: flags.cacheDir,
  };
}

interface Row {
  name: string;
  namespace: string;
  kind: string;
  status: string;
}

function table(rows: Row[]): string {
  return formatTable(
    ["NAME", "NAMESPACE", "KIND", "STATUS"],
    rows.map((r) => [r.name, r.namespace, r.kind, r.status]),
  );
}

export function olmCommand(): Command {
  const olm = new Command("olm")
    .description("install, check and remove the Operator Lifecycle Manager (OLM) in a cluster")
    .addHelpText(
      "after",
      `\nOLM v1: each command takes ${V1_FLAG} to act on OLM v1 (catalogd and operator-controller, shipped with tsop, no cert-manager needed) instead of OLM v0:\n  tsop olm install ${V1_FLAG}\n  tsop olm status ${V1_FLAG}\n  tsop olm uninstall ${V1_FLAG}`,
    );

  const install = manifestFlags(
    new Command("install"),
    `OLM release to install, or "latest" (default: ${OLM_VERSION})`,
  )
    .description("install OLM and wait until it is ready")
    .option("--force", "apply over an existing, partial install of the same version (repair)")
    .option(V1_FLAG, V1_HELP)
    .addOption(timeoutOption("5m"))
    .addOption(outputOption(["table", "json", "yaml"]));
  addClusterFlags(install, { namespace: false });
  install.action(async (flags: CommonFlags, command: Command) => {
    const ctx = await cliContext(command);
    const { olmInstall } = await import("../olm/index.js");
    const { withInterrupt } = await import("../common/interrupt.js");
    // Ctrl-C or SIGTERM stops the install and removes what it created; a second one ends tsop at once.
    if (flags.v1) {
      await refuseReleaseFlags(flags);
      const { olmInstallV1 } = await import("../olm/v1/index.js");
      const interruptV1 = {
        rollback: "removing what this install created",
        leftoverHint: "tsop olm uninstall --v1",
      };
      const resultV1 = await withInterrupt(interruptV1, (signal) =>
        olmInstallV1({ ...baseOptions(flags, ctx), force: flags.force, signal }),
      );
      if (flags.output !== "table") return ctx.out(await renderData(resultV1, flags.output));
      return ctx.out(table(resultV1.rows));
    }
    const interrupt = { rollback: "removing what this install created", leftoverHint: "tsop olm uninstall" };
    const result = await withInterrupt(interrupt, (signal) =>
      olmInstall({
        ...baseOptions(flags, ctx),
        // With --manifests and no --version, the version comes from the manifests themselves.
        version: flags.version ?? (flags.manifests ? undefined : OLM_VERSION),
        force: flags.force,
        signal,
      }),
    );
    if (flags.output !== "table") return ctx.out(await renderData(result, flags.output));
    ctx.out(table(result.rows));
  });

  const status = manifestFlags(
    new Command("status"),
    "OLM release whose object list to check (default: the installed one)",
  )
    .description("report the health of each OLM object; exit code 0 only when OLM is healthy")
    .option(V1_FLAG, V1_HELP)
    .addOption(timeoutOption("2m"))
    .addOption(outputOption(["table", "json", "yaml"]));
  addClusterFlags(status, { namespace: false });
  status.action(async (flags: CommonFlags, command: Command) => {
    const ctx = await cliContext(command);
    let result: Awaited<ReturnType<typeof import("../olm/index.js").olmStatus>>;
    if (flags.v1) {
      await refuseReleaseFlags(flags);
      const { olmStatusV1 } = await import("../olm/v1/index.js");
      result = await olmStatusV1(baseOptions(flags, ctx));
    } else {
      const { olmStatus } = await import("../olm/index.js");
      result = await olmStatus(baseOptions(flags, ctx));
    }
    const name = flags.v1 ? "OLM v1" : "OLM";
    if (result.verdict !== "healthy") failAfterReport();
    if (flags.output !== "table") return ctx.out(await renderData(result, flags.output));
    const lines: string[] = [];
    if (result.managedBy) {
      lines.push(
        `OLM is managed by the platform (${result.managedBy.platform}, namespace ${result.managedBy.namespace}).`,
      );
    }
    if (result.verdict === "absent") {
      ctx.out(`${name} is not installed.`);
      return;
    }
    ctx.out(table(result.rows));
    const unhealthy = result.rows.filter((r) => !r.healthy).length;
    lines.push(
      `OLM${result.version ? ` ${result.version}` : ""}: ${result.verdict}${unhealthy ? ` (${unhealthy} of ${result.rows.length} objects not healthy)` : ""}`,
    );
    ctx.out(lines.join("\n"));
  });

  const uninstall = manifestFlags(
    new Command("uninstall"),
    "OLM release to remove (default: the installed one)",
  )
    .description(
      "remove OLM; refuses while operators installed through OLM remain (with --v1: ClusterExtensions or ClusterCatalogs)",
    )
    .option(
      "--force",
      "also delete the operators (CSVs and Subscriptions) that OLM installed; with --v1, the ClusterExtensions and ClusterCatalogs",
    )
    .option(V1_FLAG, V1_HELP)
    .addOption(timeoutOption("5m"))
    .addOption(outputOption(["table", "json", "yaml"]));
  addClusterFlags(uninstall, { namespace: false });
  uninstall.action(async (flags: CommonFlags, command: Command) => {
    const ctx = await cliContext(command);
    let result: Awaited<ReturnType<typeof import("../olm/index.js").olmUninstall>>;
    if (flags.v1) {
      await refuseReleaseFlags(flags);
      const { olmUninstallV1 } = await import("../olm/v1/index.js");
      result = await olmUninstallV1({ ...baseOptions(flags, ctx), force: flags.force });
    } else {
      const { olmUninstall } = await import("../olm/index.js");
      result = await olmUninstall({ ...baseOptions(flags, ctx), force: flags.force });
    }
    if (flags.output !== "table") return ctx.out(await renderData(result, flags.output));
    ctx.out(table(result.deleted.map((d) => ({ ...d, status: "Deleted" }))));
  });

  return olm.addCommand(install).addCommand(status).addCommand(uninstall);
}
