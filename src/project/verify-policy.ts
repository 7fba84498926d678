// The project's signature policy: `verify: {key: <public key file>}` in PROJECT's tsop section
// (plugins.tsop.dev/v1, settings.ts). With it, `run bundle`, `run bundle-upgrade` and `deploy` run
// in the project verify every image as if `--verify-key` were given (src/oci/sign/policy.ts). Only
// this field is read and checked here: a run from the project directory must not fail on a PROJECT
// field it does not use.
import { join, resolve } from "node:path";
import { readFile } from "../common/fs.js";
import { InvalidInputError } from "../common/errors.js";
import { findProjectRoot, PROJECT_FILE } from "./discover.js";
import { tsopSettings } from "./settings.js";
import { LAYOUT } from "./types.js";

/** Where the field lives, as messages name it. */
export const VERIFY_KEY_FIELD = `plugins.${LAYOUT}.verify.key`;

export interface ProjectVerifyPolicy {
  /** The PROJECT file that sets it. */
  file: string;
  /** The public key, absolute (relative paths are read from the project root). */
  key: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The policy of the project containing `cwd`; undefined outside a project or when PROJECT sets none. */
export async function readVerifyPolicy(cwd: string): Promise<ProjectVerifyPolicy | undefined> {
  const root = await findProjectRoot(cwd);
  if (root === undefined) return undefined;
  const file = join(root, PROJECT_FILE);
  const { parseProjectYaml } = await import("./file.js");
  const raw = parseProjectYaml(await readFile(file, "utf8"), file);
  if (!isRecord(raw)) return undefined;
  return verifyPolicyOf(tsopSettings(raw), file, root);
}

/** The `verify` setting of tsop's section (`settings`), checked; `file` and `root` for messages and paths. */
export function verifyPolicyOf(
  settings: Record<string, unknown>,
  file: string,
  root: string,
): ProjectVerifyPolicy | undefined {
  const verify = settings.verify;
  if (verify === undefined || verify === null) return undefined;
  const hint = `set ${VERIFY_KEY_FIELD} to the path of a public key (cosign.pub, made by \`tsop image keygen\`), relative to the project root, or remove verify`;
  if (!isRecord(verify)) {
    throw new InvalidInputError(`${file}: plugins.${LAYOUT}.verify must be a mapping with key`, {
      location: { file },
      hint,
    });
  }
  const unknown = Object.keys(verify).filter((k) => k !== "key");
  if (unknown.length > 0) {
    throw new InvalidInputError(
      `${file}: plugins.${LAYOUT}.verify has unknown field(s) ${unknown.join(", ")} (only key is read)`,
      { location: { file }, hint },
    );
  }
  if (typeof verify.key !== "string" || verify.key.trim() === "") {
    throw new InvalidInputError(`${file}: ${VERIFY_KEY_FIELD} must be a non-empty path`, {
      location: { file },
      hint,
    });
  }
  return { file, key: resolve(root, verify.key) };
}
