// The images a bundle's ClusterServiceVersion names, read from the bundle's manifest files: what
// `--verify-key` must verify before a run and what a bundle image's SBOM lists.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseYamlDocuments } from "../common/yaml/read.js";
import { findImageSites, type ImageSite, type SiteProblem } from "./image-sites.js";

/**
 * The distinct images (containers, init containers, RELATED_IMAGE_*, relatedImages, containerImage)
 * named by the CSVs among `paths` (relative to `dir`; files other than YAML/JSON are skipped), in
 * the order they appear.
 */
export async function csvImagesIn(dir: string, paths: readonly string[]): Promise<string[]> {
  const sites: ImageSite[] = [];
  const problems: SiteProblem[] = [];
  for (const path of paths) {
    if (!/\.(ya?ml|json)$/.test(path)) continue;
    for (const doc of parseYamlDocuments(await readFile(join(dir, path), "utf8"), path)) {
      const object = doc.value as { kind?: unknown } | null;
      if (object && typeof object === "object" && object.kind === "ClusterServiceVersion") {
        findImageSites(object as Record<string, unknown>, sites, problems);
      }
    }
  }
  return [...new Set(sites.map((s) => s.value))];
}
