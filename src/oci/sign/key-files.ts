// Key files and their password, as cosign takes them: the password from COSIGN_PASSWORD (an empty
// value is a password too), else asked on the terminal; without a terminal the command fails and
// says to set COSIGN_PASSWORD rather than waiting for input that never comes.
import type { KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { InvalidInputError, UsageError } from "../../common/errors.js";
import { decryptPrivateKey, loadPublicKey } from "./keys.js";

export const PASSWORD_ENV = "COSIGN_PASSWORD";

async function readKeyFile(file: string, what: string, path = file): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(
      `cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      {
        hint: "Make a key pair with `tsop image keygen` (cosign.key, cosign.pub) or give the path of one.",
      },
    );
  }
}

/** The password for a key: $COSIGN_PASSWORD, else a prompt on a terminal. */
export async function keyPassword(
  env: NodeJS.ProcessEnv,
  question: string,
  interactive = Boolean(process.stdin.isTTY),
): Promise<string> {
  const fromEnv = env[PASSWORD_ENV];
  if (fromEnv !== undefined) return fromEnv;
  if (!interactive) {
    throw new UsageError(
      `no password for the key: ${PASSWORD_ENV} is not set and there is no terminal to ask on`,
      {
        hint: `Set ${PASSWORD_ENV} (it may be empty), as for cosign.`,
      },
    );
  }
  const { password } = await import("@inquirer/prompts");
  return password({ message: question, mask: true });
}

export async function readPrivateKeyFile(file: string, env: NodeJS.ProcessEnv): Promise<KeyObject> {
  const pem = await readKeyFile(file, "private key");
  return decryptPrivateKey(pem, await keyPassword(env, `Password for ${file}:`), file);
}

/** `origin`, when given, says who named the file (`$TSOP_VERIFY_KEY`, a PROJECT field) in errors. */
export async function readPublicKeyFile(file: string, origin?: string): Promise<KeyObject> {
  const named = origin ? `${file} (from ${origin})` : file;
  return loadPublicKey(await readKeyFile(named, "public key", file), named);
}
