// `tsop generate types --from-crd <file> | --from-cluster <crd>`: TypeScript types for any CRD.
// Registered under `generate` (generate.ts adds it); the generator is imported only in the action.
import { Command } from "./commander.js";
import { cliContext } from "./context.js";
import { addClusterFlags, type ClusterFlags, clusterOptions } from "./flags.js";

interface TypesFlags extends ClusterFlags {
  fromCrd?: string[];
  fromCluster?: string[];
  out?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function generateTypesCommand(): Command {
  const command = new Command("types")
    .description("generate TypeScript types (and a KindRef per version) from a CustomResourceDefinition")
    .option("--from-crd <file>", "a CRD manifest (YAML; repeatable, a file may hold several CRDs)", collect)
    .option(
      "--from-cluster <crd name>",
      "a CRD of the current kubeconfig's cluster, e.g. certificates.cert-manager.io (repeatable)",
      collect,
    )
    .option("--out <dir>", "where the .ts files go, one per CRD (default: the working directory)");
  addClusterFlags(command, { namespace: false });
  command.action(async (flags: TypesFlags, cmd: Command) => {
    const ctx = await cliContext(cmd);
    const { generateTypes } = await import("../codegen/types-from-crd/index.js");
    const { reporter, ...cluster } = clusterOptions(flags, ctx);
    await generateTypes(
      {
        cwd: ctx.cwd,
        ...(flags.fromCrd === undefined ? {} : { fromCrd: flags.fromCrd }),
        ...(flags.fromCluster === undefined ? {} : { fromCluster: flags.fromCluster }),
        ...(flags.out === undefined ? {} : { out: flags.out }),
        cluster,
      },
      reporter,
    );
  });
  return command;
}
