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
    // A bundle it cannot load at all ends in a fatal log line instead of a JSON report.
    if (result.exitCode === 0) throw new Error(`operator-sdk printed no JSON report:\n${output}`);
    const fatal = /level=fatal msg="(.*)"\s*$/m.exec(result.stderr)?.[1] ?? result.stderr.trim();
    parsed = { passed: false, outputs: [{ type: "error", message: fatal }] };
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
