// `tsop image build` (operator-image/): the project's build output and production dependencies as
// layers on a Node base image, without a container engine (what ko does for Go). The plan: build the
// project when a source is newer than dist/ (compile.ts), check it, read the base by digest, install dependencies in a staging dir (or reuse their cached
// layer), refuse native addons that would cross architectures, pack the dependency and app layers,
// derive one image per platform (and an index), then push or write an OCI layout (through oci/).
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { writeFileAtomic } from "../common/fs.js";
import { sha256Digest } from "../oci/digest.js";
import type { Reporter } from "../common/reporter.js";
import { epochFrom } from "../oci/bundle-image.js";
import { RegistryClient, type RegistryClientOptions } from "../oci/client.js";
import { MediaType } from "../oci/media-types.js";
import { familiarReference, type ImageReference, parseReference } from "../oci/reference.js";
import { unreadableBase } from "../oci/errors.js";
import { type BaseImage, type Platform, parsePlatforms, platformName, readBaseImage } from "./base.js";
import { DEFAULT_BASE_IMAGE } from "./defaults.js";
import { type AppLayer, buildIndex, buildPlatformImage } from "./image-config.js";
import { imageLabels, readProjectPackage } from "./labels.js";
import { type BuiltApp, pushApp, writeAppLayout } from "./ship.js";
import { buildIfStale } from "./compile.js";
import { dependencyLayer } from "./dependencies.js";
import { imageSbom } from "./sbom.js";
import { attachSbom, CYCLONEDX_MEDIA_TYPE, ociPurl } from "../oci/sbom/index.js";
import { type ResourceDescriptor, resource } from "../oci/provenance/statement.js";
import { checkProjectFiles, findNativeAddons } from "./stage.js";
import { buildTreeLayer, type TreeSource } from "./tree-layer.js";

export interface ImageBuildOptions extends RegistryClientOptions {
  /** The project directory (package.json, package-lock.json, dist/). */
  project: string;
  base?: string;
  push?: string;
  ociLayout?: string;
  platforms?: string;
  /** false: run npm ci even when the dependencies layer of the same inputs is cached (--no-cache). */
  cache?: boolean;
  /** false: ship dist/ as it is, even when a source is newer (--no-build). */
  build?: boolean;
  /** Write the CycloneDX SBOM here too (it is attached to a pushed image regardless, unless sbom is false). */
  sbomFile?: string;
  /** false: do not attach the SBOM to the pushed image (--no-sbom). */
  sbom?: boolean;
  reporter: Reporter;
}

export interface ImageBuildResult {
  /** The top manifest's digest (the index's for a multi-platform build). */
  digest: string;
  /** target@digest when pushed. */
  pinned?: string;
  base: { reference: string; digest: string };
  platforms: string[];
  layers: { dependencies?: string; app: string };
  labels: Record<string, string>;
  destination?: string;
  /** The SBOM: its sha256 digest, and when attached, the artifact manifest's digest. */
  sbom: { digest: string; file?: string; attached?: string };
  /** What the image was built from, for its provenance: the base and package-lock.json by digest. */
  resolvedDependencies: ResourceDescriptor[];
}

const HOST_ARCH: Record<string, string> = {
  x64: "amd64",
  arm64: "arm64",
  ppc64: "ppc64le",
  s390x: "s390x",
  arm: "arm",
};

function checkNativeAddons(addons: readonly string[], platforms: readonly Platform[]): void {
  const here = HOST_ARCH[process.arch] ?? process.arch;
  const foreign = platforms.filter(
    (p) => p.architecture !== here || p.os !== "linux" || process.platform !== "linux",
  );
  if (addons.length === 0 || foreign.length === 0) return;
  throw new InvalidInputError(
    `native addons built for ${process.platform}/${here} would be copied into the ${foreign.map(platformName).join(", ")} image: ${addons.slice(0, 5).join(", ")}${addons.length > 5 ? ", …" : ""}`,
    {
      hint: `Build only for this machine's platform (--platform linux/${here}), or build each platform on its own machine (or with a Dockerfile).`,
    },
  );
}

function targetReference(options: ImageBuildOptions): ImageReference | undefined {
  if (!options.push) return undefined;
  const ref = parseReference(options.push);
  if (ref.digest) {
    throw new InvalidInputError(
      `--push ${options.push} has a digest; push to a tag (the digest is printed)`,
      {
        exitCode: 2,
      },
    );
  }
  return ref;
}

async function appLayer(project: string, epoch: number): Promise<AppLayer> {
  const app: TreeSource[] = [
    { from: resolve(project, "package.json"), to: "app/package.json" },
    { from: resolve(project, "dist"), to: "app/dist" },
  ];
  return { what: "app", layer: await buildTreeLayer(app, epoch) };
}

