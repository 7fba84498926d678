// A bundle tree → the bundle model every command uses (validate, run bundle, bundle-upgrade,
// `tsop bundle`'s own check): metadata/annotations.yaml, dependencies.yaml, properties.yaml, and every YAML
// document of every file in the manifests directory the annotations name, plus load findings.
import { posix } from "node:path";
import { gzipSync } from "node:zlib";
import { isTsopError } from "../../common/errors.js";
import { isRecord, kindOf, type ManifestObject } from "../../manifests/index.js";
import { parseYamlDocuments } from "../../common/yaml/read.js";
import type { BundleFile, Finding, LoadedBundle } from "./types.js";
import type { BundleTree } from "./tree.js";

export const ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1";
export const ANNOTATION_MANIFESTS = "operators.operatorframework.io.bundle.manifests.v1";
export const ANNOTATION_METADATA = "operators.operatorframework.io.bundle.metadata.v1";

const MANIFEST_FILE = /\.(ya?ml|json)$/;

/** The documents of a file, or the finding that says why it cannot be read as YAML. */
function documents(raw: Buffer, file: string): { values: Array<{ value: unknown }> } | { finding: Finding } {
  try {
    return { values: parseYamlDocuments(raw.toString("utf8"), file) };
  } catch (error) {
    if (!isTsopError(error)) throw error;
    // Messages start with "invalid YAML in <file>:<line>:<column>: " or "<file>:<line>: ".
    const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const match = new RegExp(`^(?:invalid YAML in )?${escaped}(?::(\\d+))?(?::(\\d+))?: (.*)$`, "s").exec(
      error.message,
    );
    const [line, column, reason] = match
      ? [match[1], match[2], match[3]]
      : [undefined, undefined, error.message];
    const at = line ? ` at line ${line}${column ? `, column ${column}` : ""}` : "";
    return { finding: { id: "LOAD-01", level: "error", file, message: `cannot parse YAML${at}: ${reason}` } };
  }
}

/**
 * Checks a directory annotation (manifests.v1, metadata.v1): a relative path of plain names, without
 * "..", ".", backslashes or NUL. Returns the directory without its trailing slash, or a problem.
 */
export function annotationDir(value: unknown): { dir: string } | { problem: string } {
  if (typeof value !== "string" || value.trim() === "")
    return { problem: "must be a directory name such as manifests/" };
  if (value.includes("\0") || value.includes("\\")) return { problem: "holds a NUL or backslash" };
  if (value.startsWith("/")) return { problem: "is an absolute path" };
  const parts = value.split("/").filter((p) => p !== "");
  if (parts.some((p) => p === ".." || p === "."))
    return { problem: 'holds "." or ".." (it must stay inside the bundle)' };
  return { dir: posix.join(...parts) };
}

async function readMetadata(tree: BundleTree, bundle: LoadedBundle, push: (f: Finding) => void) {
  const entries = await tree.list("metadata");
  bundle.hasMetadataDir = entries !== undefined;
  for (const name of ["annotations.yaml", "dependencies.yaml", "properties.yaml"]) {
    if (!entries?.some((e) => e.name === name && e.kind === "file")) continue;
    const file = `metadata/${name}`;
    const parsed = documents(await tree.read(file), file);
    if ("finding" in parsed) {
      push(parsed.finding);
      continue;
    }
    const value = parsed.values.find((d) => d.value !== null && d.value !== undefined)?.value;
    if (name === "dependencies.yaml") {
      bundle.dependenciesFile = file;
      bundle.dependencies = value;
    } else if (name === "properties.yaml") {
      bundle.propertiesFile = file;
      bundle.properties = value;
    } else if (isRecord(value) && isRecord(value.annotations)) {
      bundle.annotationsFile = file;
      bundle.annotations = value.annotations;
    }
  }
}

