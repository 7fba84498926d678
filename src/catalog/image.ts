// `tsop catalog image`: the rendered catalog as an image, without a container engine and
// reproducibly (as `tsop bundle push`): one layer holding /configs/<package>/catalog.yaml (sorted,
// fixed mtimes from SOURCE_DATE_EPOCH or 0, uid/gid 0) on an opm base read by digest (refused
// when its entrypoint is not opm: opm-base.ts), whose entrypoint serves it (`opm serve /configs`),
// labelled operators.operatorframework.io.index.configs.v1=/configs. A multi-platform base gives
// one image per platform and an index. Pushed to a registry, or written to an OCI image layout.
import { resolve } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { OPM_IMAGE } from "../common/pins.js";
import type { Reporter } from "../common/reporter.js";
import { readBaseImage } from "../operator-image/base.js";
import { buildIndex, derivePlatformImage } from "../operator-image/image-config.js";
import { type BuiltApp, pushApp, writeAppLayout } from "../operator-image/ship.js";
import { buildTreeLayer } from "../operator-image/tree-layer.js";
import { tsopVersion } from "../common/version.js";
import { epochFrom } from "../oci/bundle-image.js";
import { sha256Digest } from "../oci/digest.js";
import { type ResourceDescriptor, resource } from "../oci/provenance/statement.js";
import { attachSbom, catalogSbom, CYCLONEDX_MEDIA_TYPE, hashFiles, ociPurl } from "../oci/sbom/index.js";
import { RegistryClient, type RegistryClientOptions } from "../oci/client.js";
import { unreadableBase } from "../oci/errors.js";
import { MediaType } from "../oci/media-types.js";
import { checkLayoutDir } from "../oci/push.js";
import { familiarReference, parseReference } from "../oci/reference.js";
import { readCatalogDir } from "./fbc.js";
import { opmPath } from "./opm-base.js";

export const CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1";
export const CONFIGS_DIR = "/configs";
/** The default base: opm's image at the version tsop pins, resolved to its digest at build time. */
export const DEFAULT_CATALOG_BASE = OPM_IMAGE;
// No --cache-dir: opm (v1.4x) then insists on a cache built into the image ("integrity check
// failed") and refuses to start; without it, opm builds its cache in a temp dir when it starts.
const serve = (opm: string) => ({ Entrypoint: [opm], Cmd: ["serve", CONFIGS_DIR] });

export interface CatalogImageOptions extends RegistryClientOptions {
  /** The rendered FBC directory (<package>/catalog.yaml). */
  dir: string;
  /** Where to push (a tag); with ociLayout, only its tag names the image in the layout. */
  image: string;
  base?: string;
  ociLayout?: string;
  /** false: do not attach the SBOM to the pushed image (--no-sbom). */
  sbom?: boolean;
  reporter: Reporter;
}

export interface CatalogImageResult {
  digest: string;
  /** image@digest (pushed) or <layout>:<tag>. */
  destination: string;
  base: { reference: string; digest: string };
  labels: Record<string, string>;
  packages: string[];
  files: string[];
  /** The CycloneDX SBOM: its sha256 digest, and when attached, the artifact manifest's digest. */
  sbom: { digest: string; attached?: string };
  /** What the image was built from, for its provenance: the base by digest, each file by digest. */
  resolvedDependencies: ResourceDescriptor[];
}

function assemble(base: Awaited<ReturnType<typeof readBaseImage>>, app: BuiltApp["images"]): BuiltApp {
  const index = base.mediaType === MediaType.ociIndex || base.mediaType === MediaType.dockerManifestList;
  if (!index && app.length === 1)
    return { images: app, index: undefined, top: app[0]!.manifestDescriptor, topBody: app[0]!.manifest };
  const built = buildIndex(app, base.mediaType === MediaType.dockerManifestList);
  return { images: app, index: built, top: built.descriptor, topBody: built.body };
}

