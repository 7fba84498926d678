// `tsop bundle`: an OLM bundle from the project's config/ tree, as a short plan of stages:
//   1. resolve   options.ts  flags + tsop.bundle.yaml + PROJECT → checked options (pure)
//   2. generate  [codegen generate()] unless -f, --skip-generate or --dry-run
//   3. read      stages.ts   manifests (config/ rendered without kustomize, or -f), base CSV, previous bundle
//   4. compose   stages.ts   the CSV field by field (compose.ts: rbac.ts, webhooks.ts, relatedImages)
//   5. pin       render.ts   --use-image-digests (digests resolved; nothing written yet)
//   6. check     render.ts   the CSV checks of validate/ ("nothing was written" on failure)
//   7. render    render.ts   the whole output set in memory: bundle dir, Dockerfile, FBC, lock, base
//   8. commit    the output sink (common/output): disk as one set, stdout for --dry-run, or memory
import { resolve } from "node:path";
import { waitingMessage, withProjectLock } from "../common/output/lock.js";
import { assertOutputDir } from "../common/output/output-dir.js";
import { directorySink, type OutputSink } from "../common/output/sink.js";
import type { Reporter } from "../common/reporter.js";
import { nameOf } from "../manifests/index.js";
import { projectDir } from "../project/index.js";
import type { Prompter } from "./base.js";
import { loadBundleConfig } from "./config.js";
import { BASE_FIELDS } from "./fields.js";
import { msg } from "./messages.js";
import { type ResolvedBundle, resolveBundleOptions } from "./options.js";
import { checkCsv, pinImages, renderOutput, stampCreatedAt } from "./render.js";
import { composeBundle, readInputs } from "./stages.js";
import type { WriteResult } from "./write.js";

export { type Prompter, inquirerPrompter } from "./base.js";
export { type FbcOptions, renderFbc } from "./fbc.js";
export { formatFinding, validateBundle, validateBundleDir, type ValidationReport } from "./validate/index.js";

export interface BundleOptions {
  cwd: string;
  version?: string;
  channels?: string[];
  defaultChannel?: string;
  package?: string;
  image?: string;
  replaces?: string;
  skipRange?: string;
  skips?: string[];
  /** Set replaces from the bundle already in the output dir. */
  replacesPrevious?: boolean;
  extraServiceAccounts?: string[];
  outputDir?: string;
  /** false keeps an existing metadata/annotations.yaml and bundle.Dockerfile. */
  overwrite?: boolean;
  interactive?: boolean;
  yes?: boolean;
  /** The command line as typed (for the message that shows what to add). */
  commandLine?: string;
  /** A person can answer prompts here (TTY). */
  tty?: boolean;
  prompter?: Prompter;
  /** Write a file-based catalog fragment into this directory. */
  fbc?: string;
  bundleImage?: string;
  file?: string;
  stdin?: string;
  skipGenerate?: boolean;
  /** kustomize's load restrictor for the config/ tree (default rootOnly). */
  loadRestrictor?: "rootOnly" | "none";
  useImageDigests?: boolean;
  features?: string;
  categories?: string[];
  /** Base CSV field values given as flags (key → text). */
  fields?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Registry access for --use-image-digests. */
  registry?: Omit<PinImagesOptions, "reporter" | "env">;
  /** Test seam for --use-image-digests (defaults to images' pinBundleImages). */
  pinImages?: PinImages;
  /** Where the output goes (default: the disk, as one set); --dry-run passes stdoutSink. */
  sink?: OutputSink;
}

export interface PinImagesOptions {
  reporter: Reporter;
  registryConfig?: string;
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  caFile?: string;
  lockFile?: string;
  /** Resolve every image again, ignoring the lock file's entries. */
  refresh?: boolean;
  /** Return the lock file's text instead of writing it (bundle writes it with its output set). */
  deferLockWrite?: boolean;
  env?: NodeJS.ProcessEnv;
}

export type PinImages = (
  objects: Array<Record<string, unknown>>,
  options: PinImagesOptions,
) => Promise<{
  objects: Array<Record<string, unknown>>;
  pinned: Array<{ from: string; to: string }>;
  lockText?: string;
}>;

export interface BundleResult {
  outputDir: string;
  csvName: string;
  files: WriteResult;
  base: { path: string; status: "created" | "updated" | "unchanged" };
  notCarried: string[];
  notes: string[];
  warnings: string[];
  fbcFile?: string;
  dockerfile: string;
}

async function runGenerate(cwd: string, reporter: Reporter): Promise<void> {
  const { generate } = await import("../codegen/index.js");
  await generate({ cwd }, reporter);
}

/** The bundle directory tsop replaces as a whole: never the project, nor one holding other files. */
async function checkOutputDir(plan: ResolvedBundle, options: BundleOptions): Promise<void> {
  const fromConfig = plan.config.values.outputDir !== undefined;
  await assertOutputDir(plan.outDir, {
    shown:
      options.outputDir !== undefined
        ? `--output-dir ${plan.outputDir}`
        : fromConfig
          ? `outputDir in ${plan.config.file}`
          : "the bundle directory",
    root: plan.root,
    owned: ["manifests", "metadata", "tests"],
    holds: "a bundle directory holds only manifests/, metadata/ and tests/; the default is bundle",
  });
}

export async function bundle(options: BundleOptions, reporter: Reporter): Promise<BundleResult> {
  const root = await projectDir(resolve(options.cwd));
  const sink = options.sink ?? directorySink(root);
  if (sink.kind !== "directory") return bundleLocked(options, root, sink, reporter);
  return withProjectLock(root, () => bundleLocked(options, root, sink, reporter), {
    ...(options.env ? { env: options.env } : {}),
    onWait: (holder) => reporter.info(waitingMessage(holder)),
  });
}

/** The plan of index.ts's header, run while no other tsop writes the project (output/lock.ts). */
async function bundleLocked(
  options: BundleOptions,
  root: string,
  sink: OutputSink,
  reporter: Reporter,
): Promise<BundleResult> {
  const plan = resolveBundleOptions(options, await loadBundleConfig(root), root);
  await checkOutputDir(plan, options);
  if (sink.kind === "directory" && !options.skipGenerate && options.file === undefined)
    await runGenerate(root, reporter);
  else if (sink.kind === "stdout" && !options.skipGenerate && options.file === undefined)
    reporter.info("dry run: `tsop generate` was not run; the bundle shows the CRDs and RBAC on disk");
  const inputs = await readInputs(plan, options, reporter);
  const composed = composeBundle(plan, options, inputs);
  const pinned = await pinImages(plan, options, composed.objects, reporter);
  const csv = pinned.objects[0]!;
  stampCreatedAt(csv, inputs.previous, plan.env);
  const findings = await checkCsv(plan, csv, inputs.base.path);
  const output = await renderOutput(plan, options, inputs, composed, pinned);
  await sink.commit(output.changes);

  const warnings = [...composed.warnings, ...findings.map((f) => `${f.id} ${f.path ?? ""}: ${f.message}`)];
  report(
    reporter,
    sink,
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
  reporter: Reporter,
  sink: OutputSink,
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
