// `tsop bundle`: an OLM bundle from the project's config/ tree, as a short plan of stages (bundleLocked),
// one file each in generate/:
//   1. resolve   options.ts  flags + tsop.bundle.yaml + PROJECT → ResolvedBundle, checked (pure)
//   2. generate  index.ts    `tsop generate` first, unless -f, --skip-generate or --dry-run
//   3. read      read.ts     manifests (config/ rendered without kustomize, or -f), base CSV, previous
//                            bundle; prompted base CSV answers are saved here, at once
//   4. compose   compose.ts  the bundle's objects; the CSV field by field in ../csv.ts (rbac.ts, webhooks.ts)
//   5. pin       pin.ts      --use-image-digests (digests resolved; nothing written yet), createdAt stamped
//   6. check     check.ts    the CSV checks of validate/ ("nothing was written" on failure)
//   7. render    render.ts   the whole output set in memory: bundle dir, Dockerfile, FBC, lock, base
//   8. commit    the output sink (common/output): disk as one set, stdout for --dry-run, or memory
// Stages 2–8 read the resolved options only, and do their I/O through one BundleIO (types.ts).
import { resolve } from "node:path";
import { waitingMessage, withProjectLock } from "../common/output/lock.js";
import { assertOutputDir } from "../common/output/output-dir.js";
import { directorySink } from "../common/output/sink.js";
import type { Reporter } from "../common/reporter.js";
import { nameOf } from "../manifests/index.js";
import { projectDir } from "../project/index.js";
import { loadBundleConfig } from "./config.js";
import { BASE_FIELDS } from "./fields.js";
import { msg } from "./messages.js";
import { checkCsv } from "./generate/check.js";
import { composeBundle } from "./generate/compose.js";
import { resolveBundleOptions } from "./generate/options.js";
import { pinImages, stampCreatedAt } from "./generate/pin.js";
import { readInputs } from "./generate/read.js";
import { renderOutput } from "./generate/render.js";
import type { BundleIO, BundleOptions, BundleResult, PinImagesOptions, ResolvedBundle } from "./types.js";
import type { WriteResult } from "./write.js";

export { type Prompter, inquirerPrompter } from "./base.js";
export { type FbcOptions, renderFbc } from "./fbc.js";
export { formatFinding, validateBundle, validateBundleDir, type ValidationReport } from "./validate/index.js";

export type { BundleOptions, BundleResult, PinImages, PinImagesOptions } from "./types.js";

/** Stage 2: the CRDs and RBAC the bundle reads come from the code (not with -f or --skip-generate). */
async function generateFirst(plan: ResolvedBundle, io: BundleIO): Promise<void> {
  if (!plan.generate) return;
  if (io.sink.kind === "directory") {
    const { generate } = await import("../codegen/index.js");
    await generate({ cwd: plan.root }, io.reporter);
  } else if (io.sink.kind === "stdout")
    io.reporter.info("dry run: `tsop generate` was not run; the bundle shows the CRDs and RBAC on disk");
}

/** The bundle directory tsop replaces as a whole: never the project, nor one holding other files. */
async function checkOutputDir(plan: ResolvedBundle): Promise<void> {
  await assertOutputDir(plan.outDir, {
    shown: plan.outputDirShown,
    root: plan.root,
    owned: ["manifests", "metadata", "tests"],
    holds: "a bundle directory holds only manifests/, metadata/ and tests/; the default is bundle",
  });
}

async function defaultPinImages(objects: Array<Record<string, unknown>>, options: PinImagesOptions) {
  // The pinning module, not oci/'s index: that loads the image pull and push code too (tar-stream).
  const { pinBundleImages } = await import("../oci/pin.js");
  return pinBundleImages(objects, options);
}

export async function bundle(options: BundleOptions, reporter: Reporter): Promise<BundleResult> {
  const root = await projectDir(resolve(options.cwd));
  const io: BundleIO = {
    reporter,
    prompter: options.prompter,
    sink: options.sink ?? directorySink(root),
    pinImages: options.pinImages ?? defaultPinImages,
  };
  if (io.sink.kind !== "directory") return bundleLocked(options, root, io);
  return withProjectLock(root, () => bundleLocked(options, root, io), {
    ...(options.env ? { env: options.env } : {}),
    onWait: (holder) => reporter.info(waitingMessage(holder)),
  });
}

/** The plan of index.ts's header, run while no other tsop writes the project (output/lock.ts). */
async function bundleLocked(options: BundleOptions, root: string, io: BundleIO): Promise<BundleResult> {
  const plan = resolveBundleOptions(options, await loadBundleConfig(root), root);
  await checkOutputDir(plan);
  await generateFirst(plan, io);
  const inputs = await readInputs(plan, io);
  const composed = composeBundle(plan, inputs);
  const pinned = await pinImages(plan, io, composed.objects);
  const csv = pinned.objects[0]!;
  stampCreatedAt(csv, inputs.previous, plan.env);
  const findings = await checkCsv(plan, csv, inputs.base.path);
  const output = await renderOutput(plan, inputs, composed, pinned);
  await io.sink.commit(output.changes);

  const warnings = [...composed.warnings, ...findings.map((f) => `${f.id} ${f.path ?? ""}: ${f.message}`)];
  report(
    io,
    { ...output, notCarried: composed.notCarried, notes: composed.composed.notes, warnings },
    plan.outputDir,
    inputs.base.pending?.note,
  );
  return {
    outputDir: plan.outputDir,
    csvName: nameOf(csv),
    files: output.files,
    base: { path: inputs.base.path, status: inputs.base.status },
    notCarried: composed.notCarried,
    notes: composed.composed.notes,
    warnings,
    ...(output.fbcFile ? { fbcFile: output.fbcFile } : {}),
    dockerfile: "bundle.Dockerfile",
  };
}

function report(
  { reporter, sink }: BundleIO,
  out: { files: WriteResult; notCarried: string[]; notes: string[]; warnings: string[] },
  outputDir: string,
  baseNote: string | undefined,
): void {
  if (sink.kind !== "directory") {
    for (const w of [...out.notCarried, ...out.warnings]) reporter.warn(w);
    return;
  }
  if (baseNote) reporter.info(baseNote);
  for (const path of out.files.removed) reporter.info(msg.removed(`${outputDir}/${path}`));
  for (const note of out.notCarried) reporter.warn(note);
  for (const note of out.notes) reporter.info(note);
  for (const w of out.warnings) reporter.warn(w);
  const { created, updated, removed, unchanged } = out.files;
  if (created.length + updated.length + removed.length === 0) reporter.info(msg.upToDate(outputDir));
  else reporter.success(msg.wrote(outputDir, created.length, updated.length, unchanged.length));
}

export { BASE_FIELDS };
