// `--sign --key <file>` of the commands that push an image (`image build --push`, `bundle push`,
// `catalog image`): the key is read (and its password asked for) before anything is built, so a
// wrong password fails in a second, not after the push; the pushed digest is signed as cosign would.
import type { KeyObject } from "node:crypto";
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

/** The signing step of a push command, or undefined without --sign; usage errors before any work. */
export async function prepareSigning(
  flags: SignFlags & RegistryFlags,
  ctx: CliContext,
  pushing: boolean,
): Promise<((image: string, digest: string) => Promise<string>) | undefined> {
  if (!flags.sign) {
    if (flags.key) throw new UsageError("--key is for --sign; add --sign to sign the pushed image");
    return undefined;
  }
  if (!flags.key) throw new UsageError("--sign needs --key <file> (the private key, e.g. cosign.key)");
  if (!pushing)
    throw new UsageError("--sign signs a pushed image; it cannot sign an OCI layout (--oci-layout)");
  const { readPrivateKeyFile, signPushed } = await import("../oci/sign/index.js");
  const key: KeyObject = await readPrivateKeyFile(resolve(ctx.cwd, flags.key), ctx.env);
  return async (image, digest) => {
    const result = await signPushed(image, digest, key, {
      ...registryOptions(flags, ctx.cwd),
      env: ctx.env,
      reporter: ctx.reporter,
    });
    ctx.reporter.success(`Signed ${result.image} (${result.signatureTag})`);
    return result.signatureTag;
  };
}
