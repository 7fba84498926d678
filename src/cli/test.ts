// `tsop test upgrades`: flags → options → src/upgrades (imported lazily) → the report per edge (or
// -o json). Exit 1 when any edge fails (the report says which edge, sample and field); Ctrl-C stops
// the edge under way and removes its install (withInterrupt).
import { resolve } from "node:path";
import { Command, Option } from "./commander.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../common/pins.js";
import { parseDuration } from "../common/duration.js";
import { cliContext } from "./context.js";
import {
  addClusterFlags,
  addRegistryFlags,
  type ClusterFlags,
  clusterOptions,
  durationArg,
  type RegistryFlags,
  registryOptions,
  timeoutOption,
} from "./flags.js";
import { failAfterReport, outputOption, renderData } from "./output.js";

interface UpgradesFlags extends ClusterFlags, RegistryFlags {
  channel?: string;
  from?: string;
  to?: string;
  fixtures: string;
  readyCondition?: string[];
  readyJsonpath?: string;
  timeout: number;
  installMode?: string;
  indexImage: string;
  initImage: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContextConfig: "restricted" | "legacy";
  csvFailedGrace: number;
  output: "text" | "json";
}

function upgradesCommand(): Command {
  const command = new Command("upgrades")
    .description(
      "try every upgrade edge of the catalog on the cluster through OLM: install, samples reconciled, upgrade, check",
    )
    .argument(
      "[catalog]",
      "the rendered FBC directory, or the catalog template to render",
      "catalog/template.yaml",
    )
    .option("--channel <name>", "only the edges of this channel")
    .option("--from <bundle>", "only edges from this bundle (name or version)")
    .option("--to <bundle>", "only edges to this bundle (name or version)")
    .option(
      "--fixtures <dir>",
      "the custom resources to apply (every YAML document but kustomization.yaml)",
      "config/samples",
    )
    .option(
      "--ready-condition <type...>",
      "a sample is reconciled when one of these conditions is True (default: Available, Ready)",
    )
    .option(
      "--ready-jsonpath <expr>",
      "instead of a condition: a jsonpath as kubectl wait --for=jsonpath takes it, e.g. '{.status.phase}=Running'",
    )
    .addOption(timeoutOption("10m", "budget of each step of an edge: install, each wait, upgrade, cleanup"))
    .option(
      "--install-mode <mode>",
      "AllNamespaces | OwnNamespace | SingleNamespace=<ns> | MultiNamespace=<ns1>,<ns2> (default: from the CSV)",
    )
    .option("--index-image <image>", "image that serves the catalog (opm)", OPM_IMAGE)
    .option(
      "--init-image <image>",
      "image of the init container that unpacks the catalog",
      CATALOG_INIT_IMAGE,
    )
    .option("--pull-secret-name <name>", "secret in the namespace OLM uses to pull the bundle images")
    .option("--service-account <name>", "service account of the registry pod")
    .addOption(
      new Option("--security-context-config <config>", "security context of the registry pod")
        .choices(["restricted", "legacy"])
        .default("restricted"),
    )
    .addOption(
      new Option("--csv-failed-grace <duration>", "how long a CSV may stay Failed while OLM retries it")
        .argParser(durationArg)
        .default(parseDuration("1m"), "1m"),
    )
    .addOption(outputOption(["text", "json"]));
  addClusterFlags(command);
  addRegistryFlags(command, { scope: "tsop's own reads of the bundle images" });
  command.addHelpText(
    "after",
    "\nPer edge: run bundle <from> → apply the samples → wait until reconciled → run bundle-upgrade <to> →\n" +
      "check (no sample lost, every field a sample sets still there, every version the old CRD served still\n" +
      "served and returning the samples, each sample reconciled again by the new operator) → cleanup\n" +
      "--delete-crds. Exit 1 if any edge fails. docs/upgrades.md has the details.",
  );
  return command.action(async (catalog: string, flags: UpgradesFlags, cmd: Command) => {
    const ctx = await cliContext(cmd);
    const { parseInstallMode } = await import("../olm/run/install-mode.js");
    if (flags.installMode) parseInstallMode(flags.installMode);
    const upgrades = await import("../upgrades/index.js");
    if (flags.readyJsonpath && flags.readyCondition) {
      const { UsageError } = await import("../common/errors.js");
      throw new UsageError("--ready-condition and --ready-jsonpath exclude each other", {
        hint: "name the conditions, or give one jsonpath",
      });
    }
    const readiness = flags.readyJsonpath
      ? upgrades.parseReadyJsonpath(flags.readyJsonpath)
      : upgrades.conditionReadiness(flags.readyCondition);
    const { withInterrupt } = await import("../common/interrupt.js");
    const result = await withInterrupt(
      {
        rollback: "removing the install of the edge under way",
        leftoverHint: "tsop cleanup <package> --delete-crds",
      },
      (signal) =>
        upgrades.testUpgrades({
          ...clusterOptions(flags, ctx),
          ...registryOptions(flags, ctx.cwd),
          catalog: resolve(ctx.cwd, catalog),
          samplesDir: resolve(ctx.cwd, flags.fixtures),
          filter: { channel: flags.channel, from: flags.from, to: flags.to },
          readiness,
          timeoutMs: flags.timeout,
          installMode: flags.installMode,
          indexImage: flags.indexImage,
          initImage: flags.initImage,
          pullSecretName: flags.pullSecretName,
          serviceAccount: flags.serviceAccount,
          securityContext: flags.securityContextConfig,
          csvFailedGraceMs: flags.csvFailedGrace,
          signal,
        }),
    );
    ctx.out(
      flags.output === "json" ? await renderData(result, "json") : upgrades.formatEdgeReport(result.edges),
    );
    if (!result.ok) failAfterReport();
  });
}

export function testCommand(): Command {
  return new Command("test")
    .description("test the operator on a cluster: every upgrade edge of its catalog")
    .addCommand(upgradesCommand());
}
