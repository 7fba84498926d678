// `--sign --key <file>` of the commands that push an image (`image build --push`, `bundle push`,
// `catalog image`): the key is read (and its password asked for) before anything is built, so a
// wrong password fails in a second, not after the push; the pushed digest is signed as cosign would,
// and the build's SLSA provenance is attested with the same key (oci/provenance).
import type { KeyObject } from "node:crypto";
import type { BuildCommand, BuildDescription } from "../oci/provenance/statement.js";
import { resolve } from "node:path";
import { UsageError } from "../common/errors.js";
import type { Command } from "./commander.js";
import type { CliContext } from "./context.js";
import { type RegistryFlags, registryOptions } from "./flags.js";

export interface SignFlags {
  sign?: boolean;
  key?: string;
}

export function addSignFlags(command: Command): Command {
  return command
    .option("--sign", "sign the pushed image as cosign does (needs --key; password from $COSIGN_PASSWORD)")
    .option("--key <file>", "the private key for --sign (tsop image keygen or cosign generate-key-pair)");
}

/** What signing added to a pushed image: cosign's tags for the signature and the provenance attestation. */
export interface Signed {
  signatureTag: string;
  attestationTag: string;
}

/** What a push command tells about its build: which command, its inputs as given, what it read by digest. */
export type PushedBuild = Omit<BuildDescription, "buildType"> & { command: BuildCommand };

/** The signing step of a push command, or undefined without --sign; usage errors before any work. */
export async function prepareSigning(
  flags: SignFlags & RegistryFlags,
  ctx: CliContext,
  pushing: boolean,
): Promise<((image: string, digest: string, build: PushedBuild) => Promise<Signed>) | undefined> {
  if (!flags.sign) {
    if (flags.key) throw new UsageError("--key is for --sign; add --sign to sign the pushed image");
    return undefined;
  }
  if (!flags.key) throw new UsageError("--sign needs --key <file> (the private key, e.g. cosign.key)");
  if (!pushing)
    throw new UsageError("--sign signs a pushed image; it cannot sign an OCI layout (--oci-layout)");
  const { readPrivateKeyFile, signPushed } = await import("../oci/sign/index.js");
  const { attestPushed, BUILD_TYPES } = await import("../oci/provenance/index.js");
  const key: KeyObject = await readPrivateKeyFile(resolve(ctx.cwd, flags.key), ctx.env);
  return async (image, digest, build) => {
    const options = { ...registryOptions(flags, ctx.cwd), env: ctx.env, reporter: ctx.reporter };
    const signed = await signPushed(image, digest, key, options);
    ctx.reporter.success(`Signed ${signed.image} (${signed.signatureTag})`);
    const { command, ...description } = build;
    const buildType = BUILD_TYPES[command];
    const attested = await attestPushed(image, digest, { buildType, ...description }, key, options);
    ctx.reporter.success(`Attested the provenance of ${attested.image} (${attested.attestationTag})`);
    return { signatureTag: signed.signatureTag, attestationTag: attested.attestationTag };
  };
}
