// Stage 4 of `tsop bundle` (see ../index.ts): compose the bundle's objects in memory — the CSV
// (csv.ts, with rbac.ts and webhooks.ts) with its upgrade edges and annotations, then the CRDs,
// Services, RBAC and other objects a bundle carries, and a note for each one it cannot. Pure.
import semver from "semver";
import { UsageError } from "../../common/errors.js";
import {
  groupOf,
  isRecord,
  kindOf,
  type LoadedObject,
  type ManifestObject,
  nameOf,
  str,
} from "../../manifests/index.js";
import { type ComposedCsv, composeCsv } from "../csv.js";
import { parseFeatures } from "../features.js";
import { SUPPORTED_KINDS } from "../files.js";
import { builderName } from "../metadata.js";
import { msg, whyNotCarried } from "../messages.js";
import type { BundleInputs } from "./read.js";
import type { ResolvedBundle } from "../types.js";

/** Upgrade edges: --replaces, or --replaces-previous from the CSV already in the output dir. */
function upgradeEdges(plan: ResolvedBundle, previous: ManifestObject | undefined) {
  const prevSpec = previous && isRecord(previous.spec) ? previous.spec : {};
  const prevVersion = str(prevSpec.version);
  const { version, outputDir } = plan;
  let replaces = plan.replaces;
  if (plan.replacesPrevious) {
    if (!previous)
      throw new UsageError(`--replaces-previous: no previous bundle CSV in ${outputDir}/manifests`);
    if (!version) throw new UsageError("--replaces-previous needs --version");
    if (semver.valid(prevVersion) && semver.gt(version, prevVersion)) replaces = nameOf(previous);
    else if (prevVersion === version) replaces = str(prevSpec.replaces) || undefined;
    else
      throw new UsageError(
        `--version ${version} is lower than the previous bundle's ${prevVersion}; OLM cannot upgrade backwards`,
      );
  }
  const warnings: string[] = [];
  if (version && semver.valid(prevVersion) && semver.lt(version, prevVersion) && !plan.replacesPrevious) {
    warnings.push(
      `--version ${version} is lower than the version of the bundle being replaced in ${outputDir} (${prevVersion})`,
    );
  }
  return { replaces, warnings };
}

function csvAnnotations(plan: ResolvedBundle, managerImage: string | undefined) {
  const cv = plan.config.values;
  const annotations: Record<string, string> = {
    "operators.operatorframework.io/builder": builderName(),
    "operators.operatorframework.io/project_layout":
      (plan.config.project?.layout ?? []).join(",") || "unknown",
  };
  if (cv.features !== undefined)
    Object.assign(
      annotations,
      parseFeatures(cv.features as Record<string, unknown>, plan.config.file ?? "bundle config"),
    );
  if (plan.features) Object.assign(annotations, parseFeatures(plan.features, "--features"));
  if (plan.categories) annotations.categories = plan.categories.join(",");
  if (cv.suggestedNamespace)
    annotations["operatorframework.io/suggested-namespace"] = String(cv.suggestedNamespace);
  if (managerImage) annotations.containerImage = managerImage;
  return annotations;
}

export interface ComposedBundle {
  composed: ComposedCsv;
  /** The CSV first, then every other object that goes into manifests/. */
  objects: ManifestObject[];
  /** Where each non-CSV object came from (same order as objects.slice(1)). */
  extra: LoadedObject[];
  notCarried: string[];
  warnings: string[];
  layout: string;
}

export function composeBundle(plan: ResolvedBundle, inputs: BundleInputs): ComposedBundle {
  const c = inputs.collected;
  const edges = upgradeEdges(plan, inputs.previous);
  const annotations = csvAnnotations(plan, inputs.managerImage);
  const composed = composeCsv(inputs.base.base, c, {
    packageName: plan.packageName,
    version: plan.version,
    replaces: edges.replaces,
    skipRange: plan.skipRange,
    skips: plan.skips,
    extraServiceAccounts: plan.extraServiceAccounts,
    annotations,
  });
  // Objects that go into bundle/manifests besides the CSV, and those a bundle cannot carry.
  const notCarried: string[] = [];
  const extra: LoadedObject[] = [...c.crds, ...c.services];
  for (const l of c.others) {
    const kind = kindOf(l.object);
    if (SUPPORTED_KINDS.has(kind)) extra.push(l);
    else
      notCarried.push(
        msg.notCarried(kind, nameOf(l.object), l.origin.file, whyNotCarried(kind, groupOf(l.object))),
      );
  }
  extra.push(...composed.rbac.out);
  return {
    composed,
    objects: [composed.csv, ...extra.map((l) => l.object)],
    extra,
    notCarried,
    warnings: [...edges.warnings, ...composed.rbac.warnings],
    layout: annotations["operators.operatorframework.io/project_layout"]!,
  };
}
