// Reads a bundle as `tsop run bundle` needs it: pulled from its image into a temporary directory
// (through src/images, imported lazily), then metadata/annotations.yaml and every manifest.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { InvalidInputError, TsopError } from "../../common/errors.js";
import type { KubeObject } from "../../kube/objects.js";

export const ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1";
export const ANNOTATION_MANIFESTS = "operators.operatorframework.io.bundle.manifests.v1";

export interface LoadedBundle {
  /** The image reference as the user gave it (what OLM will pull to unpack the bundle). */
  image: string;
  /** Digest of the pulled manifest, when pulled from a registry. */
  digest?: string;
  packageName: string;
  csv: KubeObject;
  /** Every manifest of the bundle, the CSV included, in file order. */
  objects: KubeObject[];
  annotations: Record<string, string>;
}

export interface PullOptions {
  registryConfig?: string;
  skipTlsVerify?: boolean;
  plainHttp?: boolean;
  caFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** Pulls `image` into `destDir`; the images module's pullBundleImage has this shape. */
export type PullBundle = (
  image: string,
  destDir: string,
  options: PullOptions,
) => Promise<{ digest: string; dir: string }>;

async function defaultPull(): Promise<PullBundle> {
  const images = (await import("../../images/index.js")) as unknown as { pullBundleImage?: PullBundle };
  if (!images.pullBundleImage)
    throw new TsopError("this build of tsop cannot pull bundle images (src/images has no pullBundleImage)");
  return images.pullBundleImage;
}

/** Pulls the bundle image into a temporary directory (outside the working directory), reads it, removes it. */
export async function pullBundle(
  image: string,
  options: PullOptions & { pull?: PullBundle },
): Promise<LoadedBundle> {
  const pull = options.pull ?? (await defaultPull());
  const dir = await mkdtemp(join(tmpdir(), "tsop-bundle-"));
  try {
    const pulled = await pull(image, dir, {
      registryConfig: options.registryConfig,
      skipTlsVerify: options.skipTlsVerify,
      plainHttp: options.plainHttp,
      caFile: options.caFile,
      env: options.env,
    });
    const bundle = await readBundleDir(pulled.dir, image);
    bundle.digest = pulled.digest;
    return bundle;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads metadata/annotations.yaml and the manifests directory of an unpacked bundle. */
export async function readBundleDir(dir: string, image: string): Promise<LoadedBundle> {
  const annotationsPath = join(dir, "metadata", "annotations.yaml");
  let annotations: Record<string, string>;
  try {
    const doc = parseAllDocuments(await readFile(annotationsPath, "utf8"))[0]?.toJS() as
      { annotations?: Record<string, string> } | undefined;
    annotations = doc?.annotations ?? {};
  } catch (error) {
    throw new InvalidInputError(`bundle image ${image} has no readable metadata/annotations.yaml`, {
      hint: "build the bundle with `tsop bundle` and push it with `tsop bundle push`",
      cause: error,
    });
  }
  const packageName = annotations[ANNOTATION_PACKAGE];
  if (!packageName) {
    throw new InvalidInputError(
      `bundle image ${image}: metadata/annotations.yaml has no ${ANNOTATION_PACKAGE} annotation`,
      { hint: "every bundle names its package there; rebuild the bundle with `tsop bundle`" },
    );
  }
  const manifestsDir = join(dir, (annotations[ANNOTATION_MANIFESTS] ?? "manifests/").replace(/\/+$/, ""));
  let files: string[];
  try {
    files = (await readdir(manifestsDir)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  } catch (error) {
    throw new InvalidInputError(`bundle image ${image} has no manifests directory`, { cause: error });
  }
  const objects: KubeObject[] = [];
  for (const file of files) {
    const text = await readFile(join(manifestsDir, file), "utf8");
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) {
        throw new InvalidInputError(
          `bundle image ${image}: manifests/${file} is not valid YAML: ${doc.errors[0]?.message}`,
        );
      }
      const value = doc.toJS() as KubeObject | null;
      if (value && typeof value === "object" && typeof value.kind === "string") objects.push(value);
    }
  }
  const csvs = objects.filter((o) => o.kind === "ClusterServiceVersion");
  if (csvs.length !== 1) {
    throw new InvalidInputError(
      `bundle image ${image} must hold exactly one ClusterServiceVersion in manifests/ (found ${csvs.length})`,
    );
  }
  const csv = csvs[0] as KubeObject;
  if (!csv.metadata?.name)
    throw new InvalidInputError(`bundle image ${image}: the ClusterServiceVersion has no metadata.name`);
  return { image, packageName, csv, objects, annotations };
}

export function csvVersion(csv: KubeObject): string {
  return typeof csv.spec?.version === "string" ? csv.spec.version : "";
}
