// `tsop bundle` (an OLM bundle from config/) and `tsop bundle validate [dir|image]`.
// The bundle domain module is imported inside the actions, so `tsop --help` stays fast.
import { Command, InvalidArgumentError, Option } from "./commander.js";
import type { BundleOptions } from "../bundle/types.js";
import { bundlePushCommand } from "./bundle-push.js";
import { type CliContext, cliContext } from "./context.js";
import { addRegistryFlags, reclaimSharedOptions, type RegistryFlags, registryOptions } from "./flags.js";
import { failAfterReport, outputOption } from "./output.js";

interface BundleFlags extends RegistryFlags {
  version?: string;
  channels?: string;
  defaultChannel?: string;
  package?: string;
  image?: string;
  replaces?: string;
  replacesPrevious?: boolean;
  skipRange?: string;
  skips?: string;
  extraServiceAccounts?: string;
  outputDir?: string;
  overwrite?: boolean;
  interactive?: boolean;
  yes?: boolean;
  /** --fbc alone (true) or --fbc <dir>. */
  fbc?: string | true;
  bundleImage?: string;
  file?: string;
  skipGenerate?: boolean;
  useImageDigests?: boolean;
  imagesLock?: string;
  refreshDigests?: boolean;
  features?: string;
  categories?: string;
  loadRestrictor?: "rootOnly" | "none";
  output: "text" | "json";
  dryRun?: boolean;
  [field: string]: unknown;
}

const FIELD_FLAGS: Array<[string, string, string]> = [
  ["displayName", "--display-name <text>", "display name (base CSV spec.displayName)"],
  ["description", "--description <text>", "description (spec.description)"],
  ["providerName", "--provider-name <name>", "provider name (spec.provider.name)"],
  ["providerUrl", "--provider-url <url>", "provider URL (spec.provider.url)"],
  ["keywords", "--keywords <list>", "comma-separated keywords"],
  ["maintainers", "--maintainers <list>", 'comma-separated maintainers: "Name <email>" or "name:email"'],
  [
    "maturity",
    "--maturity <level>",
    "maturity: planning, pre-alpha, alpha, beta, stable, mature, inactive, deprecated",
  ],
  ["capabilities", "--capabilities <level>", 'capability level, e.g. "Basic Install", "Seamless Upgrades"'],
  ["icon", "--icon <file>", "icon file (.png, .svg, .jpg, .gif)"],
  ["links", "--links <list>", 'comma-separated links: "Name=https://..."'],
  ["minKubeVersion", "--min-kube-version <version>", "minimum Kubernetes version, e.g. 1.28.0"],
  [
    "installModes",
    "--install-modes <list>",
    "supported install modes: OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces",
  ],
];

/** A pflag boolean value, as operator-sdk takes them (`--overwrite=false`). */
function operatorSdkBool(value: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new InvalidArgumentError(`"${value}" is not true or false.`);
}

/** kustomize's --load-restrictor values. */
function loadRestrictor(value: string): "rootOnly" | "none" {
  if (value === "LoadRestrictionsRootOnly") return "rootOnly";
  if (value === "LoadRestrictionsNone") return "none";
  throw new InvalidArgumentError("use LoadRestrictionsRootOnly or LoadRestrictionsNone (as kustomize build)");
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
}

function strictSemver(value: string): string {
  if (
    !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(value) ||
    /(^|\.)0\d/.test(value.split(/[-+]/)[0] ?? "")
  ) {
    throw new InvalidArgumentError(`"${value}" is not a semantic version such as 0.0.1 (no leading "v").`);
  }
  return value;
}

/** A Kubernetes version such as 1.29 or v1.29.3. */
function kubernetesVersion(value: string): string {
  if (!/^v?\d+\.\d+(\.\d+)?$/.test(value))
    throw new InvalidArgumentError(`"${value}" is not a Kubernetes version such as 1.29 or 1.29.3.`);
  return value;
}

/** `tsop <args>` as typed, quoted for a POSIX shell where needed. */
function typedCommandLine(): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  return ["tsop", ...process.argv.slice(2).map(quote)].join(" ");
}

async function readStdin(): Promise<string> {
  const { readCapped } = await import("../manifests/documents.js");
  return readCapped(process.stdin as AsyncIterable<Buffer>, "<stdin>");
}

