// `tsop init`: validate every option at once, refuse a non-empty directory, render the project
// (templates/init/** plus package.json and PROJECT) in memory, write it atomically, then install.
import { basename, dirname, join, resolve } from "node:path";
import { AggregateTsopError, ExitCode, UsageError } from "../common/errors.js";
import { InterruptedError, isInterrupted } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import { checkDomain, checkProjectName, PROJECT_FILE, renderNewProject } from "../project/index.js";
import { checkImage, splitImage } from "./image.js";
import { type FileAction, type FileResult, executePlan } from "./machinery.js";
import { messages } from "./messages.js";
import { renderPackageJson, type TsopCommands } from "./package-json.js";
import { licenseHeader } from "./header.js";
import { installDependencies } from "./install.js";
import { listTemplates, targetPath } from "./templates.js";
import { chooseTsopDependency, type TsopDependency } from "./tsop-dependency.js";
import { SCORECARD_IMAGE } from "./versions.js";
import { readdir, rm, rmdir, writeFileAtomic } from "../common/fs.js";
import { readProjectFrom } from "../project/index.js";

export interface InitOptions {
  /** The project directory (created when missing). */
  dir: string;
  domain: string;
  /** Default: the directory's name. */
  projectName?: string;
  owner?: string;
  license?: "apache2" | "none";
  repo?: string;
  /** Default: `<domain>/<projectName>:0.0.1`. */
  image?: string;
  /** Scaffold into a non-empty directory, overwriting files tsop writes (each one reported). */
  force?: boolean;
  /**
   * How package.json depends on tsop. Default: `^<version>` when this tsop came from the registry,
   * else a tarball of the running tsop packed into vendor/ (see tsop-dependency.ts).
   */
  tsopDependency?: string;
  /** Run `npm install` afterwards (default true). */
  install?: boolean;
  /** tsop commands available, so the scaffolded scripts name only commands that exist. */
  commands?: TsopCommands;
  /** Aborting (Ctrl-C) stops npm install and removes what this init wrote. */
  signal?: AbortSignal;
}

export interface InitResult {
  dir: string;
  projectName: string;
  image: string;
  files: FileResult[];
  installed: boolean;
  /** How package.json depends on tsop, and why. */
  tsopDependency: { spec: string; source: TsopDependency["source"] };
}

/** The project name init would use for a directory (its name, when that is a valid label). */
export function defaultProjectName(dir: string): string {
  return basename(resolve(dir));
}

/** Every problem with the options, for one error listing them all. */
export function checkInitOptions(options: InitOptions): string[] {
  const problems: string[] = [];
  const domainProblem = checkDomain(options.domain);
  if (domainProblem) problems.push(domainProblem);
  const projectName = options.projectName ?? defaultProjectName(options.dir);
  const nameProblem = checkProjectName(projectName);
  if (nameProblem) {
    problems.push(
      options.projectName === undefined
        ? `${nameProblem.replace("--project-name", "the directory name")}; pass --project-name`
        : nameProblem,
    );
  }
  for (const [flag, value] of [
    ["--owner", options.owner],
    ["--repo", options.repo],
  ] as const) {
    // Both end up in comments and headers of generated files: one line of printable text.
    if (
      value !== undefined &&
      (value.trim() === "" || value.length > 200 || [...value].some((c) => c < " " || c === "\u007f"))
    ) {
      problems.push(`${flag} must be one line of text (at most 200 characters)`);
    }
  }
  if (options.image !== undefined) {
    const imageProblem = checkImage(options.image);
    if (imageProblem) problems.push(imageProblem);
  }
  return problems;
}

