// Stages 2 and 3 of `tsop bundle` (see index.ts): read the inputs (manifests, base CSV, previous
// bundle) and compose the bundle's objects in memory. Nothing here writes.
import { relative, resolve } from "node:path";
import semver from "semver";
import { UsageError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import {
  groupOf,
  isRecord,
  type ManifestObject,
  kindOf,
  type LoadedObject,
  loadManifests,
  nameOf,
  parseDocuments,
  str,
} from "../manifests/index.js";
import { basePath, type BaseResult, ensureBase } from "./base.js";
import { checkBaseCsv } from "./base-check.js";
import { type Collected, collect } from "./collect.js";
import { compose, type Composed, managerContainer } from "./compose.js";
import { parseFeatures } from "./features.js";
import { SUPPORTED_KINDS } from "./files.js";
import type { BundleOptions } from "./index.js";
import { builderName } from "./metadata.js";
import { msg, whyNotCarried } from "./messages.js";
import type { ResolvedBundle } from "./options.js";
import { readTreeFiles } from "./write.js";

export interface BundleInputs {
  collected: Collected;
  /** The manager image as it ends up in the CSV (for containerImage and the derived bundle image). */
  managerImage: string | undefined;
  base: BaseResult;
  previous: ManifestObject | undefined;
  /** The bundle directory as it is (text files as text, others as bytes). */
  previousTree: Map<string, string | Buffer>;
}

/** A path the user typed (relative to cwd), as seen from the project root; "-" stays stdin. */
function userPath(path: string, cwd: string, root: string): string {
  return path === "-" ? path : relative(root, resolve(cwd, path)) || ".";
}

async function previousCsv(tree: ReadonlyMap<string, string | Buffer>): Promise<ManifestObject | undefined> {
  for (const [file, text] of [...tree].sort()) {
    if (!file.startsWith("manifests/") || !file.endsWith(".clusterserviceversion.yaml")) continue;
    if (typeof text !== "string") continue;
    try {
      const doc = parseDocuments(text, file)[0];
      if (doc && kindOf(doc.object) === "ClusterServiceVersion") return doc.object;
    } catch {
      /* a broken previous CSV is simply replaced */
    }
  }
  return undefined;
}

async function loadCollected(plan: ResolvedBundle, options: BundleOptions, reporter: Reporter) {
  const readerNotes: string[] = [];
  const loaded = await loadManifests({
    cwd: plan.root,
    ...(options.file !== undefined ? { file: userPath(options.file, plan.cwd, plan.root) } : {}),
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    optional: [basePath(plan.packageName)],
    notes: readerNotes,
    ...(options.loadRestrictor ? { loadRestrictor: options.loadRestrictor } : {}),
  });
  for (const note of readerNotes) reporter.debug(note);
  return collect(loaded);
}

/** --image: set on the manager container in memory; tracked files stay as they are. */
function applyManagerImage(plan: ResolvedBundle, options: BundleOptions, c: Collected): string | undefined {
  const manager = managerContainer(c.deployments);
  if (plan.image) {
    if (!manager) {
      throw new UsageError(
        '--image: no manager container found (a container named "manager", or a single container)',
        {
          hint: 'name the operator\'s container "manager" in config/manager',
        },
      );
    }
    manager.image = plan.image;
    return plan.image;
  }
  const image = options.file !== undefined ? manager?.image : undefined;
  return typeof image === "string" && image !== "" ? image : undefined;
}

/** The base: an input CSV named <package>.* (from -f), else the base file (created on first run). */
async function baseOf(plan: ResolvedBundle, options: BundleOptions, c: Collected, reporter: Reporter) {
  const base = basePath(plan.packageName);
  const inputBase = c.csvs.find(
    (l) => nameOf(l.object).startsWith(`${plan.packageName}.`) && l.origin.file !== base,
  );
  const others = c.csvs.filter((l) => l !== inputBase && l.origin.file !== base);
  if (others.length > 0) {
    throw new UsageError(
      `the manifests hold ClusterServiceVersions that are not the base of package ${plan.packageName}: ${others.map((o) => `${nameOf(o.object)} (${o.origin.file})`).join(", ")}`,
    );
  }
  if (inputBase && options.file !== undefined)
    return { base: inputBase.object, path: inputBase.origin.file, status: "unchanged" as const };
  return ensureBase({
    cwd: plan.root,
    packageName: plan.packageName,
    flags: options.fields ?? {},
    config: plan.config.values,
    configFile: plan.config.file,
    canPrompt: Boolean(options.tty),
    forcePrompt: Boolean(options.interactive),
    saveAnswers: (options.sink?.kind ?? "directory") === "directory",
    yes: Boolean(options.yes),
    ...(options.commandLine !== undefined ? { commandLine: options.commandLine } : {}),
    prompter: options.prompter,
    crds: c.crds,
    reporter,
  });
}

export async function readInputs(
  plan: ResolvedBundle,
  options: BundleOptions,
  reporter: Reporter,
): Promise<BundleInputs> {
  const collected = await loadCollected(plan, options, reporter);
  const managerImage = applyManagerImage(plan, options, collected);
  const base = await baseOf(plan, options, collected, reporter);
  checkBaseCsv(base.base, base.path);
  const previousTree = await readTreeFiles(plan.outDir);
  return { collected, managerImage, base, previous: await previousCsv(previousTree), previousTree };
}

/** Upgrade edges: --replaces, or --replaces-previous from the CSV already in the output dir. */
function upgradeEdges(plan: ResolvedBundle, options: BundleOptions, previous: ManifestObject | undefined) {
  const prevSpec = previous && isRecord(previous.spec) ? previous.spec : {};
  const prevVersion = str(prevSpec.version);
  const { version, outputDir } = plan;
  let replaces = plan.replaces;
  if (options.replacesPrevious) {
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
  if (version && semver.valid(prevVersion) && semver.lt(version, prevVersion) && !options.replacesPrevious) {
    warnings.push(
      `--version ${version} is lower than the version of the bundle being replaced in ${outputDir} (${prevVersion})`,
    );
  }
  return { replaces, warnings };
}

function csvAnnotations(plan: ResolvedBundle, options: BundleOptions, managerImage: string | undefined) {
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
  if (options.features) Object.assign(annotations, parseFeatures(options.features, "--features"));
  if (plan.categories) annotations.categories = plan.categories.join(",");
  if (cv.suggestedNamespace)
    annotations["operatorframework.io/suggested-namespace"] = String(cv.suggestedNamespace);
  if (managerImage) annotations.containerImage = managerImage;
  return annotations;
}

export interface ComposedBundle {
  composed: Composed;
  /** The CSV first, then every other object that goes into manifests/. */
  objects: ManifestObject[];
  /** Where each non-CSV object came from (same order as objects.slice(1)). */
  extra: LoadedObject[];
  notCarried: string[];
  warnings: string[];
  layout: string;
}

export function composeBundle(
  plan: ResolvedBundle,
  options: BundleOptions,
  inputs: BundleInputs,
): ComposedBundle {
  const c = inputs.collected;
  const edges = upgradeEdges(plan, options, inputs.previous);
  const annotations = csvAnnotations(plan, options, inputs.managerImage);
  const composed = compose(inputs.base.base, c, {
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