function assemble(
  base: BaseImage,
  layers: AppLayer[],
  labels: Record<string, string>,
  created: string,
): BuiltApp {
  const images = base.images.map((image) => buildPlatformImage(image, layers, labels, created));
  const single =
    images.length === 1 &&
    !(base.mediaType === MediaType.ociIndex || base.mediaType === MediaType.dockerManifestList);
  if (single) {
    const only = images[0]!;
    return { images, index: undefined, top: only.manifestDescriptor, topBody: only.manifest };
  }
  const index = buildIndex(images, base.mediaType === MediaType.dockerManifestList);
  return { images, index, top: index.descriptor, topBody: index.body };
}

/** How to build on another base, for the message when the base cannot be read. */
function otherBase(name: string, isDefault: boolean): string {
  return isDefault
    ? `tsop's default base is ${name}; to build on another Node.js 20 image in a registry you can reach, pass --base <ref> or set TSOP_IMAGE_BASE.`
    : "To build on another Node.js 20 image, pass another --base <ref> (or set TSOP_IMAGE_BASE without --base).";
}

export async function buildImage(options: ImageBuildOptions): Promise<ImageBuildResult> {
  const { reporter } = options;
  const project = resolve(options.project);
  const target = targetReference(options);
  const wanted = options.platforms ? parsePlatforms(options.platforms) : undefined;
  const epoch = epochFrom({ ...(options.env ? { env: options.env } : {}) }) ?? 0;
  if (options.build !== false) await buildIfStale(project, reporter);
  await checkProjectFiles(project);
  const pkg = await readProjectPackage(project);
  const baseRef = parseReference(options.base ?? DEFAULT_BASE_IMAGE);
  const client = new RegistryClient({ ...options, reporter });
  try {
    const base = await readBaseImage(client, baseRef, wanted).catch((error: unknown) => {
      throw unreadableBase(
        error,
        "the base image",
        otherBase(familiarReference(baseRef), options.base === undefined),
      );
    });
    reporter.debug(
      `base ${familiarReference(baseRef)} is ${base.digest} (${base.images.map((i) => platformName(i.platform)).join(", ")})`,
    );
    const deps = await dependencyLayer(project, {
      epoch,
      cache: options.cache !== false,
      reporter,
      ...(options.env ? { env: options.env } : {}),
    });
    checkNativeAddons(
      [...deps.addons, ...(await findNativeAddons(project, ["dist"]))],
      base.images.map((i) => i.platform),
    );
    const layers: AppLayer[] = [
      ...(deps.layer ? [{ what: "dependencies", layer: deps.layer }] : []),
      await appLayer(project, epoch),
    ];
    const baseName = `${baseRef.registry}/${baseRef.repository}`;
    const labels = await imageLabels(project, pkg, { name: baseName, digest: base.digest });
    const created = new Date(epoch * 1000).toISOString().replace(".000Z", "Z");
    const app = assemble(base, layers, labels, created);
    const sbom = await imageSbom(
      project,
      pkg,
      { repository: baseName, digest: base.digest },
      epochFrom({ ...(options.env ? { env: options.env } : {}) }),
    );
    if (options.sbomFile) await writeFileAtomic(options.sbomFile, sbom);
    const result: ImageBuildResult = {
      digest: app.top.digest,
      base: { reference: `${baseName}@${base.digest}`, digest: base.digest },
      platforms: app.images.map((i) => platformName(i.platform)),
      layers: {
        ...(deps.layer ? { dependencies: deps.layer.digest } : {}),
        app: layers[layers.length - 1]!.layer.digest,
      },
      labels,
      sbom: { digest: sha256Digest(sbom), ...(options.sbomFile ? { file: options.sbomFile } : {}) },
      resolvedDependencies: [
        resource("base", base.digest, ociPurl(baseName, base.digest)),
        resource("package-lock.json", sha256Digest(await readFile(join(project, "package-lock.json")))),
      ],
    };
    const shipped = await ship(client, app, target, baseRef, options, result);
    if (!target || options.ociLayout || options.sbom === false) return shipped;
    const attached = await attachSbom(client, target, app.top, sbom, CYCLONEDX_MEDIA_TYPE);
    reporter.debug(`SBOM ${attached.digest} attached (tags ${attached.tags.join(", ")})`);
    return { ...shipped, sbom: { ...shipped.sbom, attached: attached.digest } };
  } finally {
    client.close();
  }
}

async function ship(
  client: RegistryClient,
  app: BuiltApp,
  target: ImageReference | undefined,
  baseRef: ImageReference,
  options: ImageBuildOptions,
  result: ImageBuildResult,
): Promise<ImageBuildResult> {
  const { reporter } = options;
  if (options.ociLayout) {
    const dir = resolve(options.ociLayout);
    const refName = target?.tag ?? "latest";
    await writeAppLayout(client, app, dir, refName, baseRef);
    reporter.success(`Wrote the image ${app.top.digest} to the OCI layout ${dir} (tag ${refName})`);
    return { ...result, destination: `${dir}:${refName}` };
  }
  if (!target) {
    reporter.success(
      `Built the image ${app.top.digest} (not pushed: give --push <ref> or --oci-layout <dir>)`,
    );
    return result;
  }
  const pinned = await pushApp(client, app, target, baseRef, reporter);
  return { ...result, pinned, destination: familiarReference(target) };
}
