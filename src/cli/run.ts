// `tsop run bundle | bundle-upgrade`: flags → options → src/olm/run (imported lazily) → output.
// Ctrl-C or SIGTERM aborts the run (withInterrupt), so tsop removes what it created before exiting.
import { Command, Option } from "./commander.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../common/pins.js";
import { parseDuration } from "../common/duration.js";
import { type CliContext, cliContext } from "./context.js";
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
import { renderData } from "./output.js";
import { runLocalCommand } from "./devloop.js";

type Output = "text" | "json" | "yaml";

interface SharedFlags extends ClusterFlags, RegistryFlags {
  timeout: number;
  pullSecretName?: string;
  serviceAccount?: string;
  initImage: string;
  securityContextConfig: "restricted" | "legacy";
  csvFailedGrace: number;
  output: Output;
  olm?: "v0" | "v1";
  catalogImage?: string;
  caFile?: string;
  /** A file, or false for --no-verify-key. */
  verifyKey?: string | false;
}

interface BundleFlags extends SharedFlags {
  createNamespace?: boolean;
  installMode?: string;
  indexImage: string;
  dryRun?: boolean;
  keepOnFailure?: boolean;
}

interface UpgradeFlags extends SharedFlags {
  rollbackOnFailure?: boolean;
  dryRun?: boolean;
}

function sharedFlags(command: Command): Command {
  addClusterFlags(command);
  addRegistryFlags(command, {
    scope: "tsop's own pull (and the OLM v1 catalog image's push), not the cluster's",
    operatorSdkNames: true,
  });
  return command
    .option(
      "--verify-key <file>",
      "before creating anything, check that the bundle image and every image its CSV names carry a valid cosign signature made with this public key (cosign.pub); default: $TSOP_VERIFY_KEY, else PROJECT's plugins.tsop.dev/v1.verify.key",
    )
    .option(
      "--no-verify-key",
      "do not verify signatures although $TSOP_VERIFY_KEY or PROJECT names a key (warned)",
    )
    .addOption(timeoutOption("10m", "how long the whole run may take"))
    .option(
      "--pull-secret-name <name>",
      "secret in the namespace OLM uses to pull the bundle image (and the registry pod its images)",
    )
    .option(
      "--service-account <name>",
      "service account of the registry pod (default: the namespace's default)",
    )
    .option(
      "--init-image <image>",
      "image of the init container that unpacks the catalog (needs sh and gzip)",
      CATALOG_INIT_IMAGE,
    )
    .addOption(
      new Option(
        "--security-context-config <config>",
        'security context of the registry pod: restricted passes Pod Security "restricted"',
      )
        .choices(["restricted", "legacy"])
        .default("restricted"),
    )
    .addOption(
      new Option(
        "--csv-failed-grace <duration>",
        "how long a CSV may stay Failed while OLM retries it (Go duration)",
      )
        .argParser(durationArg)
        .default(parseDuration("1m"), "1m"),
    )
    .addOption(
      new Option(
        "--olm <version>",
        "which OLM installs the bundle (default: v1 when only OLM v1's ClusterExtension/ClusterCatalog are served, else v0)",
      ).choices(["v0", "v1"]),
    )
    .option(
      "--catalog-image <image>",
      "OLM v1: where to push the catalog image (default: <bundle-repository>-catalog:<bundle tag>)",
    );
}

/** OLM v0's flags, refused with --olm v1 when given on the command line (v1 has no such knob). */
const V0_ONLY = [
  "installMode",
  "indexImage",
  "initImage",
  "pullSecretName",
  "serviceAccount",
  "securityContextConfig",
  "csvFailedGrace",
];

async function refuseV0Flags(command: Command): Promise<void> {
  const given = command.options.filter(
    (o) => V0_ONLY.includes(o.attributeName()) && command.getOptionValueSource(o.attributeName()) === "cli",
  );
  if (given.length === 0) return;
  const { UsageError } = await import("../common/errors.js");
  throw new UsageError(`${given.map((o) => o.long).join(", ")} apply to OLM v0 only, not with --olm v1`, {
    hint: "drop them, or use --olm v0",
  });
}

/** --catalog-image names OLM v1's catalog image; OLM v0 serves its catalog from ConfigMaps. */
async function refuseV1Flags(flags: SharedFlags): Promise<void> {
  if (flags.catalogImage === undefined) return;
  const { UsageError } = await import("../common/errors.js");
  throw new UsageError("--catalog-image applies to OLM v1 only (OLM v0 serves the catalog from ConfigMaps)", {
    hint: "drop it, or pass --olm v1",
  });
}

