// `tsop catalog`: file-based catalogs from the project's template (opm's basic or semver template,
// default catalog/template.yaml): add a released bundle, render the FBC (default catalog/configs),
// check its upgrade graph, draw it, and build the catalog image. Domain code: src/catalog.
import { resolve } from "node:path";
import { addRegistryFlags, type RegistryFlags, registryOptions } from "./flags.js";
import { Command } from "./commander.js";
import { cliContext } from "./context.js";
import { failAfterReport, outputOption } from "./output.js";
import { addSignFlags, prepareSigning, type SignFlags } from "./sign-flags.js";

const TEMPLATE = "catalog/template.yaml";
const CONFIGS = "catalog/configs";

interface TemplateFlags extends RegistryFlags {
  template: string;
}

function templateOption(command: Command): Command {
  return command.option("--template <file>", "the catalog template (opm's basic or semver)", TEMPLATE);
}

function addCommand(): Command {
  const command = new Command("add")
    .description("add a released bundle image to the catalog template (creates it if missing)")
    .argument("<bundle-image>", "the pushed bundle image, e.g. quay.io/me/op-bundle:v0.0.2")
    .option(
      "--channel <name...>",
      "channels to add it to (semver template: candidate, fast or stable); default: the bundle's channels",
    )
    .option("--semver", "create an olm.semver template when there is none (default: olm.template.basic)");
  templateOption(command);
  addRegistryFlags(command, { scope: "for reading the bundle image" });
  return command
    .addHelpText(
      "after",
      "\nBasic template: adds the olm.bundle {image} entry, the olm.package when new, and an entry per\n" +
        "channel that replaces the channel's head (or the CSV's spec.replaces), with the CSV's skips and\n" +
        "olm.skipRange. Semver template: lists the image under the archetype in version order; channels\n" +
        "and edges are generated from versions when rendered.\n\nExamples:\n" +
        "  tsop catalog add quay.io/me/op-bundle:v0.0.2\n" +
        "  tsop catalog add quay.io/me/op-bundle:v1.2.0 --semver --channel stable",
    )
    .action(
      async (
        image: string,
        flags: TemplateFlags & { channel?: string[]; semver?: boolean },
        cmd: Command,
      ) => {
        const ctx = await cliContext(cmd);
        const { addToTemplate, registryBundleReader } = await import("../catalog/index.js");
        const read = registryBundleReader({
          ...registryOptions(flags, ctx.cwd),
          env: ctx.env,
          reporter: ctx.reporter,
        });
        const result = await addToTemplate(resolve(ctx.cwd, flags.template), image, read, {
          ...(flags.channel ? { channels: flags.channel } : {}),
          ...(flags.semver ? { semver: true } : {}),
        });
        if (result.channels.length === 0)
          ctx.reporter.success(`${result.bundle} is already in ${flags.template}`);
        else
          ctx.reporter.success(`Added ${result.bundle} to ${flags.template} (${result.channels.join(", ")})`);
      },
    );
}

