// The generate cache: an unchanged project is answered from the last analysis without loading the
// TypeScript compiler. An entry is keyed by the tool (key.ts) and every option that shapes the output;
// it is used only if each fact its analysis read from the disk (inputs.ts) still holds: the text of
// every file the program loaded (project sources, tsconfigs, package.json files, declarations in
// node_modules), every path module resolution probed, and the listings of the include directories.
// Anything else (no entry, a damaged one, a changed fact) runs the analysis and stores it again.
import { relative, sep } from "node:path";
import type { Reporter } from "../../common/reporter.js";
import type { RenderOptions } from "../render.js";
import { firstChangedFact, InputRecorder } from "./inputs.js";
import { toolIdentity, TYPESCRIPT_LIB_DIR } from "./key.js";
import { saveCodeCache, useCodeCache } from "./code-cache.js";
import {
  type AnalysisOutput,
  codeCachePath,
  entryPath,
  makeCacheDir,
  readEntry,
  writeEntry,
} from "./store.js";

export type { AnalysisOutput } from "./store.js";

export interface AnalysisRequest {
  tsconfig: string;
  cwd: string;
  /** The project root: the cache lives in its node_modules/.cache. */
  root: string;
  render: RenderOptions;
  /** false: neither read nor write the cache (--no-cache). */
  useCache: boolean;
  /** false: read the cache but do not write it (--dry-run writes nothing). */
  store: boolean;
}

/** The analysis output for `request`: from the cache when nothing it read has changed. */
export async function analysisOutput(request: AnalysisRequest, reporter: Reporter): Promise<AnalysisOutput> {
  if (!request.useCache)
    return (await compiler()).analyseAndRender(request.tsconfig, request.cwd, request.render);
  const { tsconfig, cwd, root, render } = request;
  const key = JSON.stringify({ tool: toolIdentity(), platform: process.platform, tsconfig, cwd, render });
  const path = entryPath(root, key);
  const where = relative(cwd, path);
  const entry = readEntry(path, key);
  let previous: AnalysisOutput | undefined;
  if ("miss" in entry) {
    reporter.debug(`generate cache: ${entry.miss} (${where})`);
  } else {
    const changed = firstChangedFact(entry.facts);
    if (changed === undefined) {
      reporter.debug(`generate cache: hit, nothing the analysis read has changed (${where})`);
      return entry.output;
    }
    reporter.debug(`generate cache: changed since the last analysis: ${changed}`);
    previous = entry.output;
  }
  // Made before the analysis looks: a node_modules that appears afterwards would be a changed fact.
  if (request.store) {
    makeCacheDir(root);
    useCodeCache(codeCachePath(root));
  }
  const inputs = new InputRecorder((file) => file.startsWith(TYPESCRIPT_LIB_DIR + sep));
  const output = (await compiler()).analyseAndRender(tsconfig, cwd, render, inputs, previous);
  if (request.store) saveCodeCache();
  if (previous) reporter.debug(`generate cache: ${reusedSchemas(previous, output)}`);
  if (inputs.unstable !== undefined) {
    reporter.debug(`generate cache: not stored: ${inputs.unstable}`);
  } else if (request.store) {
    // The cache only saves time: failing to write it (read-only node_modules…) is no failure.
    try {
      writeEntry(path, key, inputs.toFacts(), output);
    } catch (error) {
      reporter.debug(`generate cache: not stored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return output;
}

/** How many version schemas the analysis took from the last one (crd/schema-reuse.ts). */
function reusedSchemas(previous: AnalysisOutput, output: AnalysisOutput): string {
  if (previous.diagnostics.length > 0) return "no schema reused: the last analysis reported problems";
  const before = new Map(previous.schemas.map((r) => [r.version, r.inputs]));
  const reused = output.schemas.filter((r) => before.get(r.version) === r.inputs).length;
  return `${reused} of ${output.schemas.length} version schemas reused, unchanged since the last analysis`;
}

/** The analysis, which loads the TypeScript compiler: imported only when it has to run. */
function compiler(): Promise<typeof import("../render.js")> {
  return import("../render.js");
}
