// Stage 7 of `tsop bundle` (see ../index.ts): the whole output set rendered in memory — the bundle
// directory, bundle.Dockerfile, the FBC fragment, the digest lock file and the base CSV — as
// OutputChanges for the sink (stage 8).
import { readFile } from "../../common/fs.js";
import { join, relative, resolve } from "node:path";
import { TsopError, UsageError } from "../../common/errors.js";
import type { OutputChange } from "../../common/output/sink.js";
import { isRecord, kindOf, type ManifestObject, str } from "../../manifests/index.js";
import { parseYamlDocuments } from "../../common/yaml/read.js";
import { toYaml } from "../../common/yaml/write.js";
import { renderFbc } from "../fbc.js";
import { bundleObject, csvFileName, renderManifests } from "../files.js";
import { annotationsYaml, bundleDockerfile, type MetadataOptions } from "../metadata.js";
import type { ComposedBundle } from "./compose.js";
import type { Pinned } from "./pin.js";
import type { BundleInputs } from "./read.js";
import type { ResolvedBundle } from "../types.js";
import { planBundleTree, type WriteResult } from "../write.js";

function deriveBundleImage(image: string | undefined, version: string): string | undefined {
  if (!image) return undefined;
  const at = image.indexOf("@");
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(":");
  const repo = colon > rest.lastIndexOf("/") ? rest.slice(0, colon) : rest;
  return `${repo}-bundle:v${version}`;
}

/** A file of the previous bundle as text; a binary one (not UTF-8) counts as absent. */
function textOf(content: string | Buffer | undefined): string | undefined {
  return typeof content === "string" ? content : undefined;
}

/** The files tsop produces in the bundle directory (before the user's own files are carried over). */
function bundleFiles(
  plan: ResolvedBundle,
  composed: ComposedBundle,
  objects: ManifestObject[],
  inputs: BundleInputs,
  meta: MetadataOptions,
  overwrite: boolean,
) {
  const files = new Map<string, string>();
  const csvFile = `manifests/${csvFileName(plan.packageName)}`;
  // The CSV keeps metadata.namespace ("placeholder"), as operator-sdk writes it.
  files.set(csvFile, toYaml(objects[0]!));
  const rendered = renderManifests(
    objects.slice(1).map((object, i) => ({ object, origin: composed.extra[i]!.origin })),
  );
  for (const [name, text] of rendered) {
    if (`manifests/${name}` === csvFile)
      throw new TsopError(`manifest ${name} clashes with the CSV file name`);
    files.set(`manifests/${name}`, text);
  }
  const previousAnnotations = textOf(inputs.previousTree.get("metadata/annotations.yaml"));
  files.set(
    "metadata/annotations.yaml",
    !overwrite && previousAnnotations !== undefined ? previousAnnotations : annotationsYaml(meta),
  );
  const scorecard = inputs.collected.scorecard;
  if (scorecard) files.set("tests/scorecard/config.yaml", toYaml(bundleObject(scorecard.object)));
  return files;
}

/** A metadata file the user keeps in the bundle directory (dependencies.yaml, properties.yaml), parsed. */
function metadataFile(previousTree: ReadonlyMap<string, string | Buffer>, name: string): unknown {
  const file = `metadata/${name}`;
  const text = textOf(previousTree.get(file));
  return text === undefined ? undefined : parseYamlDocuments(text, file).find((d) => d.value != null)?.value;
}

/** --fbc: the catalog fragment; it needs the bundle image reference. */
function fbcChange(plan: ResolvedBundle, objects: ManifestObject[], inputs: BundleInputs) {
  const csv = objects[0]!;
  const managerImage = inputs.managerImage;
  if (plan.fbcDir === undefined) return undefined;
  const version = str((csv.spec as Record<string, unknown>).version);
  const bundleImage = plan.bundleImage ?? deriveBundleImage(managerImage, version);
  if (!bundleImage) {
    throw new UsageError("--fbc needs the bundle image reference", {
      hint: "pass --bundle-image <ref> (or --image, from which <repo>-bundle:v<version> is derived)",
    });
  }
  const { packageName, channels, defaultChannel } = plan;
  return {
    shown: join(plan.fbcDir, packageName, "catalog.yaml"),
    change: {
      op: "write" as const,
      path: resolve(plan.cwd, plan.fbcDir, packageName, "catalog.yaml"),
      content: renderFbc({
        packageName,
        channels,
        defaultChannel,
        csv,
        bundleImage,
        crds: objects.filter((o) => kindOf(o) === "CustomResourceDefinition"),
        dependencies: metadataFile(inputs.previousTree, "dependencies.yaml"),
        properties: metadataFile(inputs.previousTree, "properties.yaml"),
      }),
    },
  };
}

async function unlessSame(path: string, content: string): Promise<OutputChange[]> {
  const current = await readFile(path, "utf8").catch(() => undefined);
  return current === content ? [] : [{ op: "write", path, content }];
}

export interface RenderedOutput {
  changes: OutputChange[];
  files: WriteResult;
  fbcFile?: string;
}

export async function renderOutput(
  plan: ResolvedBundle,
  inputs: BundleInputs,
  composed: ComposedBundle,
  pinned: Pinned,
): Promise<RenderedOutput> {
  const overwrite = plan.overwrite;
  const cv = plan.config.values;
  const meta: MetadataOptions = {
    packageName: plan.packageName,
    channels: plan.channels,
    defaultChannel: plan.defaultChannel,
    layout: composed.layout,
    scorecard: inputs.collected.scorecard !== undefined,
    labels: isRecord(cv.labels)
      ? Object.fromEntries(Object.entries(cv.labels).map(([k, v]) => [k, String(v)]))
      : {},
  };
  const tree = planBundleTree(
    bundleFiles(plan, composed, pinned.objects, inputs, meta, overwrite),
    inputs.previousTree,
  );
  const fbc = fbcChange(plan, pinned.objects, inputs);
  const changes: OutputChange[] = [];
  if (inputs.base.pending)
    changes.push({ op: "write", path: inputs.base.pending.file, content: inputs.base.pending.content });
  if (tree.changed) changes.push({ op: "tree", path: plan.outDir, files: tree.files });
  const dockerfilePath = join(plan.root, "bundle.Dockerfile");
  const dockerfile = bundleDockerfile(meta, plan.root, relative(plan.root, plan.outDir) || ".");
  const oldDockerfile = await readFile(dockerfilePath, "utf8").catch(() => undefined);
  if (overwrite || oldDockerfile === undefined)
    changes.push(...(await unlessSame(dockerfilePath, dockerfile)));
  if (fbc) changes.push(...(await unlessSame(fbc.change.path, fbc.change.content)));
  if (pinned.lock) changes.push(...(await unlessSame(pinned.lock.file, pinned.lock.content)));
  return { changes, files: tree.result, ...(fbc ? { fbcFile: fbc.shown } : {}) };
}
