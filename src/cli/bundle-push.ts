// `tsop bundle push <image>`: build the bundle image from a bundle directory without a container
// engine and push it (or write an OCI image layout); prints the manifest digest on stdout.
import { resolve } from "node:path";
import { Command } from "./commander.js";
import { cliContext } from "./context.js";
import { addRegistryFlags, type RegistryFlags, registryOptions } from "./flags.js";
import { outputOption } from "./output.js";
import { addSignFlags, prepareSigning, type SignFlags } from "./sign-flags.js";

interface PushFlags extends RegistryFlags, SignFlags {
  dir: string;
  ociLayout?: string;
  sbom: boolean;
  output: "text" | "json";
}

export function bundlePushCommand(): Command {
  const command = new Command("push")
    .description("build the bundle image (FROM scratch, reproducible) and push it; prints its digest")
    .argument("<image>", "where to push, e.g. quay.io/me/my-operator-bundle:v0.0.1")
    .option("--dir <dir>", "bundle directory holding manifests/, metadata/ and tests/", "bundle")
    .option("--oci-layout <dir>", "write an OCI image layout to <dir> instead of pushing")
    .option(
      "--no-sbom",
      "do not attach the CycloneDX SBOM (its files, the images its CSV names) to the pushed image",
    );
  addRegistryFlags(command);
  addSignFlags(command);
  return command
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nThe image has one layer (/manifests, /metadata, /tests; fixed mtimes from SOURCE_DATE_EPOCH or 0,\n" +
        "uid/gid 0, sorted entries) and the labels of metadata/annotations.yaml: the same bundle gives the\n" +
        "same digest.\n\nExamples:\n" +
        "  tsop bundle push quay.io/me/my-operator-bundle:v0.0.1\n" +
        "  tsop bundle push localhost:5000/my-operator-bundle:v0.0.1 --plain-http=localhost:5000\n" +
        "  tsop bundle push my-operator-bundle:v0.0.1 --oci-layout ./bundle-oci",
    )
    .action(async (image: string, flags: PushFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const sign = await prepareSigning(flags, ctx, !flags.ociLayout);
      const { pushBundle } = await import("../oci/index.js");
      const result = await pushBundle(image, {
        dir: resolve(ctx.cwd, flags.dir),
        ...(flags.ociLayout ? { ociLayout: resolve(ctx.cwd, flags.ociLayout) } : {}),
        sbom: flags.sbom,
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      const signed = sign
        ? await sign(image, result.digest, {
            command: "bundlePush",
            externalParameters: { image, dir: flags.dir },
            resolvedDependencies: result.resolvedDependencies,
          })
        : undefined;
      const shown = signed ? { ...result, ...signed } : result;
      ctx.out(flags.output === "json" ? JSON.stringify(shown, null, 2) : result.digest);
    });
}
