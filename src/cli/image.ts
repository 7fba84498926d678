// `tsop image build`: the operator's own image without a container engine (like ko or jib). The
// image domain module is imported inside the action, so `tsop --help` stays fast.
import { resolve } from "node:path";
import { Command } from "./commander.js";
import { UsageError } from "../common/errors.js";
import { addRegistryFlags, type RegistryFlags, registryOptions } from "./flags.js";
import { cliContext } from "./context.js";
import { outputOption } from "./output.js";
import { addSignFlags, prepareSigning, type SignFlags } from "./sign-flags.js";

interface ImageBuildFlags extends RegistryFlags, SignFlags {
  base?: string;
  push?: string;
  ociLayout?: string;
  platform?: string;
  cache: boolean;
  build: boolean;
  sbom: boolean;
  sbomFile?: string;
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
    .option(
      "--sbom-file <file>",
      "also write the image's CycloneDX SBOM (production npm packages, base digest) here",
    )
    .option(
      "--no-sbom",
      "do not attach the SBOM to the pushed image (sha256-<hex>.sbom and the OCI referrers fallback tag)",
    )
    .option("--no-build", "ship dist/ as it is, even when a source is newer (default: npm run build first)")
    .option(
      "--no-cache",
      "run npm ci even when the dependencies layer of the same inputs is cached in node_modules/.cache/tsop-image",
    );
  addRegistryFlags(command);
  addSignFlags(command);
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
      const sign = await prepareSigning(flags, ctx, Boolean(flags.push));
      const { buildImage } = await import("../operator-image/build.js");
      const result = await buildImage({
        project: resolve(ctx.cwd, flags.dir),
        ...baseOption(flags.base, ctx.env),
        ...(flags.push ? { push: flags.push } : {}),
        ...(flags.ociLayout ? { ociLayout: resolve(ctx.cwd, flags.ociLayout) } : {}),
        ...(flags.platform ? { platforms: flags.platform } : {}),
        cache: flags.cache,
        build: flags.build,
        sbom: flags.sbom,
        ...(flags.sbomFile ? { sbomFile: resolve(ctx.cwd, flags.sbomFile) } : {}),
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      const given = baseOption(flags.base, ctx.env);
      const signed =
        sign && flags.push
          ? await sign(flags.push, result.digest, {
              command: "imageBuild",
              externalParameters: {
                image: flags.push,
                dir: flags.dir,
                ...given,
                ...(flags.platform ? { platforms: flags.platform } : {}),
              },
              resolvedDependencies: result.resolvedDependencies,
            })
          : undefined;
      const shown = signed ? { ...result, ...signed } : result;
      ctx.out(flags.output === "json" ? JSON.stringify(shown, null, 2) : (result.pinned ?? result.digest));
    });
}

// Like ko's KO_DEFAULTBASEIMAGE: a mirror or an air-gapped registry set once per shell or CI job,
// so the commands themselves (and the README's) stay as written. --base wins.
function baseOption(flag: string | undefined, env: NodeJS.ProcessEnv): { base?: string } {
  const base = flag ?? env.TSOP_IMAGE_BASE?.trim();
  return base ? { base } : {};
}

function imageKeygenCommand(): Command {
  return new Command("keygen")
    .description("make an ECDSA P-256 key pair in cosign's formats (<prefix>.key encrypted, <prefix>.pub)")
    .option("--output-key-prefix <prefix>", "file name prefix of the two files", "cosign")
    .addHelpText(
      "after",
      "\nThe password comes from $COSIGN_PASSWORD (may be empty), else it is asked for. cosign reads both\n" +
        "files (cosign sign --key cosign.key, cosign verify --key cosign.pub), and tsop reads cosign's.\n",
    )
    .action(async (flags: { outputKeyPrefix: string }, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { keygen } = await import("../oci/sign/index.js");
      const files = await keygen(resolve(ctx.cwd, flags.outputKeyPrefix), ctx.env);
      ctx.reporter.success(`Private key written to ${files.privateKey}`);
      ctx.reporter.success(`Public key written to ${files.publicKey}`);
    });
}

interface KeyFlags extends RegistryFlags {
  key: string;
  output: "text" | "json";
}

function imageSignCommand(): Command {
  const command = new Command("sign")
    .description("sign an image as cosign does (key-based; stored under the sha256-<hex>.sig tag)")
    .argument("<image>", "the image, by tag (resolved to its digest) or digest")
    .requiredOption("--key <file>", "the private key (tsop image keygen or cosign generate-key-pair)");
  addRegistryFlags(command);
  return command
    .addOption(outputOption(["text", "json"]))
    .addHelpText(
      "after",
      "\nThe password comes from $COSIGN_PASSWORD, else it is asked for. No transparency log entry is made\n" +
        "(cosign: --tlog-upload=false); verify with tsop image verify or cosign verify --insecure-ignore-tlog.\n",
    )
    .action(async (image: string, flags: KeyFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { signReference } = await import("../oci/sign/index.js");
      const result = await signReference(image, resolve(ctx.cwd, flags.key), {
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      ctx.reporter.success(
        `Signed ${result.image} (${result.signatures} signature(s) under ${result.signatureTag})`,
      );
      ctx.out(flags.output === "json" ? JSON.stringify(result, null, 2) : result.image);
    });
}

function imageVerifyCommand(): Command {
  const command = new Command("verify")
    .description(
      "check that an image carries a valid cosign signature made with a key; exit 1 naming why not",
    )
    .argument("<image>", "the image, by tag (resolved to its digest) or digest")
    .requiredOption("--key <file>", "the public key (cosign.pub)");
  addRegistryFlags(command);
  return command
    .addOption(outputOption(["text", "json"]))
    .action(async (image: string, flags: KeyFlags, cmd: Command) => {
      const ctx = await cliContext(cmd);
      const { verifyReference } = await import("../oci/sign/index.js");
      const result = await verifyReference(image, resolve(ctx.cwd, flags.key), {
        ...registryOptions(flags, ctx.cwd),
        env: ctx.env,
        reporter: ctx.reporter,
      });
      ctx.reporter.success(`Verified ${result.image} (${result.verified} valid signature(s))`);
      ctx.out(flags.output === "json" ? JSON.stringify(result, null, 2) : result.image);
    });
}

export function imageCommand(): Command {
  return new Command("image")
    .description("build, sign and verify the operator's image without a container engine")
    .addCommand(imageBuildCommand())
    .addCommand(imageKeygenCommand())
    .addCommand(imageSignCommand())
    .addCommand(imageVerifyCommand());
}
