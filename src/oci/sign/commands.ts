// What `tsop image keygen|sign|verify` do, with a registry client of the usual options: the CLI
// parses flags and prints; these open the client, do the work and close it.
import type { KeyObject } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { InvalidInputError } from "../../common/errors.js";
import type { Reporter } from "../../common/reporter.js";
import { RegistryClient, type RegistryClientOptions } from "../client.js";
import { parseReference } from "../reference.js";
import { keyPassword, readPrivateKeyFile, readPublicKeyFile } from "./key-files.js";
import { generateKeyPair } from "./keys.js";
import { signImage, type SignResult } from "./sign.js";
import { verifyImage, type VerifyResult } from "./verify.js";

export interface SigningOptions extends RegistryClientOptions {
  env: NodeJS.ProcessEnv;
  reporter: Reporter;
}

/** Writes <prefix>.key (mode 0600) and <prefix>.pub; refuses to overwrite either, as cosign asks first. */
export async function keygen(
  prefix: string,
  env: NodeJS.ProcessEnv,
): Promise<{ privateKey: string; publicKey: string }> {
  const password = await keyPassword(env, "Password for the new private key:");
  const pair = generateKeyPair(password);
  const files = { privateKey: `${prefix}.key`, publicKey: `${prefix}.pub` };
  await writeNew(files.privateKey, pair.privateKey, 0o600);
  await writeNew(files.publicKey, pair.publicKey, 0o644);
  return files;
}

async function writeNew(file: string, text: string, mode: number): Promise<void> {
  let handle;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new InvalidInputError(`${file} exists; tsop image keygen does not overwrite keys`, {
        hint: "Move it away, or give another --output-key-prefix.",
      });
    }
    throw error;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

export async function signReference(
  image: string,
  keyFile: string,
  options: SigningOptions,
): Promise<SignResult> {
  const ref = parseReference(image);
  const key = await readPrivateKeyFile(keyFile, options.env);
  const client = new RegistryClient(options);
  try {
    return await signImage(client, ref, key);
  } finally {
    client.close();
  }
}

export async function verifyReference(
  image: string,
  keyFile: string,
  options: SigningOptions,
): Promise<VerifyResult> {
  const ref = parseReference(image);
  const key = await readPublicKeyFile(keyFile);
  const client = new RegistryClient(options);
  try {
    return await verifyImage(client, ref, key);
  } finally {
    client.close();
  }
}

/** Signs what a command just pushed: `image`'s repository at `digest` (`--sign --key`). */
export async function signPushed(
  image: string,
  digest: string,
  key: KeyObject,
  options: SigningOptions,
): Promise<SignResult> {
  const ref = { ...parseReference(image), digest };
  const client = new RegistryClient(options);
  try {
    return await signImage(client, ref, key);
  } finally {
    client.close();
  }
}
