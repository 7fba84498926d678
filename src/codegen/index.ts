// tsop generate: CRDs and RBAC from the project's TypeScript, by static analysis only.
// Pipeline: cache/ answers from the last analysis when nothing it read has changed; otherwise
// render.ts analyses and renders in memory — program.ts (one ts.Program from the
// tsconfig) → crd/collect.ts (@CustomResource classes) → crd/schema.ts (one schema per type, $ref
// between named types; markers.ts + jsdoc.ts apply tags) → crd/flatten.ts (inline refs, cycles,
// post-checks) → crd/assemble.ts (names, versions, CRD object); rbac/collect.ts (@Rbac)
// [+ rbac/derive.ts] → rbac/normalize.ts (controller-gen's merge); webhook/collect.ts
// (@MutatingWebhook, @ValidatingWebhook) → config/webhook/manifests.yaml. Then generate() below:
// diagnostics.ts decides (any error: nothing written) and output/ plans the files, diffs them
// (--check) or hands them to the output sink: the disk as one set (removing CRD files of vanished
// kinds), or stdout for --dry-run.
import { join, relative, resolve } from "node:path";
import { waitingMessage, withProjectLock } from "../common/output/lock.js";
import { directorySink, type OutputSink } from "../common/output/sink.js";
import type { Progress, Reporter } from "../common/reporter.js";
import { checkProjectAt, projectDir } from "../project/discover.js";
import { CodegenError, type Diagnostic, formatDiagnostic } from "./diagnostics.js";
import { msg } from "./messages.js";
import { driftOf, type FileStatus, type FilePlan, planChanges, planFiles } from "./output/write.js";
import type { OutputDirs, RenderOptions } from "./render.js";
import { analysisOutput } from "./cache/index.js";

export { CodegenError, type Diagnostic, formatDiagnostic } from "./diagnostics.js";
export { markerReference } from "./markers.js";

export interface GenerateOptions {
  cwd: string;
  /** tsconfig path; default <project root>/tsconfig.json. */
  project?: string;
  what?: "all" | "crds" | "rbac";
  crdOut?: string;
  rbacOut?: string;
  /** Where manifests.yaml of the webhooks goes (default config/webhook); written only with "all". */
  webhookOut?: string;
  check?: boolean;
  strict?: boolean;
  maxDescLen?: number;
  deriveRbac?: boolean;
  /** Name of the ClusterRole and default Role name (default manager-role). */
  roleName?: string;
  /** Where the files go (default: the disk, as one set); --dry-run passes stdoutSink. */
  sink?: OutputSink;
  /** Use the generate cache (default true; --no-cache: false). */
  cache?: boolean;
}

export interface GenerateResult {
  files: Array<{ path: string; status: FileStatus; bytes?: number }>;
  diagnostics: Diagnostic[];
  /** Unified diff when --check found differences. */
  drift?: string;
}

export const SIZE_LIMIT = 256 * 1024;

export async function generate(options: GenerateOptions, reporter: Reporter): Promise<GenerateResult> {
  const cwd = resolve(options.cwd);
  const root = await projectDir(cwd);
  await checkProjectAt(root);
  // --check and --dry-run write nothing; a real run holds the project lock from reading to writing.
  if (options.check || options.sink !== undefined) return generateIn(options, cwd, root, reporter);
  return withProjectLock(root, () => generateIn(options, cwd, root, reporter), {
    onWait: (holder) => reporter.info(waitingMessage(holder)),
  });
}

