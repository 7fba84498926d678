// Shared shapes of the validator: a loaded bundle, a finding, a check.
import type { KubeObject } from "../../manifests/index.js";

export type Level = "error" | "warning";

export interface Finding {
  id: string;
  level: Level;
  message: string;
  /** File relative to the bundle root. */
  file?: string;
  /** Field path inside the file (dots, [i] for list items). */
  path?: string;
}

export interface BundleFile {
  /** Relative to the bundle root, e.g. manifests/foo.yaml. */
  file: string;
  object: KubeObject;
  size: number;
  compressedSize: number;
}

export interface LoadedBundle {
  root: string;
  hasManifestsDir: boolean;
  hasMetadataDir: boolean;
  annotationsFile: string | undefined;
  annotations: Record<string, unknown> | undefined;
  dependenciesFile: string | undefined;
  dependencies: unknown;
  /** manifests/ had no YAML files at all. */
  emptyManifests: boolean;
  manifests: BundleFile[];
  csv: BundleFile | undefined;
  crds: BundleFile[];
  /** Problems met while loading (unparsable files, sub-directories, several CSVs). */
  loadFindings: Finding[];
}

export interface CheckContext {
  /** --k8s-version for the deprecated-API checks. */
  k8sVersion?: string;
  /** Custom categories (OPERATOR_BUNDLE_CATEGORIES JSON file contents). */
  categories?: string[];
}

export interface Check {
  id: string;
  /** "default" checks always run; the others belong to an optional suite. */
  suite: string;
  level: Level;
  description: string;
  run(bundle: LoadedBundle, ctx: CheckContext): Finding[];
}