export async function buildCatalogImage(options: CatalogImageOptions): Promise<CatalogImageResult> {
  const { reporter } = options;
  const target = parseReference(options.image);
  if (target.digest && !options.ociLayout)
    throw new InvalidInputError(`${options.image} has a digest; push to a tag (the digest is printed)`, {
      exitCode: 2,
    });
  if (options.ociLayout) await checkLayoutDir(options.ociLayout);
  const dir = resolve(options.dir);
  const catalog = await readCatalogDir(dir);
  const packages = [...new Set(catalog.packages.map((p) => p.name))].sort();
  if (packages.length === 0)
    throw new InvalidInputError(`${options.dir} holds no olm.package blob; nothing to serve`, {
      hint: "Render the catalog first: tsop catalog render",
    });
  const epochSet = epochFrom({ ...(options.env ? { env: options.env } : {}) });
  const epoch = epochSet ?? 0;
  const layer = await buildTreeLayer([{ from: dir, to: "configs" }], epoch);
  const baseRef = parseReference(options.base ?? DEFAULT_CATALOG_BASE);
  const client = new RegistryClient({ ...options, reporter });
  try {
    const base = await readBaseImage(client, baseRef, undefined).catch((error: unknown) => {
      throw unreadableBase(
        error,
        "the catalog's base image",
        `The catalog's base is ${familiarReference(baseRef)}; to build on a mirror of opm's image (or one with the same /bin/opm), pass --base <ref> or set TSOP_CATALOG_BASE.`,
      );
    });
    // Before anything is written: a base without opm would give a catalog image that cannot start.
    const opm = base.images.map((platform) => opmPath(familiarReference(baseRef), platform));
    const baseName = `${baseRef.registry}/${baseRef.repository}`;
    const labels = {
      [CONFIGS_LABEL]: CONFIGS_DIR,
      "org.opencontainers.image.base.digest": base.digest,
      "org.opencontainers.image.base.name": baseName,
    };
    const created = new Date(epoch * 1000).toISOString().replace(".000Z", "Z");
    const images = base.images.map((platform, i) => {
      const run: Record<string, unknown> = {
        ...((platform.config.config as Record<string, unknown> | undefined) ?? {}),
        ...serve(opm[i]!),
      };
      run.Labels = { ...((run.Labels as Record<string, string> | undefined) ?? {}), ...labels };
      return derivePlatformImage(platform, [{ what: "configs", layer }], run, created, "tsop catalog image");
    });
    const app = assemble(base, images);
    // The layer's paths are configs/…; the files sit in `dir` without that prefix.
    const inDir = layer.files.filter((f) => f.startsWith("configs/")).map((f) => f.slice("configs/".length));
    const files = (await hashFiles(dir, inDir)).map((f) => ({ ...f, path: `configs/${f.path}` }));
    const sbom = catalogSbom({
      subject: { repository: `${target.registry}/${target.repository}`, tag: target.tag ?? "latest" },
      base: { repository: baseName, digest: base.digest },
      bundleImages: catalog.bundles.map((b) => b.image),
      files,
      tool: { version: tsopVersion() },
      ...(epochSet !== undefined ? { epoch: epochSet } : {}),
    });
    const result: CatalogImageResult = {
      digest: app.top.digest,
      destination: "",
      base: { reference: `${baseName}@${base.digest}`, digest: base.digest },
      labels,
      packages,
      files: layer.files,
      sbom: { digest: sha256Digest(sbom) },
      resolvedDependencies: [
        resource("base", base.digest, ociPurl(baseName, base.digest)),
        ...files.map((f) => resource(f.path, f.digest)),
      ],
    };
    if (options.ociLayout) {
      const layout = resolve(options.ociLayout);
      const tag = target.tag ?? "latest";
      await writeAppLayout(client, app, layout, tag, baseRef);
      reporter.success(`Wrote the catalog image ${app.top.digest} to the OCI layout ${layout} (tag ${tag})`);
      return { ...result, destination: `${layout}:${tag}` };
    }
    const pinned = await pushApp(client, app, target, baseRef, reporter);
    if (options.sbom === false) return { ...result, destination: pinned };
    const attached = await attachSbom(client, target, app.top, sbom, CYCLONEDX_MEDIA_TYPE);
    reporter.debug(`SBOM ${attached.digest} attached (tags ${attached.tags.join(", ")})`);
    return { ...result, destination: pinned, sbom: { ...result.sbom, attached: attached.digest } };
  } finally {
    client.close();
  }
}
