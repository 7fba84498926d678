// Stage 6 of `tsop bundle` (see ../index.ts): the generated CSV must pass the CSV checks of
// validate/ before anything is written (operator-sdk refuses to write an invalid one).
import { AggregateTsopError } from "../../common/errors.js";
import type { ManifestObject } from "../../manifests/index.js";
import { toYaml } from "../../common/yaml/write.js";
import { csvFileName } from "../files.js";
import { memoryTree, readBundle } from "../load/index.js";
import type { Finding } from "../load/types.js";
import { uiTextProblems } from "../ui-text.js";
import { runChecks } from "../validate/index.js";
import type { ResolvedBundle } from "../types.js";

/** The CSV checks of the generated CSV: errors are thrown, warnings returned. */
export async function checkCsv(
  plan: ResolvedBundle,
  csv: ManifestObject,
  basePathShown: string,
): Promise<Finding[]> {
  const ui = uiTextProblems(csv);
  if (ui.length > 0) {
    throw new AggregateTsopError("the generated ClusterServiceVersion holds text a UI may not show:", ui, {
      hint: `fix the field in the base CSV (${basePathShown}), the bundle config or the flags; a CRD's descriptions come from its API type's doc comments; nothing was written`,
    });
  }
  const csvFile = `manifests/${csvFileName(plan.packageName)}`;
  const probe = await readBundle(memoryTree(new Map([[csvFile, toYaml(csv)]]), plan.outputDir));
  const findings = runChecks(probe, [], {}).filter((f) => f.id.startsWith("CSV-") || f.id.startsWith("RI-"));
  const errors = findings.filter((f) => f.level === "error");
  if (errors.length > 0) {
    throw new AggregateTsopError(
      "invalid generated ClusterServiceVersion:",
      errors.map((f) => `${f.id} ${f.path ?? ""}: ${f.message}`),
      { hint: `fix the flags or the base CSV (${basePathShown}); nothing was written` },
    );
  }
  return findings;
}