/** --olm, or what the cluster serves (imports the v1 path only when asked). */
async function olmFor(flags: SharedFlags & { dryRun?: boolean }, ctx: CliContext): Promise<"v0" | "v1"> {
  if (flags.olm === "v0" || (!flags.olm && flags.dryRun)) return "v0";
  const { chooseOlm } = await import("../olm/run/v1/index.js");
  return chooseOlm({ ...clusterOptions(flags, ctx), olm: flags.olm, dryRun: flags.dryRun });
}

function v1Options(flags: SharedFlags, ctx: CliContext, signal: AbortSignal) {
  return {
    ...clusterOptions(flags, ctx),
    timeoutMs: flags.timeout,
    ...registryOptions(flags, ctx.cwd),
    catalogImage: flags.catalogImage,
    signal,
  };
}

const RUN_ROLLBACK = {
  rollback: "removing what this run created",
  leftoverHint: "tsop cleanup <package>",
};

function baseOptions(flags: SharedFlags, ctx: CliContext, signal: AbortSignal) {
  return {
    ...clusterOptions(flags, ctx),
    timeoutMs: flags.timeout,
    pullSecretName: flags.pullSecretName,
    serviceAccount: flags.serviceAccount,
    initImage: flags.initImage,
    securityContext: flags.securityContextConfig,
    ...registryOptions(flags, ctx.cwd),
    csvFailedGraceMs: flags.csvFailedGrace,
    signal,
  };
}

/**
 * --verify-key, $TSOP_VERIFY_KEY or PROJECT's verify.key: every image checked before the run creates
 * (or, with --dry-run, plans) anything.
 */
async function verifyBeforeRun(image: string, flags: SharedFlags, ctx: CliContext): Promise<void> {
  const { resolveVerifyKey, verifyBundleImages } = await import("../oci/sign/index.js");
  const key = await resolveVerifyKey({
    flag: flags.verifyKey,
    cwd: ctx.cwd,
    env: ctx.env,
    reporter: ctx.reporter,
  });
  if (!key) return;
  await verifyBundleImages({
    bundleImage: image,
    verifyKey: key.file,
    verifyKeyOrigin: key.origin,
    ...registryOptions(flags, ctx.cwd),
    env: ctx.env,
    reporter: ctx.reporter,
  });
}

