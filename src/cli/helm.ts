// `tsop helm`: a Helm chart from config/default. Flags → options → src/helm (imported lazily);
// with --check the drift is printed as unified diffs on stdout and the command fails.
import { Command } from "./commander.js";
import { errorFrom } from "../common/errors.js";
import { cliContext } from "./context.js";

interface HelmFlags {
  outputDir?: string;
  image?: string;
  version?: string;
  check?: boolean;
  skipGenerate?: boolean;
}

export function helmCommand(): Command {
  return new Command("helm")
    .description(
      "write a Helm chart of the operator (config/default: manager, RBAC, CRDs, webhooks, metrics)",
    )
    .option("--output-dir <dir>", "where the chart goes (default: chart/ at the project root)")
    .option("--image <ref>", "the image values.yaml defaults to (default: PROJECT's image)")
    .option("--version <semver>", "the chart's version and appVersion (default: package.json's version)")
    .option("--check", "write nothing; exit 1 with a unified diff if the chart on disk is out of date")
    .option("--skip-generate", "do not run `tsop generate` first (use config/ as it is on disk)")
    .action(async (flags: HelmFlags, command: Command) => {
      const ctx = await cliContext(command);
      const { helmChart, helmMessages } = await import("../helm/index.js");
      const result = await helmChart(
        {
          cwd: ctx.cwd,
          ...(flags.outputDir === undefined ? {} : { outputDir: flags.outputDir }),
          ...(flags.image === undefined ? {} : { image: flags.image }),
          ...(flags.version === undefined ? {} : { version: flags.version }),
          check: flags.check ?? false,
          skipGenerate: flags.skipGenerate ?? false,
        },
        ctx.reporter,
      );
      if (result.changed > 0) {
        ctx.out(result.drift);
        throw errorFrom(helmMessages.outOfDate(result.shownDir, result.changed));
      }
    });
}
