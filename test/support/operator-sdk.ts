// operator-sdk (the rig's v1.42.2 build) as the oracle of bundle validation: `operator-sdk bundle
// validate <dir> -o json-alpha1` gives a machine-readable verdict (passed, errors, warnings).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { rigBinary } from "./rig.js";

export interface SdkVerdict {
  exitCode: number;
  passed: boolean;
  errors: string[];
  warnings: string[];
  /** Raw stdout + stderr, for failure messages. */
  output: string;
}

interface JsonResult {
  passed?: boolean;
  outputs?: Array<{ type?: string; message?: string }> | null;
}

/**
 * Runs `operator-sdk bundle validate` on a directory. It runs in an empty temp dir with HOME there too,
 * so no PROJECT file or user config changes what it checks.
 */
export async function sdkValidate(dir: string, args: string[] = []): Promise<SdkVerdict> {
  const cwd = await mkdtemp(join(tmpdir(), "tsop-sdk-"));
  const result = await execa(
    rigBinary("operator-sdk"),
    ["bundle", "validate", dir, "-o", "json-alpha1", ...args],
    {
      cwd,
      env: { HOME: cwd },
      reject: false,
      timeout: 120_000,
    },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  let parsed: JsonResult;
  try {
    parsed = JSON.parse(result.stdout) as JsonResult;
  } catch {
    throw new Error(
      `operator-sdk bundle validate ${dir} printed no JSON (exit ${result.exitCode}):\n${output}`,
    );
  }
  const of = (type: string) =>
    (parsed.outputs ?? []).filter((o) => o.type === type).map((o) => String(o.message ?? ""));
  return {
    exitCode: result.exitCode ?? -1,
    passed: parsed.passed === true,
    errors: of("error"),
    warnings: of("warning"),
    output,
  };
}
