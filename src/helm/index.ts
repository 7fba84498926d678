// `tsop helm`: a Helm chart from the project's config/default, the same objects `tsop deploy`
// applies. Stages: generate first (as deploy does; devloop/generate.ts) → config/default through the
// built-in kustomize reader (devloop/project.ts) → compose.ts (templates, values, schema, Chart.yaml;
// template-text.ts writes the templates, values.ts the values) → the output sink as one directory
// tree (written whole or not at all), or with --check a diff against the chart on disk.
import { join, relative, resolve } from "node:path";
import semver from "semver";
import { errorFrom, InvalidInputError, UsageError } from "../common/errors.js";
import { readFile } from "../common/fs.js";
import type { Reporter } from "../common/reporter.js";
import { assertOutputDir } from "../common/output/output-dir.js";
import { directorySink, fileChanges, type OutputSink } from "../common/output/sink.js";
import { unifiedDiff } from "../common/output/diff.js";
import { checkImageReference } from "../oci/reference.js";
import { generateFirst } from "../devloop/generate.js";
import { findManager, loadDefault, openProject } from "../devloop/project.js";
import { composeChart } from "./compose.js";
import { helmMessages } from "./messages.js";

export { helmMessages } from "./messages.js";

/** Where the chart goes unless --output-dir says otherwise (relative to the project root). */
export const DEFAULT_CHART_DIR = "chart";
/** The top-level entries tsop writes in the chart directory (anything else there is refused). */
const OWNED = ["Chart.yaml", "values.yaml", "values.schema.json", "templates", ".helmignore"];

export interface HelmOptions {
  cwd: string;
  /** Relative to cwd when given; default chart/ at the project root. */
  outputDir?: string;
  /** The image the chart's values default to (default: PROJECT's image, else config/default's). */
  image?: string;
  /** Chart version and appVersion (default: package.json's version). */
  version?: string;
  /** Write nothing; report the files that differ from the chart on disk. */
  check?: boolean;
  /** Use config/ as it is on disk, without `tsop generate` first. */
  skipGenerate?: boolean;
  /** Tests: where the chart goes instead of the disk. */
  sink?: OutputSink;
}

export interface HelmResult {
  outDir: string;
  /** outDir relative to cwd, for messages. */
  shownDir: string;
  /** Chart-relative paths of every file, sorted. */
  files: string[];
  /** --check: a unified diff per file that differs (empty when up to date). */
  drift: string;
  /** --check: how many files differ. */
  changed: number;
}

export async function helmChart(options: HelmOptions, reporter: Reporter): Promise<HelmResult> {
  const project = await openProject(options.cwd);
  const outDir =
    options.outputDir === undefined
      ? join(project.root, DEFAULT_CHART_DIR)
      : resolve(options.cwd, options.outputDir);
  const shownDir = relative(options.cwd, outDir) || ".";
  await assertOutputDir(outDir, {
    shown: `--output-dir ${options.outputDir ?? DEFAULT_CHART_DIR}`,
    root: project.root,
    owned: OWNED,
    holds: `a chart directory holds only ${OWNED.join(", ")}`,
  });
  if (!/^[a-z][a-z0-9-]*$/.test(project.projectName))
    throw errorFrom(helmMessages.badChartName(project.projectName), InvalidInputError);
  const version = await chartVersion(project.root, options.version);
  if (!options.skipGenerate) await generateFirst(project.root, reporter, { dryRun: options.check });
  const objects = await loadDefault(project);
  const image =
    options.image !== undefined
      ? checkImageReference(options.image, "--image")
      : project.image !== undefined
        ? checkImageReference(project.image, "image in PROJECT")
        : String(findManager(objects, "config/default").container.image ?? "");
  const files = composeChart({ objects, name: project.projectName, version, image });
  const change = { op: "tree" as const, path: outDir, files };
  const result: HelmResult = { outDir, shownDir, files: [...files.keys()], drift: "", changed: 0 };
  if (options.check) {
    const changed = await fileChanges([change]);
    result.drift = changed.map((f) => unifiedDiff(relative(options.cwd, f.path), f.before, f.after)).join("");
    result.changed = changed.length;
    if (changed.length === 0) reporter.success(helmMessages.upToDate(shownDir));
    return result;
  }
  await (options.sink ?? directorySink(project.root)).commit([change]);
  reporter.success(helmMessages.written(shownDir, files.size));
  return result;
}

/** --version, else package.json's version; SemVer either way. */
async function chartVersion(root: string, flag: string | undefined): Promise<string> {
  let version = flag;
  let where = "--version";
  if (version === undefined) {
    where = "package.json version";
    let pkg: { version?: unknown };
    try {
      pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version?: unknown };
    } catch (error) {
      throw new InvalidInputError(`package.json could not be read as JSON: ${(error as Error).message}`, {
        hint: "fix package.json, or pass --version",
      });
    }
    if (typeof pkg.version !== "string")
      throw errorFrom(helmMessages.noVersion("package.json"), InvalidInputError);
    version = pkg.version;
  }
  if (semver.valid(version) !== version) {
    const m = helmMessages.badVersion(version, where);
    throw flag === undefined ? new InvalidInputError(m.message, m) : new UsageError(m.message, m);
  }
  return version;
}