async function generateIn(
  options: GenerateOptions,
  cwd: string,
  root: string,
  reporter: Reporter,
): Promise<GenerateResult> {
  const what = options.what ?? "all";
  const tsconfig = options.project ? resolve(cwd, options.project) : join(root, "tsconfig.json");
  const dirs = outputDirs(options, cwd, root);
  const progress = reporter.progress(`analysing ${relative(cwd, tsconfig) || tsconfig}`);
  const started = Date.now();

  const render: RenderOptions = {
    what,
    dirs,
    roleName: options.roleName ?? "manager-role",
    ...(options.maxDescLen === undefined ? {} : { maxDescLen: options.maxDescLen }),
    deriveRbac: options.deriveRbac ?? false,
    projectRoot: root,
  };
  const output = await analysisOutput(
    {
      tsconfig,
      cwd,
      root,
      render,
      useCache: options.cache ?? true,
      store: (options.sink?.kind ?? "directory") === "directory",
    },
    reporter,
  );
  for (const note of output.notes) reporter[note.level](note.message);
  const rendered = output.files;
  const diagnostics = passOrThrow(output.diagnostics, options.strict, () =>
    progress.fail(`generation failed after ${Date.now() - started} ms`),
  );
  for (const d of diagnostics) reporter.warn(formatDiagnostic(d));
  const plans = planFiles(rendered, what !== "rbac" ? dirs.crd : undefined);
  const files = fileSummaries(plans, cwd);
  const result: GenerateResult = {
    files,
    diagnostics: [...diagnostics, ...sizeWarnings(files, cwd, dirs, reporter)],
  };
  if (options.check) return withDrift(result, plans, cwd, progress);

  const sink = options.sink ?? directorySink(root);
  await sink.commit(planChanges(plans));
  if (sink.kind !== "directory") {
    progress.succeed(`dry run: generated in ${Date.now() - started} ms, nothing written`);
    return result;
  }
  progress.succeed(`generated in ${Date.now() - started} ms`);
  reportWritten(files, reporter);
  return result;
}

function outputDirs(options: GenerateOptions, cwd: string, root: string): OutputDirs {
  return {
    crd: resolve(cwd, options.crdOut ?? join(root, "config/crd/bases")),
    rbac: resolve(cwd, options.rbacOut ?? join(root, "config/rbac")),
    webhook: resolve(cwd, options.webhookOut ?? join(root, "config/webhook")),
  };
}

/** The diagnostics (sorted); any error (any diagnostic with --strict) fails the run before a write. */
function passOrThrow(sorted: Diagnostic[], strict: boolean | undefined, onFail: () => void): Diagnostic[] {
  if (!sorted.some((d) => d.severity === "error" || strict)) return sorted;
  onFail();
  throw new CodegenError(strict ? sorted.map((d) => ({ ...d, severity: "error" as const })) : sorted);
}

function fileSummaries(plans: FilePlan[], cwd: string): GenerateResult["files"] {
  return plans.map((p) => ({
    path: relative(cwd, p.path).split("\\").join("/"),
    status: p.status,
    ...(p.content === undefined ? {} : { bytes: Buffer.byteLength(p.content) }),
  }));
}

/** A warning for each CRD over SIZE_LIMIT (the API server's annotation limit bites kubectl apply). */
function sizeWarnings(
  files: GenerateResult["files"],
  cwd: string,
  dirs: OutputDirs,
  reporter: Reporter,
): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const f of files) {
    if (f.bytes === undefined || f.bytes <= SIZE_LIMIT || !f.path.includes(relative(cwd, dirs.crd))) continue;
    const m = msg.tooBig(f.path, Math.round(f.bytes / 1024));
    warnings.push({
      code: m.code,
      severity: "warning",
      file: f.path,
      line: 0,
      column: 0,
      message: m.message,
      ...(m.hint ? { hint: m.hint } : {}),
    });
    reporter.warn(`${m.message}\n      hint: ${m.hint}`);
  }
  return warnings;
}

/** --check: the result with a unified diff when the files on disk differ from what was generated. */
function withDrift(
  result: GenerateResult,
  plans: FilePlan[],
  cwd: string,
  progress: Progress,
): GenerateResult {
  const drift = driftOf(plans, cwd);
  if (!drift) {
    progress.succeed(`generated files are up to date (${result.files.length} checked)`);
    return result;
  }
  progress.warn(
    `${plans.filter((p) => p.status !== "unchanged").length} generated file(s) differ from the sources`,
  );
  return { ...result, drift };
}

function reportWritten(files: GenerateResult["files"], reporter: Reporter): void {
  for (const f of files) {
    const size = f.bytes === undefined ? "" : ` (${(f.bytes / 1024).toFixed(1)} KiB)`;
    if (f.status === "removed") reporter.info(`removed ${f.path} (its kind no longer exists)`);
    else reporter.info(`${f.status} ${f.path}${size}`);
  }
}
