// The bundle config: tsop.bundle.yaml at the project root, or a `bundle:` map in PROJECT. Every
// option of `tsop bundle` and every base CSV field can live there; flags win over it.
import { readFile } from "../common/fs.js";
import { join, relative } from "node:path";
import { AggregateTsopError, InvalidInputError } from "../common/errors.js";
import { isRecord } from "../manifests/index.js";
import { parseYaml } from "../common/yaml/read.js";
import { checkProjectShape, PROJECT_FILE, projectLayout, tsopSettings } from "../project/index.js";

export const BUNDLE_CONFIG_FILE = "tsop.bundle.yaml";

export const CONFIG_KEYS = new Set([
  "package",
  "version",
  "channels",
  "defaultChannel",
  "image",
  "replaces",
  "skipRange",
  "skips",
  "extraServiceAccounts",
  "outputDir",
  "features",
  "categories",
  "suggestedNamespace",
  "labels",
  "bundleImage",
  "displayName",
  "description",
  "providerName",
  "providerUrl",
  "keywords",
  "maintainers",
  "maturity",
  "capabilities",
  "icon",
  "links",
  "minKubeVersion",
  "installModes",
]);

/** Keys holding one value, keys holding a list (or a comma-separated string), keys holding a map. */
const SCALAR_KEYS = new Set([
  "package",
  "version",
  "defaultChannel",
  "image",
  "replaces",
  "skipRange",
  "outputDir",
  "suggestedNamespace",
  "bundleImage",
  "displayName",
  "description",
  "providerUrl",
  "maturity",
  "capabilities",
  "icon",
  "minKubeVersion",
]);
const LIST_KEYS = new Set([
  "channels",
  "skips",
  "extraServiceAccounts",
  "categories",
  "keywords",
  "installModes",
]);
/** Lists whose entries may also be maps ({name, email}, {name, url}). */
const RECORD_LIST_KEYS = new Set(["maintainers", "links"]);

function kindOfValue(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (isRecord(value)) return "a mapping";
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

function typeProblem(key: string, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const scalar = typeof value === "string" || typeof value === "number";
  if (SCALAR_KEYS.has(key) && !scalar) return `${key} must be a single value, not ${kindOfValue(value)}`;
  const listy = LIST_KEYS.has(key) || RECORD_LIST_KEYS.has(key);
  if (listy && typeof value !== "string" && !Array.isArray(value))
    return `${key} must be a list (or a comma-separated string), not ${kindOfValue(value)}`;
  if (LIST_KEYS.has(key) && Array.isArray(value)) {
    const bad = value.find((v) => typeof v !== "string");
    if (bad !== undefined) return `${key} entries must be strings, not ${kindOfValue(bad)}`;
  }
  if (key === "labels" && !isRecord(value)) return `labels must be a mapping, not ${kindOfValue(value)}`;
  return undefined;
}

function checkTypes(values: Record<string, unknown>, file: string): void {
  const problems = Object.entries(values)
    .map(([key, value]) => typeProblem(key, value))
    .filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    throw new AggregateTsopError(`${file}: invalid bundle config:`, problems, {
      hint: "e.g. channels: [alpha, beta] or channels: alpha,beta; maturity: alpha",
    });
  }
}

export interface ProjectFacts {
  projectName?: string;
  layout: string[];
  image?: string;
}

export interface LoadedConfig {
  values: Record<string, unknown>;
  /** Which file each value came from, for messages. */
  file: string | undefined;
  project: ProjectFacts | undefined;
}

async function readYaml(root: string, path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  return parseYaml(text, relative(root, path) || path);
}

function checkKeys(values: Record<string, unknown>, file: string): void {
  const unknown = Object.keys(values).filter((k) => !CONFIG_KEYS.has(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(`${file}: unknown bundle config key(s): ${unknown.join(", ")}`, {
      location: { file },
      hint: `known keys: ${[...CONFIG_KEYS].join(", ")}`,
    });
  }
}

/**
 * Reads PROJECT (for projectName, layout, image and an optional `bundle:` map) and tsop.bundle.yaml
 * at the project root (found by the caller with projectDir()).
 */
export async function loadBundleConfig(root: string): Promise<LoadedConfig> {
  const rawProject = await readYaml(root, join(root, PROJECT_FILE));
  checkProjectShape(rawProject, PROJECT_FILE);
  let project: ProjectFacts | undefined;
  let values: Record<string, unknown> = {};
  let file: string | undefined;
  if (isRecord(rawProject)) {
    // tsop's settings: PROJECT's plugins.tsop.dev/v1, or the top level of an earlier version's.
    const settings = tsopSettings(rawProject);
    project = { layout: projectLayout(rawProject) };
    if (typeof rawProject.projectName === "string") project.projectName = rawProject.projectName;
    if (typeof settings.image === "string") project.image = settings.image;
    if (isRecord(settings.bundle)) {
      checkKeys(settings.bundle, "PROJECT (bundle)");
      checkTypes(settings.bundle, "PROJECT (bundle)");
      values = { ...settings.bundle };
      file = "PROJECT";
    }
  }
  const own = await readYaml(root, join(root, BUNDLE_CONFIG_FILE));
  if (own !== undefined && own !== null) {
    if (!isRecord(own))
      throw new InvalidInputError(`${BUNDLE_CONFIG_FILE} must be a mapping`, {
        location: { file: BUNDLE_CONFIG_FILE },
      });
    checkKeys(own, BUNDLE_CONFIG_FILE);
    checkTypes(own, BUNDLE_CONFIG_FILE);
    values = { ...values, ...own };
    file = BUNDLE_CONFIG_FILE;
  }
  return { values, file, project };
}
