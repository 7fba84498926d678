// The bundle model the loader returns: a loaded bundle, its objects, and findings (the loader's own,
// from reading it; the validator's checks report the same shape).
import type { ManifestObject } from "../../manifests/index.js";

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

/** One object of the bundle: a YAML document of a file in the manifests directory. */
export interface BundleFile {
  /** Relative to the bundle root, e.g. manifests/foo.yaml. */
  file: string;
  /** Index of the document in the file (0 for the first). */
  doc: number;
  object: ManifestObject;
}

export interface LoadedBundle {
  /** Names the bundle in messages: its directory, OCI layout or image reference. */
  root: string;
  /** The manifests directory (from the manifests annotation when it is a safe path), e.g. "manifests". */
  manifestsDir: string;
  hasManifestsDir: boolean;
  hasMetadataDir: boolean;
  annotationsFile: string | undefined;
  annotations: Record<string, unknown> | undefined;
  dependenciesFile: string | undefined;
  dependencies: unknown;
  /** metadata/properties.yaml: properties OLM adds to the bundle's own (opm render carries them). */
  propertiesFile: string | undefined;
  properties: unknown;
  /** manifests/ had no YAML files at all. */
  emptyManifests: boolean;
  manifests: BundleFile[];
  csv: BundleFile | undefined;
  crds: BundleFile[];
  /** Bytes of the manifest files, and their gzip+base64 size as OLM stores them. */
  size: { bytes: number; compressed: number };
  /** Problems met while loading (unparsable files, sub-directories, several CSVs). */
  loadFindings: Finding[];
}
