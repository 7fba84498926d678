// The one bundle loader: a bundle directory, an OCI image layout or a bundle image → the bundle
// model plus load findings. Used by `bundle validate`, `run bundle`, `run bundle-upgrade` and
// `tsop bundle`'s own check. Stages: classify the target → materialise it as a directory (an image
// or layout is unpacked into a temp dir by src/images) → read it safely (tree.ts) → model.ts →
// remove the temp dir. The returned bundle lives in memory; nothing on disk is kept.
import { stat } from "../../common/fs.js";
import { resolve } from "node:path";
import { AggregateTsopError, InvalidInputError, UsageError } from "../../common/errors.js";
import type { KubeObject } from "../../kube/objects.js";
import type { Finding, LoadedBundle } from "./types.js";
import { ANNOTATION_PACKAGE, readBundle } from "./model.js";
import type { TreeLimits } from "../../common/tree-limits.js";
import { DEFAULT_TREE_LIMITS, directoryTree } from "./tree.js";

export { ANNOTATION_MANIFESTS, ANNOTATION_METADATA, ANNOTATION_PACKAGE, readBundle } from "./model.js";
export { type BundleTree, memoryTree, UnsafeBundleError } from "./tree.js";

export type BundleTarget = { dir: string } | { layout: string; tag?: string } | { image: string };

