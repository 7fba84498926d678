// Stage 3 of `tsop bundle` (see ../index.ts): read the inputs — the manifests (config/ rendered
// without kustomize, or -f), the base CSV and the previous bundle. It writes one thing (the only
// write between stage 2's `tsop generate` and stage 8): answers typed at a prompt are saved to the
// base CSV at once (base.ts: they cost typing, a later failure must not lose them); any other new
// or changed base goes out with the output set.
import { UsageError } from "../../common/errors.js";
import type { Reporter } from "../../common/reporter.js";
import {
  asRecords,
  kindOf,
  type LoadedObject,
  loadManifests,
  type ManifestObject,
  nameOf,
  parseDocuments,
  podSpecOf,
} from "../../manifests/index.js";
import { basePath, type BaseResult, ensureBase } from "../base.js";
import { checkBaseCsv } from "../base-check.js";
import { type Collected, collect } from "../collect.js";
import type { BundleIO, ResolvedBundle } from "../types.js";
import { readTreeFiles } from "../write.js";

export interface BundleInputs {
  collected: Collected;
  /** The manager image as it ends up in the CSV (for containerImage and the derived bundle image). */
  managerImage: string | undefined;
  base: BaseResult;
  previous: ManifestObject | undefined;
  /** The bundle directory as it is (text files as text, others as bytes). */
  previousTree: Map<string, string | Buffer>;
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

async function loadCollected(plan: ResolvedBundle, reporter: Reporter) {
  const readerNotes: string[] = [];
  const loaded = await loadManifests({
    cwd: plan.root,
    ...(plan.file !== undefined ? { file: plan.file } : {}),
    ...(plan.stdin !== undefined ? { stdin: plan.stdin } : {}),
    optional: [basePath(plan.packageName)],
    notes: readerNotes,
    ...(plan.loadRestrictor ? { loadRestrictor: plan.loadRestrictor } : {}),
  });
  for (const note of readerNotes) reporter.debug(note);
  return collect(loaded);
}

/** The manager container of a deployment set: the one named "manager", else the only container. */
function managerContainer(deployments: readonly LoadedObject[]): Record<string, unknown> | undefined {
  const containers = deployments.flatMap((d) => asRecords(podSpecOf(d.object)?.containers));
  return (
    containers.find((c) => c.name === "manager") ?? (containers.length === 1 ? containers[0] : undefined)
  );
}

/** --image: set on the manager container in memory; tracked files stay as they are. */
function applyManagerImage(plan: ResolvedBundle, c: Collected): string | undefined {
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
  const image = plan.file !== undefined ? manager?.image : undefined;
  return typeof image === "string" && image !== "" ? image : undefined;
}

/** The base: an input CSV named <package>.* (from -f), else the base file (created on first run). */
async function baseOf(plan: ResolvedBundle, io: BundleIO, c: Collected) {
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
  if (inputBase && plan.file !== undefined)
    return { base: inputBase.object, path: inputBase.origin.file, status: "unchanged" as const };
  const ask = plan.base;
  return ensureBase({
    cwd: plan.root,
    packageName: plan.packageName,
    flags: ask.fields,
    config: plan.config.values,
    configFile: plan.config.file,
    canPrompt: ask.tty,
    forcePrompt: ask.interactive,
    saveAnswers: io.sink.kind === "directory",
    yes: ask.yes,
    ...(ask.commandLine !== undefined ? { commandLine: ask.commandLine } : {}),
    prompter: io.prompter,
    crds: c.crds,
    reporter: io.reporter,
  });
}

export async function readInputs(plan: ResolvedBundle, io: BundleIO): Promise<BundleInputs> {
  const collected = await loadCollected(plan, io.reporter);
  const managerImage = applyManagerImage(plan, collected);
  const base = await baseOf(plan, io, collected);
  checkBaseCsv(base.base, base.path);
  const previousTree = await readTreeFiles(plan.outDir);
  return { collected, managerImage, base, previous: await previousCsv(previousTree), previousTree };
}