function bundleGenerateCommand(command: Command): Command {
  command
    .description("build an OLM bundle (CSV, CRDs, metadata, scorecard config) from config/ or -f manifests")
    .addOption(
      new Option("--version <semver>", "bundle version, e.g. 0.0.1 (CSV <package>.v<version>)").argParser(
        strictSemver,
      ),
    )
    .option("--channels <list>", "comma-separated channels (default: alpha)")
    .option("--default-channel <name>", "default channel; must be one of --channels")
    .option("--package <name>", "package name (default: PROJECT projectName)")
    .option("--image <ref>", "operator image for the manager container (in memory; no file is changed)")
    .option("--replaces <csv>", "CSV this version replaces, e.g. my-operator.v0.0.1")
    .option("--replaces-previous", "set --replaces from the bundle already in --output-dir")
    .option("--skip-range <range>", "olm.skipRange, e.g. '>=0.1.0 <0.2.0'")
    .option("--skips <list>", "comma-separated CSV names this version skips")
    .option("--extra-service-accounts <list>", "more service accounts whose RBAC goes into the CSV")
    .option("--output-dir <dir>", "bundle directory (default: bundle)")
    .option("--no-overwrite", "keep an existing metadata/annotations.yaml and bundle.Dockerfile")
    // operator-sdk's `generate bundle --overwrite[=true|false]` (true is its default, and tsop's).
    .addOption(new Option("--overwrite [bool]").hideHelp().argParser(operatorSdkBool))
    .option("--interactive", "ask for the base CSV fields again (needs a terminal)")
    .option("-y, --yes", "accept defaults instead of asking")
    .option("-f, --file <file>", "read rendered manifests from a multi-document file, or - for stdin")
    .option("--skip-generate", "do not run `tsop generate` first")
    .option(
      "--dry-run",
      "write nothing; print what would be created, updated or removed (as diffs); `tsop generate` is not run",
    )
    .addOption(
      new Option(
        "--load-restrictor <mode>",
        "as kustomize build: LoadRestrictionsRootOnly (default) refuses files outside a kustomization's directory; LoadRestrictionsNone allows them",
      ).argParser(loadRestrictor),
    )
    .option("--features <list>", "OpenShift features, e.g. disconnected=true,fips-compliant=false")
    .option("--categories <list>", "comma-separated OperatorHub categories")
    .option(
      "--fbc [dir]",
      "also write a file-based catalog fragment to <dir>/<package>/catalog.yaml (default dir: catalog)",
    )
    .option("--bundle-image <ref>", "bundle image for --fbc (default: <image repo>-bundle:v<version>)")
    .option("--use-image-digests", "pin every image in the bundle to its digest (needs registry access)")
    .option("--images-lock <file>", "digest lock file to reuse and update (--use-image-digests)")
    .option("--refresh-digests", "resolve every image again instead of reusing --images-lock entries");
  addRegistryFlags(command);
  for (const [, flag, help] of FIELD_FLAGS) command.option(flag, `base CSV: ${help}`);
  return command
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nThe base CSV (config/manifests/bases/<package>.clusterserviceversion.yaml) is created on the first run\n" +
        "from flags, tsop.bundle.yaml and prompts; afterwards edit it freely.\n\nExamples:\n" +
        "  tsop bundle --version 0.0.1 --image quay.io/me/my-operator:v0.0.1\n" +
        "  kustomize build config/manifests | tsop bundle -f - --version 0.0.2 --replaces-previous\n" +
        "  tsop bundle validate ./bundle --select-optional operatorhub",
    )
    .action(async (flags: BundleFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { bundle } = await import("../bundle/index.js");
      const result = await bundle(await bundleOptions(flags, ctx), ctx.reporter);
      if (flags.output === "json") ctx.out(JSON.stringify(result, null, 2));
    });
}

/** The flags as `bundle()` takes them: lists split, paths as typed (bundle resolves them), I/O attached. */
async function bundleOptions(flags: BundleFlags, ctx: CliContext): Promise<BundleOptions> {
  return {
    cwd: ctx.cwd,
    env: ctx.env,
    version: flags.version,
    channels: list(flags.channels),
    defaultChannel: flags.defaultChannel,
    package: flags.package,
    image: flags.image,
    replaces: flags.replaces,
    replacesPrevious: Boolean(flags.replacesPrevious),
    skipRange: flags.skipRange,
    skips: list(flags.skips),
    extraServiceAccounts: list(flags.extraServiceAccounts),
    outputDir: flags.outputDir,
    overwrite: flags.overwrite !== false,
    features: flags.features,
    categories: list(flags.categories),
    fbc: flags.fbc === true ? "catalog" : flags.fbc,
    bundleImage: flags.bundleImage,
    file: flags.file,
    stdin: flags.file === "-" ? await readStdin() : undefined,
    skipGenerate: Boolean(flags.skipGenerate),
    loadRestrictor: flags.loadRestrictor,
    useImageDigests: Boolean(flags.useImageDigests),
    registry: {
      ...registryOptions(flags, ctx.cwd),
      lockFile: flags.imagesLock,
      refresh: flags.refreshDigests,
    },
    ...(await baseCsvOptions(flags, ctx)),
    ...(await outputOptions(flags, ctx)),
  };
}

