// The bundle config: tsop.bundle.yaml at the project root, or a `bundle:` map in PROJECT. Every
// option of `tsop bundle` and every base CSV field can live there; flags win over it.
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { isRecord, parseYaml } from "../manifests/index.js";
import { PROJECT_FILE } from "../project/index.js";

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
  let project: ProjectFacts | undefined;
  let values: Record<string, unknown> = {};
  let file: string | undefined;
  if (isRecord(rawProject)) {
    const layout = Array.isArray(rawProject.layout)
      ? rawProject.layout.map(String)
      : typeof rawProject.layout === "string"
        ? [rawProject.layout]
        : [];
    project = { layout };
    if (typeof rawProject.projectName === "string") project.projectName = rawProject.projectName;
    if (typeof rawProject.image === "string") project.image = rawProject.image;
    if (isRecord(rawProject.bundle)) {
      checkKeys(rawProject.bundle, "PROJECT (bundle)");
      values = { ...rawProject.bundle };
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
    values = { ...values, ...own };
    file = BUNDLE_CONFIG_FILE;
  }
  return { values, file, project };
}
