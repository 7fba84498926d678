// `tsop init [dir]`: scaffold a new operator project. Flags first; on a terminal, prompts for a
// missing --domain; without one, exits 2 listing every missing value.
import { type Command, Command as CommanderCommand, Option } from "./commander.js";
import { cliContext } from "./context.js";
import { outputOption, renderData } from "./output.js";

interface InitCliFlags {
  domain?: string;
  projectName?: string;
  owner?: string;
  license: "apache2" | "none";
  repo?: string;
  image?: string;
  skipInstall?: boolean;
  yes?: boolean;
  force?: boolean;
  tsopDependency?: string;
  output: "text" | "json" | "yaml";
}

/** Every command path of the tsop program ("generate", "bundle validate", ...). */
export function commandPaths(command: Command): Set<string> {
  let root = command;
  while (root.parent) root = root.parent;
  const out = new Set<string>();
  const visit = (c: Command, prefix: string) => {
    for (const sub of c.commands) {
      const path = prefix ? `${prefix} ${sub.name()}` : sub.name();
      out.add(path);
      visit(sub, path);
    }
  };
  visit(root, "");
  return out;
}

export function initCommand(): CommanderCommand {
  return new CommanderCommand("init")
    .description("scaffold a new operator project (PROJECT, package.json, src/, config/, Dockerfile)")
    .argument("[dir]", "project directory, created when missing", ".")
    .option(
      "--domain <domain>",
      "domain of the project's API groups, e.g. example.com (required; asked on a terminal)",
    )
    .option("--project-name <name>", "project name, a DNS-1123 label (default: the directory's name)")
    .option("--owner <name>", 'copyright owner in file headers (default: "The <project-name> Authors")')
    .addOption(
      new Option("--license <license>", "license of the scaffolded files")
        .choices(["apache2", "none"])
        .default("apache2"),
    )
    .option("--repo <url>", "source repository URL, recorded in PROJECT and package.json")
    .option("--image <ref>", "operator image (default: <domain>/<project-name>:0.0.1)")
    .option("--skip-install", "do not run `npm install` in the new project")
    .option("-y, --yes", "never prompt: use defaults, and fail listing any missing required value")
    .option(
      "--force",
      "scaffold into a non-empty directory, overwriting files tsop writes (each reported); repairs a project an interrupted or failed init left",
    )
    .addOption(
      new Option(
        "--tsop-dependency <spec>",
        "how package.json depends on tsop, e.g. file:../tsop (default: ^<tsop version> when tsop came from the npm registry, else a tarball of this tsop packed into vendor/)",
      ).env("TSOP_DEPENDENCY"),
    )
    .addOption(outputOption(["text", "json", "yaml"]))
    .addHelpText(
      "after",
      "\nExamples:\n  tsop init memcached-operator --domain example.com\n  tsop init --domain example.com --project-name memcached-operator --skip-install --yes",
    )
    .action(async (dir: string, flags: InitCliFlags, command: Command) => {
      const ctx = await cliContext(command);
      const { init, inquirerPrompter, resolveInitFlags } = await import("../scaffold/index.js");
      const { resolve } = await import("node:path");
      const target = resolve(ctx.cwd, dir);
      const prompter = ctx.interactive && !flags.yes ? await inquirerPrompter() : undefined;
      const values = await resolveInitFlags(
        {
          ...(flags.domain !== undefined ? { domain: flags.domain } : {}),
          ...(flags.projectName !== undefined ? { projectName: flags.projectName } : {}),
        },
        prompter ? { dir: target, prompter } : { dir: target },
      );
      const { withInterrupt } = await import("../common/interrupt.js");
      const interrupt = { rollback: "stopping npm install and removing what this init wrote" };
      const result = await withInterrupt(interrupt, (signal) =>
        init(
          {
            dir: target,
            domain: values.domain,
            ...(values.projectName !== undefined ? { projectName: values.projectName } : {}),
            ...(flags.owner !== undefined ? { owner: flags.owner } : {}),
            license: flags.license,
            ...(flags.repo !== undefined ? { repo: flags.repo } : {}),
            ...(flags.image !== undefined ? { image: flags.image } : {}),
            ...(flags.tsopDependency !== undefined ? { tsopDependency: flags.tsopDependency } : {}),
            force: flags.force ?? false,
            install: !flags.skipInstall,
            commands: commandPaths(command),
            signal,
          },
          ctx.reporter,
        ),
      );
      if (flags.output !== "text") return ctx.out(await renderData(result, flags.output));
      const cd = dir === "." ? "" : `  cd ${/^[\w./-]+$/.test(dir) ? dir : JSON.stringify(dir)}\n`;
      ctx.out(
        [
          `Project ${result.projectName} is ready in ${result.dir}. Next:`,
          `${cd}${result.installed ? "" : "  npm install\n"}  tsop create api --group <group> --version v1alpha1 --kind <Kind>`,
          "  npm run build && npm test",
        ].join("\n"),
      );
    });
}