export function runCommand(): Command {
  const run = new Command("run").description(
    "run the operator: locally against a cluster (local), or from its bundle image through OLM",
  );

  const bundle = sharedFlags(
    new Command("bundle")
      .description("install an operator from its bundle image through OLM and wait until its CSV succeeds")
      .argument("<bundle-image>", "bundle image reference (as pushed by `tsop bundle push`)"),
  )
    .option("--create-namespace", "create the namespace if it does not exist")
    .option(
      "--install-mode <mode>",
      "AllNamespaces | OwnNamespace | SingleNamespace=<ns> | MultiNamespace=<ns1>,<ns2> (default: from the CSV)",
    )
    .option("--index-image <image>", "image that serves the catalog (opm)", OPM_IMAGE)
    .option("--dry-run", "print every object the run would create and change nothing")
    .option("--keep-on-failure", "leave what this run created in the cluster when it fails (for debugging)")
    .addOption(runOutputOption());
  bundle.action(async (image: string, flags: BundleFlags, command: Command) => {
    await checkImages([
      [image, "<bundle-image>"],
      [flags.indexImage, "--index-image"],
      [flags.initImage, "--init-image"],
      [flags.catalogImage, "--catalog-image"],
    ]);
    const ctx = await cliContext(command);
    await verifyBeforeRun(image, flags, ctx);
    const { withInterrupt } = await import("../common/interrupt.js");
    if ((await olmFor(flags, ctx)) === "v1") {
      await refuseV0Flags(command);
      const { runBundleV1 } = await import("../olm/run/v1/index.js");
      const v1 = await withInterrupt(RUN_ROLLBACK, (signal) =>
        runBundleV1({
          ...v1Options(flags, ctx, signal),
          image,
          createNamespace: flags.createNamespace,
          dryRun: flags.dryRun,
          keepOnFailure: flags.keepOnFailure,
        }),
      );
      return printResult(
        ctx,
        v1,
        flags.output,
        (r) =>
          `${r.csv} installed in namespace ${r.namespace} by OLM v1 (ClusterExtension ${r.clusterExtension}, ClusterCatalog ${r.clusterCatalog}, catalog image ${r.catalogImage})`,
      );
    }
    await refuseV1Flags(flags);
    const { runBundle } = await import("../olm/run/index.js");
    const result = await withInterrupt(RUN_ROLLBACK, (signal) =>
      runBundle({
        ...baseOptions(flags, ctx, signal),
        image,
        createNamespace: flags.createNamespace,
        installMode: flags.installMode,
        indexImage: flags.indexImage,
        dryRun: flags.dryRun,
        keepOnFailure: flags.keepOnFailure,
      }),
    );
    await printResult(
      ctx,
      result,
      flags.output,
      (r) =>
        `${r.csv} installed in namespace ${r.namespace} (CatalogSource ${r.catalogSource}, Subscription ${r.subscription}, InstallPlan ${r.installPlan ?? "-"})`,
    );
  });

  const upgrade = sharedFlags(
    new Command("bundle-upgrade")
      .description("upgrade an operator installed by `tsop run bundle` to a newer bundle image")
      .argument("<bundle-image>", "bundle image of the new version"),
  )
    .option(
      "--rollback-on-failure",
      "if the upgrade fails, point the catalog back to the previous bundle set",
    )
    .option("--dry-run", "print every object the upgrade would create or change; the cluster is only read")
    .addOption(runOutputOption());
  upgrade.action(async (image: string, flags: UpgradeFlags, command: Command) => {
    await checkImages([
      [image, "<bundle-image>"],
      [flags.catalogImage, "--catalog-image"],
    ]);
    const ctx = await cliContext(command);
    await verifyBeforeRun(image, flags, ctx);
    const { withInterrupt } = await import("../common/interrupt.js");
    if ((await olmFor({ ...flags, dryRun: false }, ctx)) === "v1") {
      await refuseV0Flags(command);
      const { bundleUpgradeV1 } = await import("../olm/run/v1/index.js");
      const v1 = await withInterrupt(RUN_ROLLBACK, (signal) =>
        bundleUpgradeV1({
          ...v1Options(flags, ctx, signal),
          image,
          rollbackOnFailure: flags.rollbackOnFailure,
          dryRun: flags.dryRun,
        }),
      );
      return printResult(
        ctx,
        v1,
        flags.output,
        (r) =>
          `${r.packageName} upgraded from ${r.from.csv} to ${r.to.csv} by OLM v1 (catalog image ${r.catalogImage})`,
      );
    }
    await refuseV1Flags(flags);
    const { bundleUpgrade } = await import("../olm/run/index.js");
    const result = await withInterrupt(RUN_ROLLBACK, (signal) =>
      bundleUpgrade({
        ...baseOptions(flags, ctx, signal),
        image,
        rollbackOnFailure: flags.rollbackOnFailure,
        dryRun: flags.dryRun,
      }),
    );
    await printResult(
      ctx,
      result,
      flags.output,
      (r) => `${r.packageName} upgraded from ${r.from.csv} to ${r.to.csv} in namespace ${r.namespace}`,
    );
  });

  return run.addCommand(runLocalCommand()).addCommand(bundle).addCommand(upgrade);
}

function runOutputOption(): Option {
  return new Option("-o, --output <format>", "output format (with --dry-run: the objects as yaml or json)")
    .choices(["text", "yaml", "json"])
    .default("text");
}

/** --dry-run's objects; else the result without them as data (-o json|yaml), or one line of text. */
async function printResult<R extends { dryRun: boolean; objects: unknown[] }>(
  ctx: CliContext,
  result: R,
  output: Output,
  line: (result: R) => string,
): Promise<void> {
  if (result.dryRun) return ctx.out(await renderObjects(result.objects, output));
  const { objects: _objects, ...summary } = result;
  ctx.out(output === "text" ? line(result) : await renderData(summary, output));
}

/** --dry-run output: a v1 List for json, else YAML documents (both `kubectl apply -f -` reads). */
async function renderObjects(objects: unknown[], output: Output): Promise<string> {
  if (output === "json") return renderData({ apiVersion: "v1", kind: "List", items: objects }, "json");
  const docs = await Promise.all(objects.map((o) => renderData(o, "yaml")));
  return docs.map((d) => `---\n${d}`).join("");
}

/** Image references from the command line: a usage error (exit 2) before any cluster or registry. */
async function checkImages(refs: Array<[string | undefined, string]>): Promise<void> {
  const { checkImageReference } = await import("../oci/reference.js");
  for (const [ref, where] of refs) if (ref !== undefined) checkImageReference(ref, where);
}
