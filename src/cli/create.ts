// `tsop create api`: add a kind (API type, controller, sample, test) to the project in the
// current directory.
import { type Command, Command as CommanderCommand, InvalidArgumentError, Option } from "./commander.js";
import type { FileResult } from "../scaffold/index.js";
import { type CliContext, cliContext } from "./context.js";
import { outputOption, renderData } from "./output.js";

function booleanArg(value: string): boolean {
  if (/^(true|yes|1)$/i.test(value)) return true;
  if (/^(false|no|0)$/i.test(value)) return false;
  throw new InvalidArgumentError(`"${value}" is not a boolean; use true or false`);
}

/** `--name [bool]` (default true) that also accepts `--name=false` and `--no-name`. */
function booleanOptions(name: string, description: string): Option[] {
  return [
    new Option(`--${name} [bool]`, `${description}; --${name}=false or --no-${name} turns it off`)
      .argParser(booleanArg)
      .default(true),
    new Option(`--no-${name}`).hideHelp(),
  ];
}

/** The whole result with -o json|yaml; as text, one line per file the command wrote or skipped. */
async function printScaffoldResult(
  ctx: CliContext,
  result: { files: FileResult[] },
  output: "text" | "json" | "yaml",
): Promise<void> {
  if (output !== "text") return ctx.out(await renderData(result, output));
  ctx.out(
    result.files
      .filter((f) => f.status !== "unchanged")
      .map((f) => `${f.status.padEnd(11)} ${f.path}`)
      .join("\n"),
  );
}

interface CreateApiFlags {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  namespaced: boolean;
  resource: boolean;
  controller: boolean;
  force?: boolean;
  output: "text" | "json" | "yaml";
}

export function createApiCommand(): CommanderCommand {
  const command = new CommanderCommand("api")
    .description(
      "add a kind: its API type, a controller with a test, a sample, and the wiring in src/main.ts",
    )
    .requiredOption("--group <group>", "API group without the domain, e.g. cache (a DNS-1123 subdomain)")
    .requiredOption("--version <version>", "API version, e.g. v1alpha1, v1beta2, v1")
    .requiredOption("--kind <kind>", "kind, in PascalCase, e.g. Memcached")
    .option("--plural <plural>", "resource name (default: the lowercased plural of the kind)");
  for (const option of [
    ...booleanOptions("namespaced", "namespaced kind (false: cluster-scoped)"),
    ...booleanOptions("resource", "scaffold the API type"),
    ...booleanOptions("controller", "scaffold the controller"),
  ]) {
    command.addOption(option);
  }
  return command
    .option(
      "--force",
      "overwrite scaffolded files that exist (each reported), also for a kind already in PROJECT",
    )
    .addOption(outputOption(["text", "json", "yaml"]))
    .addHelpText(
      "after",
      "\nExamples:\n  tsop create api --group cache --version v1alpha1 --kind Memcached\n  tsop create api --group infra --version v1 --kind Cluster --namespaced=false",
    )
    .action(async (flags: CreateApiFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { createApi } = await import("../scaffold/index.js");
      const result = await createApi(
        {
          cwd: ctx.cwd,
          group: flags.group,
          version: flags.version,
          kind: flags.kind,
          ...(flags.plural !== undefined ? { plural: flags.plural } : {}),
          namespaced: flags.namespaced,
          resource: flags.resource,
          controller: flags.controller,
          force: flags.force ?? false,
        },
        ctx.reporter,
      );
      await printScaffoldResult(ctx, result, flags.output);
    });
}

interface CreateWebhookFlags {
  group: string;
  version: string;
  kind: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  force?: boolean;
  output: "text" | "json" | "yaml";
}

export function createWebhookCommand(): CommanderCommand {
  return new CommanderCommand("webhook")
    .description(
      "add webhooks for a kind: a handler class beside it, its test, config/webhook, cert-manager wiring for deploy, and the wiring in src/main.ts",
    )
    .requiredOption("--group <group>", "API group without the domain, e.g. cache")
    .requiredOption("--version <version>", "API version of the kind, e.g. v1alpha1")
    .requiredOption("--kind <kind>", "kind, in PascalCase, e.g. Memcached (created with `tsop create api`)")
    .option("--defaulting", "a mutating webhook: default(obj) sets defaults, sent back as a JSON patch")
    .option(
      "--programmatic-validation",
      "a validating webhook: validateCreate/Update/Delete reject (throw) or warn (return strings)",
    )
    .option(
      "--conversion",
      "a conversion webhook: --version becomes the hub every other version of the kind converts through",
    )
    .option(
      "--force",
      "overwrite scaffolded files that exist (each reported), also for webhooks already in PROJECT",
    )
    .addOption(outputOption(["text", "json", "yaml"]))
    .addHelpText(
      "after",
      "\nThen run `tsop generate` to write config/webhook/manifests.yaml.\n\nExamples:\n  tsop create webhook --group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation\n  tsop create webhook --group cache --version v1 --kind Memcached --conversion",
    )
    .action(async (flags: CreateWebhookFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { createWebhook } = await import("../scaffold/index.js");
      const result = await createWebhook(
        {
          cwd: ctx.cwd,
          group: flags.group,
          version: flags.version,
          kind: flags.kind,
          defaulting: flags.defaulting ?? false,
          programmaticValidation: flags.programmaticValidation ?? false,
          conversion: flags.conversion ?? false,
          force: flags.force ?? false,
        },
        ctx.reporter,
      );
      await printScaffoldResult(ctx, result, flags.output);
    });
}

export function createCommand(): CommanderCommand {
  return new CommanderCommand("create")
    .description("add to an existing project")
    .addCommand(createApiCommand())
    .addCommand(createWebhookCommand());
}
