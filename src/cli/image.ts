// `tsop image build`: the operator's own image without a container engine (like ko or jib). The
// image domain module is imported inside the action, so `tsop --help` stays fast.
import { resolve } from "node:path";
import { Command } from "./commander.js";
import { UsageError } from "../common/errors.js";
import { addRegistryFlags, type RegistryFlags, registryOptions } from "./flags.js";
import { cliContext } from "./context.js";
import { outputOption } from "./output.js";

interface ImageBuildFlags extends RegistryFlags {
  base?: string;
  push?: string;
  ociLayout?: string;
  platform?: string;
  cache: boolean;
  build: boolean;
  dir: string;
  output: "text" | "json";
}

function imageBuildCommand(): Command {
  const command = new Command("build")
    .description("build the operator image (dist/ + production node_modules on a Node base) and push it")
    .option(
      "--base <ref>",
      "base image with a Node.js 20 runtime (default: $TSOP_IMAGE_BASE, else distroless nodejs20 pinned by digest)",
    )
    .option("--push <ref>", "push to this tag and print the digest-pinned reference")
    .option("--oci-layout <dir>", "write an OCI image layout to <dir> (tag from --push, else latest)")
    .option(
      "--platform <list>",
      "platforms to build from a multi-platform base, e.g. linux/amd64,linux/arm64",
    )
    .option("--dir <dir>", "project directory (package.json, package-lock.json, dist/)", ".")
    .option("--no-build", "ship dist/ as it is, even when a source is newer (default: npm run build first)")
    .option(
      "--no-cache",
      "run npm ci even when the dependencies layer of the same inputs is cached in node_modules/.cache/tsop-image",
    );
  addRegistryFlags(command);
  return command
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nFirst, when dist/main.js is missing or older than a file under src/ (or a tsconfig), the\n" +
        "project's npm run build runs (as tsop run local does; --no-build skips it).\n" +
        "Layers on top of the base: /app/node_modules (npm ci --omit=dev; the layer is cached in\n" +
        "node_modules/.cache/tsop-image and reused while package.json, the lock, .npmrc and vendor/ are\n" +
        "unchanged), then /app/package.json and /app/dist. Entrypoint node dist/main.js in /app, user\n" +
        "65532:65532, NODE_ENV=production, OCI labels (source, revision, version, base digest). Fixed\n" +
        "mtimes (SOURCE_DATE_EPOCH or 0), sorted entries, uid/gid 0: the same inputs give the same digest.\n" +
        "A multi-platform base gives one image per platform and an index; native addons (*.node) are\n" +
        "refused for other architectures than this machine's.\n\nExamples:\n" +
        "  tsop image build --push quay.io/me/my-operator:v0.0.1\n" +
        "  tsop bundle --image $(tsop image build --push quay.io/me/my-operator:v0.0.1 -q) --use-image-digests\n" +
        "  tsop image build --base localhost:5000/node:20 --push localhost:5000/op:dev --plain-http=localhost:5000\n" +
        "  tsop image build --oci-layout ./image-oci",
    )
    .action(async (flags: ImageBuildFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      if (flags.push && flags.ociLayout) {
        throw new UsageError("give either --push <ref> or --oci-layout <dir>, not both");
      }
      const { buildImage } = await import("../operator-image/build.js");
      const result = await buildImage({
        project: resolve(ctx.cwd, flags.dir),
        ...baseOption(flags.base, ctx.env),
        ...(flags.push ? { push: flags.push } : {}),
        ...(flags.ociLayout ? { ociLayout: resolve(ctx.cwd, flags.ociLayout) } : {}),
        ...(flags.platform ? { platforms: flags.platform } : {}),
        cache: flags.cache,
        build: flags.build,
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      ctx.out(flags.output === "json" ? JSON.stringify(result, null, 2) : (result.pinned ?? result.digest));
    });
}

// Like ko's KO_DEFAULTBASEIMAGE: a mirror or an air-gapped registry set once per shell or CI job,
// so the commands themselves (and the README's) stay as written. --base wins.
function baseOption(flag: string | undefined, env: NodeJS.ProcessEnv): { base?: string } {
  const base = flag ?? env.TSOP_IMAGE_BASE?.trim();
  return base ? { base } : {};
}

export function imageCommand(): Command {
  return new Command("image")
    .description("build the operator's image without a container engine")
    .addCommand(imageBuildCommand());
}
