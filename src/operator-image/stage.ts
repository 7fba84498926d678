// The production dependencies of a project, installed the reproducible way: package.json,
// package-lock.json, .npmrc and vendor/ (where `tsop init` puts a packed tsop) copied into a staging
// directory, then `npm ci --omit=dev --ignore-scripts` there (as the scaffolded Dockerfile does), so
// the project's own node_modules (dev tools, links) never reaches the image.
import { cp, lstat, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { InvalidInputError, TsopError } from "../common/errors.js";
import { danglingOptionals, describeDangling, type LockFile } from "../common/npm-lock.js";
import type { Reporter } from "../common/reporter.js";

export interface StagedDependencies {
  dir: string;
  /** node_modules in the staging dir, or undefined when the project has no production dependency. */
  nodeModules: string | undefined;
  remove(): Promise<void>;
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** Checks the build output and the lock file are there before anything runs. */
export async function checkProjectFiles(project: string): Promise<void> {
  const main = join(project, "dist", "main.js");
  if (!(await exists(main))) {
    throw new InvalidInputError(`${main} is missing; the image runs node dist/main.js`, {
      hint: "Build the project first (npm run build).",
    });
  }
  await checkDirectoryDependencies(project);
  const lock = join(project, "package-lock.json");
  if (!(await exists(lock))) {
    throw new InvalidInputError(
      `${lock} is missing; the image's dependencies are installed from it with npm ci`,
      {
        hint: "Run npm install once to create it, and commit it.",
      },
    );
  }
}

/**
 * A production dependency on a directory (`file:/path/to/tsop`, `--tsop-dependency file:<dir>`):
 * npm installs it as a link to this machine's directory, which `npm ci` in the image's staging
 * directory cannot follow and an image cannot hold. A packed tarball (`file:vendor/x.tgz`) is fine.
 */
async function checkDirectoryDependencies(project: string): Promise<void> {
  const file = join(project, "package.json");
  const pkg = JSON.parse(await readFile(file, "utf8").catch(() => "{}")) as {
    dependencies?: Record<string, string>;
  };
  for (const [name, spec] of Object.entries(pkg.dependencies ?? {})) {
    const target = /^(?:file|link):(.+)$/.exec(spec)?.[1];
    if (!target || !(await isDirectory(resolve(project, target)))) continue;
    throw new InvalidInputError(
      `the dependency ${name} is "${spec}", a directory on this machine; npm links it, and an image cannot hold the link`,
      {
        location: { file },
        hint:
          `Depend on a packed copy instead: \`npm pack ${resolve(project, target)} --pack-destination vendor\` in the project, ` +
          `then \`npm install ./vendor/<the .tgz it wrote>\` (what \`tsop init\` does by default when tsop runs from a clone).`,
      },
    );
  }
}

const isDirectory = (path: string) =>
  stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );

export async function stageDependencies(
  project: string,
  reporter: Reporter,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StagedDependencies> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-image-"));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    for (const name of ["package.json", "package-lock.json", ".npmrc", "vendor"]) {
      const from = join(project, name);
      if (await exists(from)) await cp(from, join(dir, name), { recursive: true, dereference: false });
    }
    await installProduction(dir, project, reporter, env);
    const nodeModules = join(dir, "node_modules");
    const present = await readdir(nodeModules).then(
      (names) => names.length > 0,
      () => false,
    );
    return { dir, nodeModules: present ? nodeModules : undefined, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

const NPM_FLAGS = ["--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"];

async function npm(dir: string, args: string[], env: NodeJS.ProcessEnv) {
  return execa("npm", [...args, ...NPM_FLAGS], {
    cwd: dir,
    reject: false,
    all: true,
    env: { ...env, NO_COLOR: "1", npm_config_update_notifier: "false" },
  });
}

/**
 * `npm ci --omit=dev`; when npm refuses because the lock misses packages package.json implies (a
 * registry that lacks some optional platform packages leaves such locks), `npm install --omit=dev
 * --no-save` with the same lock, and a warning: the locked versions are still the ones installed.
 */
async function installProduction(dir: string, project: string, reporter: Reporter, env: NodeJS.ProcessEnv) {
  reporter.debug(`npm ci --omit=dev in ${dir}`);
  let result = await npm(dir, ["ci"], env);
  if (result.exitCode !== 0 && /EUSAGE/.test(String(result.all)) && /in sync/.test(String(result.all))) {
    reporter.warn(await lockRefusal(join(project, "package-lock.json"), join(dir, "package-lock.json")));
    result = await npm(dir, ["install", "--no-save"], env);
  }
  if (result.exitCode !== 0) {
    const tail = String(result.all ?? "")
      .trim()
      .split("\n")
      .slice(-8)
      .join("\n");
    throw new TsopError(
      `installing the production dependencies of ${project} failed (npm exit ${result.exitCode})`,
      {
        hint: `Check that package-lock.json matches package.json (npm install), then retry. npm said:\n${tail}`,
      },
    );
  }
}

/**
 * Why npm ci refused the lock, and what fixes it. A lock npm install wrote with an optional package
 * the registry could not serve (npm-lock.ts) is not fixed by running npm install again.
 */
async function lockRefusal(lock: string, staged: string): Promise<string> {
  const fallback = "installing the production dependencies with npm install --no-save from the same lock";
  const dangling = danglingOptionals(JSON.parse(await readFile(staged, "utf8")) as LockFile);
  if (dangling.length === 0)
    return `${lock} is not in sync with package.json (npm ci refused it); ${fallback}. Run npm install and commit the lock file.`;
  const edges = dangling.map((edge) => `"${edge.name}" from "optionalDependencies" of "${edge.dependent}"`);
  return (
    `npm ci refuses ${lock}: it lacks ${dangling.map(describeDangling).join(", ")}, which the npm registry did not serve ` +
    `to npm install (npm/cli#9846; npm install again writes the same lock); ${fallback}. ` +
    `For your Dockerfile and CI, which run npm ci: remove ${edges.join(", ")} in package-lock.json and commit it ` +
    "(tsop init does this for a new project), or install from a registry that serves it."
  );
}

/** Native addons (*.node) under the given directories, as paths relative to `root`. */
export async function findNativeAddons(root: string, dirs: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const childRel = `${rel}/${e.name}`;
      if (e.isDirectory()) await visit(join(dir, e.name), childRel);
      else if (e.isFile() && e.name.endsWith(".node")) found.push(childRel);
    }
  };
  for (const dir of dirs) await visit(join(root, dir), dir);
  return found.sort();
}
