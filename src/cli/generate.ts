// `tsop generate [crds|rbac]`: CRDs and RBAC from the project's TypeScript (static analysis).
// The TypeScript compiler is imported only inside the actions, so `tsop --help` stays fast.
import { Command, InvalidArgumentError } from "./commander.js";
import { TsopError } from "../common/errors.js";
import { cliContext } from "./context.js";
import { generateTypesCommand } from "./generate-types.js";

interface GenerateFlags {
  project?: string;
  out?: string;
  crdOut?: string;
  rbacOut?: string;
  webhookOut?: string;
  maxDescLen?: number;
  strict?: boolean;
  check?: boolean;
  dryRun?: boolean;
  deriveRbac?: boolean;
  roleName?: string;
  listMarkers?: boolean;
  cache?: boolean;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`"${value}" is not a non-negative integer.`);
  return n;
}

function commonOptions(command: Command, what: "all" | "crds" | "rbac"): Command {
  command.option(
    "--project <tsconfig>",
    "tsconfig of the project (default: tsconfig.json at the project root)",
  );
  if (what === "all") {
    command.option("--crd-out <dir>", "where CRDs go (default: config/crd/bases)");
    command.option("--rbac-out <dir>", "where role.yaml goes (default: config/rbac)");
    command.option(
      "--webhook-out <dir>",
      "where manifests.yaml of the webhooks goes (default: config/webhook)",
    );
  } else {
    command.option(
      "--out <dir>",
      `output directory (default: ${what === "crds" ? "config/crd/bases" : "config/rbac"})`,
    );
  }
  if (what !== "rbac")
    command.option(
      "--max-desc-len <n>",
      "truncate descriptions to n characters (0 removes them)",
      nonNegativeInt,
    );
  if (what !== "crds") {
    command.option("--role-name <name>", "name of the ClusterRole (and default Role name)", "manager-role");
    command.option(
      "--derive-rbac",
      "also add the rules implied by manager.controller(…).owns(…)/.watches(…) and client calls (without it they are warnings when no @Rbac grants them)",
    );
  }
  return command
    .option("--strict", "treat warnings as errors")
    .option("--check", "write nothing; exit 1 with a unified diff if the files on disk are out of date")
    .option("--dry-run", "write nothing; print what would be created, updated or removed (as diffs)")
    .option("--no-cache", "analyse the sources even if nothing changed since the last run");
}

async function run(what: "all" | "crds" | "rbac", _local: GenerateFlags, command: Command): Promise<void> {
  // Options given before or after the subcommand name (`generate --check crds`, `generate crds --check`).
  const flags = command.optsWithGlobals<GenerateFlags>();
  const ctx = await cliContext(command);
  const { generate, markerReference } = await import("../codegen/index.js");
  const { stdoutSink } = await import("../common/output/sink.js");
  if (flags.listMarkers) {
    ctx.out(markerReference());
    return;
  }
  const result = await generate(
    {
      cwd: ctx.cwd,
      what,
      ...(flags.project === undefined ? {} : { project: flags.project }),
      ...(what === "crds" && flags.out !== undefined ? { crdOut: flags.out } : {}),
      ...(what === "rbac" && flags.out !== undefined ? { rbacOut: flags.out } : {}),
      ...(flags.crdOut === undefined ? {} : { crdOut: flags.crdOut }),
      ...(flags.rbacOut === undefined ? {} : { rbacOut: flags.rbacOut }),
      ...(flags.webhookOut === undefined ? {} : { webhookOut: flags.webhookOut }),
      ...(flags.maxDescLen === undefined ? {} : { maxDescLen: flags.maxDescLen }),
      ...(flags.roleName === undefined ? {} : { roleName: flags.roleName }),
      strict: flags.strict ?? false,
      check: flags.check ?? false,
      deriveRbac: flags.deriveRbac ?? false,
      cache: flags.cache ?? true,
      ...(flags.dryRun ? { sink: stdoutSink((text) => ctx.out(text.trimEnd()), ctx.cwd) } : {}),
    },
    ctx.reporter,
  );
  if (result.drift) {
    ctx.out(result.drift);
    throw new TsopError("generated files are out of date", {
      hint: "run `tsop generate` and commit the result",
    });
  }
}

export function generateCommand(): Command {
  const root = commonOptions(
    new Command("generate").description(
      "generate CRDs and RBAC from the TypeScript API types and @Rbac declarations",
    ),
    "all",
  )
    .option("--list-markers", "print every JSDoc tag and decorator tsop understands, then exit")
    .action((flags: GenerateFlags, command: Command) => run("all", flags, command));
  root.addCommand(
    commonOptions(
      new Command("crds").description("generate only the CustomResourceDefinitions"),
      "crds",
    ).action((flags: GenerateFlags, command: Command) => run("crds", flags, command)),
  );
  root.addCommand(
    commonOptions(new Command("rbac").description("generate only config/rbac/role.yaml"), "rbac").action(
      (flags: GenerateFlags, command: Command) => run("rbac", flags, command),
    ),
  );
  root.addCommand(generateTypesCommand());
  return root;
}
