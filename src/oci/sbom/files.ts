// Files an image is made of, by SHA-256: the bundle's manifests in its SBOM, the inputs of a build
// in its provenance. Paths are as they sit in the image (relative, "/"-separated).
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Digest } from "../digest.js";

export interface HashedFile {
  /** The path inside the image, e.g. manifests/memcached-operator.clusterserviceversion.yaml. */
  path: string;
  /** sha256:<hex> of its content. */
  digest: string;
}

/** The regular files among `paths` (relative to `root`; directories and links are skipped), hashed, in the order given. */
export async function hashFiles(root: string, paths: readonly string[]): Promise<HashedFile[]> {
  const files: HashedFile[] = [];
  for (const path of paths) {
    const full = join(root, path);
    if (!(await lstat(full)).isFile()) continue;
    files.push({ path: path.replace(/\/$/, ""), digest: sha256Digest(await readFile(full)) });
  }
  return files;
}
