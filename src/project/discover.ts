// Finds the project a command runs in: the nearest directory at or above cwd holding PROJECT.
// Every command (create api, generate, bundle) discovers its project here, so they all agree on
// the root whether they run at the root or in a subdirectory such as src/.
import { readFile, stat } from "../common/fs.js";
import { dirname, join, resolve } from "node:path";
import { TsopError } from "../common/errors.js";
import { defaultPlural } from "../common/plural.js";
import type { Project } from "./types.js";

export const PROJECT_FILE = "PROJECT";

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The nearest directory at or above `cwd` that holds a PROJECT file, or undefined. */
export async function findProjectRoot(cwd: string): Promise<string | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    if (await isFile(join(dir, PROJECT_FILE))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The directory a command treats as its project: the nearest one at or above `cwd` holding PROJECT,
 * else `cwd` itself (commands such as `bundle -f` also work outside a project).
 */
export async function projectDir(cwd: string): Promise<string> {
  return (await findProjectRoot(cwd)) ?? resolve(cwd);
}

/** Reads the PROJECT file of the project that contains `cwd`; plurals are filled in with the default. */
export async function readProject(cwd: string): Promise<Project> {
  const root = await findProjectRoot(cwd);
  if (root === undefined) {
    throw new TsopError(`no ${PROJECT_FILE} file in ${resolve(cwd)} or any directory above it`, {
      hint: "run this command inside a project created by `tsop init`",
    });
  }
  return readProjectFrom(root);
}

/** Checks `<root>/PROJECT`'s shape when there is one (commands that also run without a project). */
export async function checkProjectAt(root: string): Promise<void> {
  const text = await readFile(join(root, PROJECT_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return;
  // Loaded here, not at the top: finding the project root stays free of the YAML parser.
  const { checkProjectShape, parseProjectYaml } = await import("./file.js");
  checkProjectShape(parseProjectYaml(text, PROJECT_FILE), PROJECT_FILE);
}

/** Reads `<root>/PROJECT` (no discovery). */
export async function readProjectFrom(root: string): Promise<Project> {
  const file = join(root, PROJECT_FILE);
  // The YAML parser is loaded only here: finding the root (generate, on every build) needs none.
  const { parseProject } = await import("./file.js");
  const project = parseProject(await readFile(file, "utf8"), file, root);
  for (const resource of project.resources) {
    if (!resource.plural) resource.plural = defaultPlural(resource.kind);
  }
  return project;
}
