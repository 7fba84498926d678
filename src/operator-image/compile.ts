// ko compiles as it builds the image; tsop's image ships dist/ as it is, so a source edited without
// `npm run build` would ship the old code without a word. The image build therefore builds first
// when a file under src/ (or a tsconfig) is newer than dist/main.js, as `tsop run local` does
// (devloop/build.ts): the project's own build script, so `tsop generate` runs too. --no-build skips it.
import { join, relative } from "node:path";
import type { Reporter } from "../common/reporter.js";
import { runBuild, staleBecause } from "../devloop/build.js";

const ENTRY = join("dist", "main.js");
/** What the compiled code depends on besides src/ (package.json or PROJECT edits do not change it). */
const COMPILE_INPUTS = ["tsconfig.json", "tsconfig.build.json"];

/** Runs `npm run build` when dist/main.js is missing or older than a source, saying which. */
export async function buildIfStale(project: string, reporter: Reporter, signal?: AbortSignal): Promise<void> {
  const why = await staleBecause(project, ENTRY, COMPILE_INPUTS);
  if (!why) return;
  const reason =
    why === join(project, ENTRY) ? `${ENTRY} is missing` : `${relative(project, why)} is newer than ${ENTRY}`;
  const progress = reporter.progress(`building the operator (npm run build): ${reason}`);
  try {
    await runBuild(project, signal);
  } catch (error) {
    progress.fail(`npm run build failed (${reason}); the image was not built`);
    throw error;
  }
  progress.succeed("built the operator");
}