/** The manifests directory the annotations name, when it is a safe path; else manifests/. */
function manifestsDir(bundle: LoadedBundle, push: (f: Finding) => void): string {
  for (const key of [ANNOTATION_MANIFESTS, ANNOTATION_METADATA]) {
    const value = bundle.annotations?.[key];
    if (value === undefined) continue;
    const checked = annotationDir(value);
    if ("problem" in checked)
      push({
        id: "LOAD-03",
        level: "error",
        file: bundle.annotationsFile,
        path: `annotations.${key}`,
        message: `"${String(value)}" ${checked.problem}; tsop reads manifests/ instead`,
      });
  }
  const named = annotationDir(bundle.annotations?.[ANNOTATION_MANIFESTS] ?? "manifests/");
  return "dir" in named ? named.dir : "manifests";
}

function addObject(bundle: LoadedBundle, loaded: BundleFile, push: (f: Finding) => void) {
  bundle.manifests.push(loaded);
  if (kindOf(loaded.object) === "ClusterServiceVersion") {
    if (bundle.csv) {
      push({
        id: "LOAD-02",
        level: "error",
        file: loaded.file,
        message: `a second ClusterServiceVersion (the first is ${bundle.csv.file}); a bundle holds exactly one, remove the other`,
      });
    } else bundle.csv = loaded;
  }
  if (kindOf(loaded.object) === "CustomResourceDefinition") bundle.crds.push(loaded);
}

async function readManifests(tree: BundleTree, bundle: LoadedBundle, push: (f: Finding) => void) {
  const entries = await tree.list(bundle.manifestsDir);
  bundle.hasManifestsDir = entries !== undefined;
  let yamlFiles = 0;
  for (const entry of entries ?? []) {
    const file = `${bundle.manifestsDir}/${entry.name}`;
    if (entry.name.startsWith(".")) continue;
    if (entry.kind === "directory") {
      push({
        id: "LOAD-01",
        level: "error",
        file,
        message: "bundle manifests dir contains a directory; manifests/ must be flat",
      });
      continue;
    }
    const raw = await tree.read(file);
    if (MANIFEST_FILE.test(entry.name)) yamlFiles++;
    bundle.size.bytes += raw.length;
    bundle.size.compressed += gzipSync(raw).toString("base64").length;
    const parsed = documents(raw, file);
    if ("finding" in parsed) {
      push(parsed.finding);
      continue;
    }
    const objects = parsed.values.filter((d) => d.value !== null && d.value !== undefined);
    if (objects.length === 0 || objects.some((d) => !isRecord(d.value))) {
      push({ id: "LOAD-01", level: "error", file, message: "file holds no Kubernetes object" });
      continue;
    }
    if (objects.length > 1)
      push({
        id: "LOAD-04",
        level: "warning",
        file,
        message: `holds ${objects.length} YAML documents; OLM's registry reads only the first of each file, put one object per file`,
      });
    objects.forEach((d, doc) => addObject(bundle, { file, doc, object: d.value as ManifestObject }, push));
  }
  bundle.emptyManifests = yamlFiles === 0;
}

/** Reads a bundle tree into the bundle model. Unsafe files fail (tree.ts); content problems are findings. */
export async function readBundle(tree: BundleTree): Promise<LoadedBundle> {
  const bundle: LoadedBundle = {
    root: tree.label,
    manifestsDir: "manifests",
    hasManifestsDir: false,
    hasMetadataDir: false,
    annotationsFile: undefined,
    annotations: undefined,
    dependenciesFile: undefined,
    dependencies: undefined,
    propertiesFile: undefined,
    properties: undefined,
    emptyManifests: false,
    manifests: [],
    csv: undefined,
    crds: [],
    size: { bytes: 0, compressed: 0 },
    loadFindings: [],
  };
  const push = (f: Finding) => bundle.loadFindings.push(f);
  await readMetadata(tree, bundle, push);
  bundle.manifestsDir = manifestsDir(bundle, push);
  await readManifests(tree, bundle, push);
  return bundle;
}