/** Directory entries that make a directory "not empty" (a fresh `git init` is fine). */
async function existingEntries(dir: string): Promise<string[] | undefined> {
  try {
    return (await readdir(dir)).filter((name) => name !== ".git").sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function init(options: InitOptions, reporter: Reporter): Promise<InitResult> {
  const dir = resolve(options.dir);
  const problems = checkInitOptions(options);
  if (problems.length > 0) {
    throw new AggregateTsopError(messages.invalidOptions, problems, {
      hint: messages.invalidOptionsHint,
      exitCode: ExitCode.usage,
    });
  }
  const entries = await existingEntries(dir);
  if (entries?.includes(PROJECT_FILE)) await checkRepairable(dir, options.force ?? false);
  if (entries && entries.length > 0 && !options.force) {
    throw new UsageError(messages.notEmpty(dir, entries), { hint: messages.notEmptyHint });
  }

  const projectName = options.projectName ?? defaultProjectName(dir);
  const license = options.license ?? "apache2";
  const owner = options.owner ?? `The ${projectName} Authors`;
  const image = options.image ?? `${options.domain}/${projectName}:0.0.1`;
  const { name: imageName, tag: imageTag } = splitImage(image)!;
  const commands = options.commands ?? new Set<string>();
  const dependency = await chooseTsopDependency(options.tsopDependency);
  const data = {
    tsopTarball: dependency.tarball?.path,
    projectName,
    domain: options.domain,
    namespace: `${projectName}-system`,
    image,
    imageName,
    imageTag,
    owner,
    repo: options.repo ?? "",
    header: licenseHeader(license, owner),
    leaderElectionId: `${projectName}.${options.domain}`,
    scorecardImage: SCORECARD_IMAGE,
    hasGenerate: commands.has("generate"),
    hasBundle: commands.has("bundle"),
    hasBundleValidate: commands.has("bundle validate"),
    hasRunBundle: commands.has("run bundle"),
    hasCleanup: commands.has("cleanup"),
  };

  // Docs and ignore files may be the user's own: kept when they exist. Everything else collides.
  const keepIfExists = new Set(["README.md", ".gitignore", ".dockerignore"]);
  const actions: FileAction[] = [];
  // Files for commands this tsop does not have are left out.
  const onlyWith: Record<string, boolean> = { "tsop.bundle.yaml": data.hasBundle };
  for (const template of await listTemplates("init")) {
    const path = targetPath(template, "init");
    if (onlyWith[path] === false) continue;
    actions.push({ kind: "template", path, template, ifExists: keepIfExists.has(path) ? "skip" : "error" });
  }
  actions.push({
    kind: "template",
    path: "package.json",
    content: renderPackageJson({
      projectName,
      license,
      image,
      commands,
      tsopDependency: dependency.spec,
      ...(options.repo ? { repo: options.repo } : {}),
    }),
    ifExists: "error",
  });
  const projectFile: Parameters<typeof renderNewProject>[0] = {
    domain: options.domain,
    projectName,
    image,
    license,
    owner,
  };
  if (options.repo) projectFile.repo = options.repo;
  actions.push({
    kind: "template",
    path: PROJECT_FILE,
    content: renderNewProject(projectFile),
    ifExists: "error",
  });

  const { files } = await executePlan(actions, { root: dir, data, force: options.force ?? false });
  if (dependency.tarball) {
    await writeFileAtomic(join(dir, dependency.tarball.path), dependency.tarball.content);
    files.push({
      path: dependency.tarball.path,
      status: entries?.includes("vendor") ? "updated" : "created",
    });
  }
  for (const file of files) {
    if (file.status === "overwritten") reporter.warn(`overwrote ${file.path} (--force)`);
    else if (file.status === "skipped") reporter.warn(`kept your ${file.path} (${file.note})`);
  }
  reporter.success(`scaffolded ${projectName} in ${dir} (${files.length} files)`);
  reporter.info(messages.tsopDependency(dependency.spec, dependency.source));

  let installed = false;
  if (options.install !== false) {
    try {
      await installDependencies(dir, reporter, options.signal, dependency.spec);
    } catch (error) {
      if (!isInterrupted(error)) throw error;
      await removeWhatInitWrote(dir, entries, files);
      const signal = error instanceof InterruptedError ? error.signal : "SIGINT";
      throw new InterruptedError(`${(error as Error).message}; removed what this init wrote`, signal);
    }
    installed = true;
  }
  return {
    dir,
    projectName,
    image,
    files,
    installed,
    tsopDependency: { spec: dependency.spec, source: dependency.source },
  };
}

/**
 * A directory with PROJECT is refused, except with --force for a half-made project (an init that
 * failed or was killed before any `create api`): then init writes its files again.
 */
async function checkRepairable(dir: string, force: boolean): Promise<void> {
  if (!force) throw new UsageError(messages.alreadyProject(dir), { hint: messages.alreadyProjectHint });
  const project = await readProjectFrom(dir).catch(() => undefined);
  if (project && project.resources.length > 0) {
    throw new UsageError(messages.alreadyProjectWithApis(dir, project.resources.length), {
      hint: messages.alreadyProjectWithApisHint,
    });
  }
}

/** Rolls an interrupted init back: the files it created, npm's output, and the directory if new. */
async function removeWhatInitWrote(
  dir: string,
  before: string[] | undefined,
  files: FileResult[],
): Promise<void> {
  if (before === undefined) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  const created = files.filter((f) => f.status === "created").map((f) => f.path);
  for (const path of ["node_modules", "package-lock.json"]) if (!before.includes(path)) created.push(path);
  for (const path of created) await rm(join(dir, path), { recursive: true, force: true });
  // Directories the created files were in, deepest first, when they are empty now.
  const parents = new Set(created.flatMap((p) => ancestors(p)));
  for (const parent of [...parents].sort((a, b) => b.length - a.length)) {
    await rmdir(join(dir, parent)).catch(() => undefined);
  }
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); d !== "." && d !== "/"; d = dirname(d)) out.push(d);
  return out;
}