function renderCommand(): Command {
  const command = new Command("render")
    .description("render the template into a file-based catalog (<out>/<package>/catalog.yaml)")
    .option("--out <dir>", "where to write the FBC ('-': print the YAML stream instead)", CONFIGS);
  templateOption(command);
  addRegistryFlags(command, { scope: "for reading the bundle images" });
  return command
    .addHelpText(
      "after",
      "\nEvery bundle image the template names is read from its registry and rendered as `opm render`\n" +
        "does (properties, olm.bundle.object, relatedImages); the output equals\n" +
        "`opm alpha render-template basic|semver` and is the same bytes for the same template.",
    )
    .action(async (flags: TemplateFlags & { out: string }, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { renderCatalog } = await import("../catalog/index.js");
      const toStdout = flags.out === "-";
      const result = await renderCatalog({
        template: resolve(ctx.cwd, flags.template),
        ...(toStdout ? {} : { out: resolve(ctx.cwd, flags.out) }),
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      if (toStdout) ctx.out(result.yaml);
      else
        ctx.reporter.success(
          `Rendered ${result.catalog.bundles.length} bundle(s) of ${result.files.length} package(s) into ${flags.out}`,
        );
    });
}

function validateCommand(): Command {
  const command = new Command("validate")
    .description("check the catalog's upgrade graph (ids CAT-01…, docs/catalog.md); exit 1 on errors")
    .argument("[dir]", "the rendered FBC directory", CONFIGS)
    .option("--template <file>", "render this template first and check the result instead of [dir]")
    .option(
      "--previous <dir>",
      "the FBC users have today (e.g. the last release's render): check nobody on it is stranded (CAT-15)",
    )
    .option("--graph", "also print the graph as Mermaid")
    .addOption(outputOption(["text", "json"]));
  addRegistryFlags(command, { scope: "for reading the bundle images (--template)" });
  return command.action(
    async (
      dir: string,
      flags: RegistryFlags & { template?: string; previous?: string; graph?: boolean; output: string },
      cmd: Command,
    ) => {
      const ctx = await cliContext(cmd);
      const { formatFindings, validateCatalog } = await import("../catalog/index.js");
      const result = await validateCatalog(
        flags.template
          ? {
              template: resolve(ctx.cwd, flags.template),
              ...registryOptions(flags, ctx.cwd),
              env: ctx.env,
              reporter: ctx.reporter,
            }
          : { dir: resolve(ctx.cwd, dir) },
        flags.previous ? resolve(ctx.cwd, flags.previous) : undefined,
      );
      if (flags.output === "json")
        ctx.out(
          JSON.stringify(
            { findings: result.findings, ...(flags.graph ? { mermaid: result.mermaid } : {}) },
            null,
            2,
          ),
        );
      else {
        if (result.findings.length > 0) ctx.out(formatFindings(result.findings));
        if (flags.graph) ctx.out(result.mermaid);
        const summary = `${result.errors} error(s), ${result.warnings} warning(s)`;
        if (result.errors > 0) ctx.reporter.error(`The catalog's upgrade graph has problems: ${summary}`);
        else ctx.reporter.success(`The catalog's upgrade graph is sound (${summary})`);
      }
      if (result.errors > 0) failAfterReport();
    },
  );
}

function graphCommand(): Command {
  return new Command("graph")
    .description("print the upgrade graph as Mermaid (as `opm alpha render-graph` does)")
    .argument("[dir]", "the rendered FBC directory", CONFIGS)
    .action(async (dir: string, _flags: unknown, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { catalogMermaid } = await import("../catalog/index.js");
      ctx.out(await catalogMermaid(resolve(ctx.cwd, dir)));
    });
}

interface ImageFlags extends RegistryFlags, SignFlags {
  dir: string;
  base?: string;
  ociLayout?: string;
  sbom: boolean;
  output: "text" | "json";
}

function imageCommand(): Command {
  const command = new Command("image")
    .description("build the catalog image (FBC under /configs on an opm base, reproducible) and push it")
    .argument("<image>", "where to push, e.g. quay.io/me/op-catalog:v0.0.2")
    .option("--dir <dir>", "the rendered FBC directory", CONFIGS)
    .option(
      "--base <ref>",
      "opm base image (default: $TSOP_CATALOG_BASE, else quay.io/operator-framework/opm:v1.47.0, resolved to its digest)",
    )
    .option("--oci-layout <dir>", "write an OCI image layout to <dir> instead of pushing")
    .option(
      "--no-sbom",
      "do not attach the CycloneDX SBOM (its base, its files, the bundle images it lists) to the pushed image",
    );
  addRegistryFlags(command, { scope: "for reading the base and pushing" });
  addSignFlags(command);
  return command
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nOne layer on the base: /configs/<package>/catalog.yaml (sorted, fixed mtimes from\n" +
        "SOURCE_DATE_EPOCH or 0, uid/gid 0); entrypoint `opm serve /configs` (opm builds\n" +
        "its cache when it starts);\n" +
        "label operators.operatorframework.io.index.configs.v1=/configs and the base's digest. The same\n" +
        "catalog and base give the same digest. Prints image@digest.\n\nExamples:\n" +
        "  tsop catalog image quay.io/me/op-catalog:v0.0.2\n" +
        "  tsop catalog image localhost:5000/op-catalog:dev --base localhost:5000/opm:v1.47.0 --plain-http=localhost:5000",
    )
    .action(async (image: string, flags: ImageFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const sign = await prepareSigning(flags, ctx, !flags.ociLayout);
      const { buildCatalogImage } = await import("../catalog/index.js");
      const base = flags.base ?? ctx.env.TSOP_CATALOG_BASE?.trim();
      const result = await buildCatalogImage({
        image,
        dir: resolve(ctx.cwd, flags.dir),
        ...(base ? { base } : {}),
        ...(flags.ociLayout ? { ociLayout: resolve(ctx.cwd, flags.ociLayout) } : {}),
        sbom: flags.sbom,
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      const signed = sign
        ? await sign(image, result.digest, {
            command: "catalogImage",
            externalParameters: { image, dir: flags.dir, ...(base ? { base } : {}) },
            resolvedDependencies: result.resolvedDependencies,
          })
        : undefined;
      const shown = signed ? { ...result, ...signed } : result;
      ctx.out(flags.output === "json" ? JSON.stringify(shown, null, 2) : result.destination);
    });
}

export function catalogCommand(): Command {
  return new Command("catalog")
    .description("file-based catalogs: template → FBC → checked upgrade graph → catalog image")
    .addCommand(addCommand())
    .addCommand(renderCommand())
    .addCommand(validateCommand())
    .addCommand(graphCommand())
    .addCommand(imageCommand())
    .addHelpText(
      "after",
      `\nThe template (default ${TEMPLATE}) is opm's olm.template.basic or olm.semver; the rendered\n` +
        `catalog goes to ${CONFIGS}/<package>/catalog.yaml. docs/catalog.md explains the checks.\n\n` +
        "Workflow:\n  tsop bundle push quay.io/me/op-bundle:v0.0.2\n  tsop catalog add quay.io/me/op-bundle:v0.0.2\n" +
        "  tsop catalog render && tsop catalog validate\n  tsop catalog image quay.io/me/op-catalog:latest",
    );
}
