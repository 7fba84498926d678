// Which public key `run bundle`, `run bundle-upgrade` and `deploy` verify with, and where it came
// from: `--verify-key <file>`, else $TSOP_VERIFY_KEY, else the project's PROJECT
// (plugins.tsop.dev/v1.verify.key, src/project/verify-policy.ts). `--no-verify-key` runs unverified
// even when the environment or the project sets a key, and says so as a warning: the opt-out is
// explicit and visible in the output, never silent. The origin travels with the key so that every
// refusal names it (a CI variable nobody remembers setting is a common surprise).
import { resolve } from "node:path";
import type { Reporter } from "../../common/reporter.js";
import { readVerifyPolicy, VERIFY_KEY_FIELD } from "../../project/verify-policy.js";

export const VERIFY_KEY_ENV = "TSOP_VERIFY_KEY";

export interface VerifyKey {
  /** The public key file, absolute. */
  file: string;
  /** Where it was set: `--verify-key`, `$TSOP_VERIFY_KEY` or `<PROJECT> plugins.tsop.dev/v1.verify.key`. */
  origin: string;
}

export interface VerifyKeyInputs {
  /** The flag's value: a file, false for `--no-verify-key`, undefined when not given. */
  flag: string | boolean | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
  reporter: Reporter;
}

/** The key to verify with (flag > environment > PROJECT), or undefined: this run is not verified. */
export async function resolveVerifyKey(inputs: VerifyKeyInputs): Promise<VerifyKey | undefined> {
  const { flag, cwd, env } = inputs;
  if (typeof flag === "string") return { file: resolve(cwd, flag), origin: "--verify-key" };
  const policy = await policyKey(cwd, env);
  if (flag === false) {
    if (policy) {
      inputs.reporter.warn(
        `signatures are not verified (--no-verify-key), although ${policy.origin} names ${policy.file}`,
      );
    }
    return undefined;
  }
  return policy;
}

async function policyKey(cwd: string, env: NodeJS.ProcessEnv): Promise<VerifyKey | undefined> {
  const fromEnv = env[VERIFY_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    return { file: resolve(cwd, fromEnv), origin: `$${VERIFY_KEY_ENV}` };
  }
  const project = await readVerifyPolicy(cwd);
  return project ? { file: project.key, origin: `${project.file} ${VERIFY_KEY_FIELD}` } : undefined;
}