/** Registry access for image targets (oci/'s PullOptions, without importing it eagerly). */
export interface RegistryAccess {
  registryConfig?: string;
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  caFile?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Pulls `image` into `destDir` (a test seam with the shape of oci/'s pullBundleImage). */
export type PullBundle = (
  image: string,
  destDir: string,
  options: RegistryAccess,
) => Promise<{ digest: string; dir: string }>;

export interface LoadOptions extends RegistryAccess {
  limits?: Partial<TreeLimits>;
  pull?: PullBundle;
  reporter?: import("../../common/reporter.js").Reporter;
}

export interface SourcedBundle extends LoadedBundle {
  source: { kind: "directory" | "oci-layout" | "image"; name: string; digest?: string };
}

const targetName = (target: BundleTarget) =>
  "dir" in target
    ? target.dir
    : "image" in target
      ? target.image
      : `oci:${target.layout}${target.tag ? `:${target.tag}` : ""}`;

/** Loads a bundle from a directory, an OCI layout or an image. Unsafe content fails; the rest are findings. */
export async function loadBundle(target: BundleTarget, options: LoadOptions = {}): Promise<SourcedBundle> {
  const limits = { ...DEFAULT_TREE_LIMITS, ...options.limits };
  const name = targetName(target);
  if ("dir" in target) {
    const bundle = await readBundle(await directoryTree(target.dir, name, limits));
    return { ...bundle, source: { kind: "directory", name } };
  }
  const { pullBundleToTemp } = await import("../../oci/pull.js");
  const pulled = await pullBundleToTemp("image" in target ? { image: target.image } : target, {
    ...options,
    ...(options.pull ? { pull: options.pull } : {}),
  });
  try {
    const bundle = await readBundle(await directoryTree(pulled.dir, name, limits));
    return {
      ...bundle,
      source: { kind: "image" in target ? "image" : "oci-layout", name, digest: pulled.digest },
    };
  } finally {
    await pulled.remove();
  }
}

/** An argument that can only be an image reference: a registry host, a tag or a digest. */
function looksLikeImage(arg: string): boolean {
  if (/^(\.{1,2}|~)?\//.test(arg) || arg.endsWith("/") || arg === "." || arg === "..") return false;
  if (arg.includes("@sha256:")) return true;
  const first = arg.split("/")[0] ?? "";
  const hasRegistry =
    arg.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  const last = arg.split("/").pop() ?? "";
  return hasRegistry || last.includes(":");
}

/**
 * What a command-line argument names: an existing directory (a bundle, or an OCI layout when it holds
 * `oci-layout`), `oci:<dir>[:<tag>]`, or an image reference. Anything else that does not exist is an
 * error, never an image pull; a malformed reference is a usage error before any registry is contacted.
 */
export async function bundleTarget(arg: string, cwd: string): Promise<BundleTarget> {
  if (arg.startsWith("oci:")) {
    const rest = arg.slice(4);
    const colon = rest.lastIndexOf(":");
    const layout = colon > 0 ? rest.slice(0, colon) : rest;
    return { layout: resolve(cwd, layout), ...(colon > 0 ? { tag: rest.slice(colon + 1) } : {}) };
  }
  const path = resolve(cwd, arg);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) {
    const { isOciLayout } = await import("../../oci/oci-layout-source.js");
    return (await isOciLayout(path)) ? { layout: path } : { dir: path };
  }
  if (info) throw new UsageError(`${arg} is a file; a bundle is a directory (with manifests/ and metadata/)`);
  if (!looksLikeImage(arg)) {
    throw new InvalidInputError(`bundle directory ${arg} does not exist`, {
      hint: "run `tsop bundle` first, or pass the directory that holds manifests/ and metadata/",
    });
  }
  const { parseReference } = await import("../../oci/reference.js");
  try {
    parseReference(arg);
  } catch (error) {
    throw new UsageError((error as Error).message, {
      hint: "an image reference looks like registry.example.com/team/bundle:v1",
    });
  }
  return { image: arg };
}

/** The bundle as `run bundle` installs it: the package, the one CSV and every object. */
export interface InstallableBundle {
  /** The image reference as the user gave it (what OLM will pull to unpack the bundle). */
  image: string;
  /** Digest of the pulled manifest. */
  digest?: string;
  packageName: string;
  csv: KubeObject;
  /** Every manifest of the bundle, the CSV included, in file order. */
  objects: KubeObject[];
  annotations: Record<string, string>;
  /** metadata/dependencies.yaml and metadata/properties.yaml, parsed, when the bundle has them. */
  dependencies?: unknown;
  properties?: unknown;
}

/** The registry and test-seam fields of a command's options, nothing else (no run timeouts, no reporter). */
export function registryAccess(options: LoadOptions): LoadOptions {
  const picked: LoadOptions = {};
  if (options.registryConfig) picked.registryConfig = options.registryConfig;
  if (options.skipTlsVerify) picked.skipTlsVerify = true;
  if (options.plainHttp) picked.plainHttp = options.plainHttp;
  if (options.caFile) picked.caFile = options.caFile;
  if (options.env) picked.env = options.env;
  if (options.pull) picked.pull = options.pull;
  return picked;
}

/** Loads a bundle image for installing: the same loader as `bundle validate`, refusing load errors. */
export async function loadInstallableBundle(
  image: string,
  options: LoadOptions = {},
): Promise<InstallableBundle> {
  const bundle = await loadBundle({ image }, options);
  return installable(bundle, image);
}

export function installable(bundle: SourcedBundle, image: string): InstallableBundle {
  const errors: Finding[] = bundle.loadFindings.filter((f) => f.level === "error");
  const where = `bundle image ${image}`;
  if (!bundle.annotations)
    errors.push({
      id: "FMT-04",
      level: "error",
      file: "metadata/annotations.yaml",
      message: "is missing or has no annotations map",
    });
  const packageName = bundle.annotations?.[ANNOTATION_PACKAGE];
  if (bundle.annotations && (typeof packageName !== "string" || packageName === ""))
    errors.push({
      id: "FMT-05",
      level: "error",
      file: bundle.annotationsFile,
      message: `has no ${ANNOTATION_PACKAGE} annotation`,
    });
  const csvs = bundle.manifests.filter((m) => m.object.kind === "ClusterServiceVersion");
  if (csvs.length !== 1 && !errors.some((f) => f.id === "LOAD-02"))
    errors.push({
      id: "CNT-03",
      level: "error",
      file: `${bundle.manifestsDir}/`,
      message: `must hold exactly one ClusterServiceVersion (found ${csvs.length})`,
    });
  const csv = csvs[0]?.object as KubeObject | undefined;
  if (csv && typeof (csv.metadata as { name?: unknown } | undefined)?.name !== "string")
    errors.push({
      id: "CSV-01",
      level: "error",
      file: csvs[0]!.file,
      path: "metadata.name",
      message: "the ClusterServiceVersion has no metadata.name",
    });
  if (errors.length > 0 || !csv) {
    throw new AggregateTsopError(
      `${where} cannot be installed:`,
      errors.map((f) => `${[f.file, f.path].filter(Boolean).join(": ")}: ${f.message}`),
      { hint: `run \`tsop bundle validate ${image}\` for the full report, fix the bundle and push it again` },
    );
  }
  const annotations = Object.fromEntries(
    Object.entries(bundle.annotations ?? {}).map(([k, v]) => [k, String(v)]),
  );
  return {
    image,
    ...(bundle.source.digest ? { digest: bundle.source.digest } : {}),
    packageName: String(packageName),
    csv,
    objects: bundle.manifests.map((m) => m.object as KubeObject),
    annotations,
    ...(bundle.dependencies !== undefined ? { dependencies: bundle.dependencies } : {}),
    ...(bundle.properties !== undefined ? { properties: bundle.properties } : {}),
  };
}
