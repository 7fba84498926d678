// `tsop generate types --from-crd <file> | --from-cluster <crd>`: TypeScript types for any CRD.
// Registered under `generate` (generate.ts adds it); the generator is imported only in the action.
import { Command } from "./commander.js";
import { TsopError } from "../common/errors.js";
import { cliContext } from "./context.js";
import { addClusterFlags, type ClusterFlags, clusterOptions } from "./flags.js";

interface TypesFlags extends ClusterFlags {
  fromCrd?: string[];
  fromCluster?: string[];
  out?: string;
  check?: boolean;
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
    .option("--out <dir>", "where the .ts files go, one per CRD (default: the working directory)")
    .option("--check", "write nothing; exit 1 with a unified diff if the files on disk are out of date");
  addClusterFlags(command, { namespace: false });
  command.action(async (_local: TypesFlags, cmd: Command) => {
    // `generate --check types` as well as `generate types --check`.
    const flags = cmd.optsWithGlobals<TypesFlags>();
    const ctx = await cliContext(cmd);
    const { generateTypes } = await import("../codegen/types-from-crd/index.js");
    const { reporter, ...cluster } = clusterOptions(flags, ctx);
    const result = await generateTypes(
      {
        cwd: ctx.cwd,
        ...(flags.fromCrd === undefined ? {} : { fromCrd: flags.fromCrd }),
        ...(flags.fromCluster === undefined ? {} : { fromCluster: flags.fromCluster }),
        ...(flags.out === undefined ? {} : { out: flags.out }),
        cluster,
        check: flags.check ?? false,
      },
      reporter,
    );
    if (result.changed > 0) {
      ctx.out(result.drift);
      throw new TsopError(`${result.changed} generated types file(s) are out of date`, {
        hint: "run the same `tsop generate types` command without --check and commit the result",
      });
    }
  });
  return command;
}
