// Loads a bundle directory the way operator-registry does: metadata/annotations.yaml, an optional
// metadata/dependencies.yaml, and one object per file in manifests/ (first YAML document).
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parseAllDocuments } from "yaml";
import { isRecord, kindOf, type KubeObject } from "../../manifests/index.js";
import type { BundleFile, Finding, LoadedBundle } from "./types.js";

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function firstDocument(text: string): { value?: unknown; error?: string } {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length > 0) return { error: doc.errors[0]!.message.split("\n")[0] ?? "invalid YAML" };
    const value = doc.toJS() as unknown;
    if (value !== null && value !== undefined) return { value };
  }
  return {};
}

export async function loadBundle(root: string): Promise<LoadedBundle> {
  const bundle: LoadedBundle = {
    root,
    hasManifestsDir: await isDir(join(root, "manifests")),
    hasMetadataDir: await isDir(join(root, "metadata")),
    annotationsFile: undefined,
    annotations: undefined,
    dependenciesFile: undefined,
    dependencies: undefined,
    emptyManifests: false,
    manifests: [],
    csv: undefined,
    crds: [],
    loadFindings: [],
  };
  const push = (f: Finding) => bundle.loadFindings.push(f);
  if (bundle.hasMetadataDir) {
    const entries = (await readdir(join(root, "metadata"))).sort();
    const ordered = ["annotations.yaml", ...entries.filter((e) => e !== "annotations.yaml")];
    for (const name of ordered) {
      if (!entries.includes(name)) continue;
      const file = `metadata/${name}`;
      const text = await readFile(join(root, file), "utf8").catch(() => undefined);
      if (text === undefined) continue;
      const { value, error } = firstDocument(text);
      if (error) {
        push({ id: "LOAD-01", level: "error", file, message: `cannot parse YAML: ${error}` });
        continue;
      }
      if (name === "dependencies.yaml") {
        bundle.dependenciesFile = file;
        bundle.dependencies = value;
      } else if (!bundle.annotations && isRecord(value) && isRecord(value.annotations)) {
        bundle.annotationsFile = file;
        bundle.annotations = value.annotations;
      }
    }
  }
  if (!bundle.hasManifestsDir) return bundle;
  const entries = (await readdir(join(root, "manifests"), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  let yamlFiles = 0;
  for (const entry of entries) {
    const file = `manifests/${entry.name}`;
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory()) {
      push({
        id: "LOAD-01",
        level: "error",
        file,
        message: "bundle manifests dir contains a directory; manifests/ must be flat",
      });
      continue;
    }
    if (!entry.isFile()) continue;
    const raw = await readFile(join(root, file));
    if (/\.(ya?ml|json)$/.test(entry.name)) yamlFiles++;
    const { value, error } = firstDocument(raw.toString("utf8"));
    if (error || !isRecord(value)) {
      push({
        id: "LOAD-01",
        level: "error",
        file,
        message: error ? `cannot parse YAML: ${error}` : "file holds no Kubernetes object",
      });
      continue;
    }
    const loaded: BundleFile = {
      file,
      object: value as KubeObject,
      size: raw.length,
      compressedSize: gzipSync(raw).toString("base64").length,
    };
    bundle.manifests.push(loaded);
    if (kindOf(loaded.object) === "ClusterServiceVersion") {
      if (bundle.csv) {
        push({
          id: "LOAD-02",
          level: "error",
          file,
          message: `invalid bundle: contains multiple CSVs (${bundle.csv.file} and ${file})`,
        });
      } else bundle.csv = loaded;
    }
    if (kindOf(loaded.object) === "CustomResourceDefinition") bundle.crds.push(loaded);
  }
  bundle.emptyManifests = yamlFiles === 0;
  return bundle;
}