/** The base CSV: its fields given as flags, and whether and how to ask for the others. */
async function baseCsvOptions(flags: BundleFlags, ctx: CliContext) {
  const { inquirerPrompter } = await import("../bundle/index.js");
  const fields: Record<string, string> = {};
  for (const [key] of FIELD_FLAGS) if (typeof flags[key] === "string") fields[key] = flags[key];
  return {
    fields,
    interactive: Boolean(flags.interactive),
    yes: Boolean(flags.yes),
    tty: ctx.interactive,
    prompter: inquirerPrompter(),
    commandLine: typedCommandLine(),
  };
}

/** --dry-run: the output set goes to stdout as diffs instead of the disk. */
async function outputOptions(flags: BundleFlags, ctx: CliContext) {
  if (!flags.dryRun) return {};
  const { stdoutSink } = await import("../common/output/sink.js");
  return { sink: stdoutSink((text) => ctx.out(text.trimEnd()), ctx.cwd) };
}

interface ValidateFlags extends RegistryFlags {
  selectOptional?: string[];
  listOptional?: boolean;
  k8sVersion?: string;
  strict?: boolean;
  output: "text" | "json";
}

function validateCommand(): Command {
  const command = new Command("validate");
  addRegistryFlags(command);
  return command
    .description("validate a bundle directory (or a bundle image) against OLM's rules")
    .argument("[dir|image]", "bundle directory or image reference", "bundle")
    .option(
      "--select-optional <suites...>",
      "also run optional suites: operatorhub, capabilities, categories, good-practices, deprecated-apis, community, olm-v1 (or suite=operatorframework)",
    )
    .option("--list-optional", "list the optional suites and their checks")
    .addOption(
      new Option(
        "--k8s-version <version>",
        "Kubernetes version the deprecated-apis suite judges against, e.g. 1.29",
      ).argParser(kubernetesVersion),
    )
    .option("--strict", "fail (exit 1) on warnings too")
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nExit codes: 0 valid (warnings allowed), 1 errors found (or warnings with --strict), 2 usage error.",
    )
    .action(async (target: string, flags: ValidateFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { validateBundle, formatFinding } = await import("../bundle/index.js");
      if (flags.listOptional) {
        const { CHECKS } = await import("../bundle/validate/index.js");
        const rows = CHECKS.filter((c) => c.suite !== "default").map(
          (c) => `${c.suite.padEnd(16)} ${c.id.padEnd(7)} ${c.description}`,
        );
        ctx.out(`SUITE            CHECK   DESCRIPTION\n${rows.join("\n")}`);
        return;
      }
      // Usage errors first (exit 2), before the target is looked at or a registry contacted.
      const { resolveSuites } = await import("../bundle/validate/index.js");
      resolveSuites(flags.selectOptional ?? []);
      const { bundleTarget } = await import("../bundle/load/index.js");
      const source = await bundleTarget(target, ctx.cwd);
      const report = await validateBundle(source, {
        ...(flags.selectOptional ? { selectOptional: flags.selectOptional } : {}),
        ...(flags.k8sVersion ? { k8sVersion: flags.k8sVersion } : {}),
        ...registryOptions(flags, ctx.cwd),
        reporter: ctx.reporter,
        env: ctx.env,
      });
      report.bundle = target;
      const failed = report.errors > 0 || (flags.strict === true && report.warnings > 0);
      if (flags.output === "json") ctx.out(JSON.stringify({ ...report, passed: !failed }, null, 2));
      else {
        for (const f of report.findings) ctx.out(formatFinding(f));
        const summary = `${report.errors} error(s), ${report.warnings} warning(s)`;
        if (failed) ctx.reporter.error(`bundle ${target} is not valid: ${summary}`);
        else ctx.reporter.success(`bundle ${target} is valid${report.warnings > 0 ? ` (${summary})` : ""}`);
      }
      if (failed) failAfterReport();
    });
}

export function bundleCommand(): Command {
  const command = bundleGenerateCommand(new Command("bundle"));
  command.addCommand(validateCommand());
  command.addCommand(bundlePushCommand());
  reclaimSharedOptions(command);
  return command;
}
