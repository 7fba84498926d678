// `make install` and `make deploy` run `make manifests` first; `tsop install` and `tsop deploy` do
// the same with `tsop generate`, so that the CRDs and RBAC they apply are those of src/ right after
// `tsop create api` or an edit. Generation writes only the files whose content differs, and this
// says which. A project without tsconfig.json keeps config/ by hand: nothing to generate from.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Progress, Reporter } from "../common/reporter.js";
import { messages } from "./messages.js";

export interface GenerateFirstOptions {
  /** Write nothing: only warn when the files on disk are out of date (deploy --dry-run). */
  dryRun?: boolean;
}

export async function generateFirst(
  root: string,
  reporter: Reporter,
  options: GenerateFirstOptions = {},
): Promise<void> {
  if (!existsSync(join(root, "tsconfig.json"))) return;
  const { generate } = await import("../codegen/index.js");
  const progress = reporter.progress(messages.generating());
  let changed: string[];
  try {
    const result = await generate({ cwd: root, check: options.dryRun ?? false }, muted(reporter));
    changed = result.files.filter((f) => f.status !== "unchanged").map((f) => `${f.status} ${f.path}`);
  } catch (error) {
    progress.fail(messages.generateFailed());
    throw error;
  }
  if (changed.length === 0) progress.succeed(messages.generatedUpToDate());
  else if (options.dryRun) progress.warn(messages.generatedStale(changed));
  else progress.succeed(messages.generatedNow(changed));
}

/** The reporter for generate itself: its warnings show, its per-file lines and progress do not. */
function muted(reporter: Reporter): Reporter {
  const silent: Progress = { update: () => {}, succeed: () => {}, fail: () => {}, warn: () => {} };
  return {
    info: (message) => reporter.debug(message),
    success: (message) => reporter.debug(message),
    warn: (message) => reporter.warn(message),
    error: (message) => reporter.error(message),
    debug: (message) => reporter.debug(message),
    progress: () => silent,
    verbose: reporter.verbose,
    quiet: reporter.quiet,
  };
}
