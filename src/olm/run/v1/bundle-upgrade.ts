// `tsop run bundle-upgrade <image> --olm v1`: pull the new bundle (refusing what OLM v1 cannot
// install) → the package's ClusterCatalog and ClusterExtension that `run bundle --olm v1` created →
// the bundles the catalog serves (its annotation), pulled again → a catalog image holding them and
// the new bundle as the channel's head (replaces the last one, its olm.skipRange kept) → the
// ClusterCatalog points at it (Serving that digest) → the ClusterExtension's version moves → the new
// version Installed. Nothing is created, so a failure removes nothing; --rollback-on-failure
// points the ClusterCatalog and the ClusterExtension back.
import { TsopError } from "../../../common/errors.js";
import { loadInstallableBundle, registryAccess } from "../../../bundle/load/index.js";
import type { KubeClient } from "../../../kube/client.js";
import { type ClusterOptions, connect } from "../../../kube/connect.js";
import { type KubeObject, type ObjectRef, refOf } from "../../../kube/objects.js";
import { type CatalogContent, csvVersion, singleBundleCatalog, withUpgrade } from "../catalog.js";
import { failRun } from "../failure.js";
import { ANNOTATIONS } from "../names.js";
import { type ServedBundle, servedBundles } from "../plan.js";
import type { BundlePullOptions } from "../pull-options.js";
import { Session } from "../session.js";
import { catalogImageFor, pushCatalogImage } from "./catalog-image.js";
import { catalogServingCheck, extensionInstalledCheck } from "./checks.js";
import { requireOlmV1, serves } from "./detect.js";
import { OLM_V1, v1Names } from "./plan.js";
import { CERT_MANAGER_API } from "./refusals.js";
import { pullForV1, v1Diagnostics } from "./run-bundle.js";

export interface BundleUpgradeV1Options extends ClusterOptions, BundlePullOptions {
  image: string;
  caFile?: string;
  catalogImage?: string;
  timeoutMs: number;
  rollbackOnFailure?: boolean;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface BundleUpgradeV1Result {
  olm: "v1";
  dryRun: boolean;
  namespace: string;
  packageName: string;
  from: { csv: string; version: string };
  to: { csv: string; version: string };
  catalogImage: string;
  clusterCatalog: string;
  clusterExtension: string;
  /** Dry run: the ClusterCatalog and ClusterExtension as the upgrade would change them. */
  objects: KubeObject[];
  phases: Array<{ phase: string; ms: number }>;
}

/** The ClusterCatalog and ClusterExtension with the upgrade applied (pure). */
export function upgradedV1Objects(
  catalog: KubeObject,
  extension: KubeObject,
  catalogImage: string,
  served: ServedBundle[],
  version: string,
): { catalog: KubeObject; extension: KubeObject } {
  const spec = extension.spec as { source: { catalog: Record<string, unknown> } };
  return {
    catalog: {
      ...catalog,
      metadata: {
        ...catalog.metadata,
        annotations: { ...catalog.metadata.annotations, [ANNOTATIONS.bundles]: JSON.stringify(served) },
      },
      spec: { ...catalog.spec, source: { type: "Image", image: { ref: catalogImage } } },
    },
    extension: {
      ...extension,
      spec: { ...spec, source: { ...spec.source, catalog: { ...spec.source.catalog, version } } },
    },
  };
}

export async function bundleUpgradeV1(options: BundleUpgradeV1Options): Promise<BundleUpgradeV1Result> {
  const conn = await connect(options);
  const client = conn.client;
  try {
    await requireOlmV1(client);
    const certManager = await serves(client, CERT_MANAGER_API.apiVersion, CERT_MANAGER_API.kind);
    const bundle = await pullForV1(options, options.image, { certManager });
    const names = v1Names(bundle.packageName);
    const catalogRef: ObjectRef = { apiVersion: OLM_V1, kind: "ClusterCatalog", name: names.catalog };
    const extensionRef: ObjectRef = { apiVersion: OLM_V1, kind: "ClusterExtension", name: names.extension };
    const [catalog, extension] = [await client.get(catalogRef), await client.get(extensionRef)];
    if (!catalog || !extension)
      throw new TsopError(
        `package ${bundle.packageName} was not installed by \`tsop run bundle --olm v1\`: no ClusterCatalog ${names.catalog} and ClusterExtension ${names.extension}`,
        {
          hint: `install it first: tsop run bundle <image> --olm v1`,
        },
      );
    const served = servedBundles(catalog);
    const previous = served[served.length - 1];
    if (!previous)
      throw new TsopError(
        `ClusterCatalog ${names.catalog} has no ${ANNOTATIONS.bundles} annotation; tsop cannot tell what it serves`,
        {
          hint: `reinstall: tsop cleanup ${bundle.packageName} --olm v1, then tsop run bundle <image> --olm v1`,
        },
      );
    const version = csvVersion(bundle.csv);
    const csvName = bundle.csv.metadata.name ?? "";
    if (served.some((b) => b.csv === csvName))
      throw new TsopError(`${csvName} is already in the catalog of ${bundle.packageName}`, {
        hint: "build the new bundle with a new version (tsop bundle --version)",
      });
    const namespace = String(extension.spec?.namespace ?? "");
    const from = { csv: previous.csv, version: previous.version };
    const target = catalogImageFor(bundle, options.catalogImage);
    const servedNow = [...served, { image: bundle.image, csv: csvName, version }];
    const upgraded = (image: string) => upgradedV1Objects(catalog, extension, image, servedNow, version);
    const base = {
      olm: "v1" as const,
      namespace,
      packageName: bundle.packageName,
      from,
      to: { csv: csvName, version },
      clusterCatalog: names.catalog,
      clusterExtension: names.extension,
    };
    if (options.dryRun) {
      const objects = upgraded(target);
      return {
        ...base,
        dryRun: true,
        catalogImage: target,
        objects: [objects.catalog, objects.extension],
        phases: [],
      };
    }
    let content: CatalogContent | undefined;
    for (const b of served) {
      const pulled = await loadInstallableBundle(b.image, registryAccess(options));
      content = content
        ? withUpgrade(content, pulled, content.entries[content.entries.length - 1]!.name)
        : singleBundleCatalog(pulled);
    }
    content = withUpgrade(content!, bundle, previous.csv);
    const session = new Session(
      client,
      options.reporter,
      options.timeoutMs,
      options.signal,
      "run bundle-upgrade",
    );
    const restore = () => restoreV1(client, catalog, extension);
    try {
      const catalogImage = await session.phase("push catalog image", async () => {
        const pinned = await pushCatalogImage(content!, target, {
          ...registryAccess(options),
          ...(options.caFile ? { caFile: options.caFile } : {}),
          reporter: options.reporter,
        });
        options.reporter.success(`Pushed catalog image ${pinned} (${servedNow.length} bundles)`);
        return pinned;
      });
      const objects = upgraded(catalogImage);
      await session.phase("switch catalog", async () => {
        await client.mergePatch(catalogRef, {
          metadata: { annotations: objects.catalog.metadata.annotations },
          spec: objects.catalog.spec,
        });
      });
      await session.waitPhase("cluster catalog", catalogRef, catalogServingCheck(catalogImage), {
        before: "the ClusterCatalog served the new catalog",
        what: `ClusterCatalog ${names.catalog} to serve ${catalogImage}`,
      });
      await session.phase("move extension", () =>
        client.mergePatch(extensionRef, { spec: { source: { catalog: { version } } } }),
      );
      options.reporter.success(`ClusterExtension ${names.extension}: version ${from.version} → ${version}`);
      await session.waitPhase("extension", extensionRef, extensionInstalledCheck(version), {
        before: "the ClusterExtension was Installed at the new version",
        what: `ClusterExtension ${names.extension} to install ${csvName}`,
      });
      options.reporter.success(`OLM v1 upgraded ${bundle.packageName} from ${from.csv} to ${csvName}`);
      return { ...base, dryRun: false, catalogImage, objects: [], phases: session.phases };
    } catch (error) {
      const failed = await failRun(session, error, {
        refs: {},
        keepOnFailure: false,
        rollback: false,
        diagnostics: () => v1Diagnostics(client, bundle.packageName),
      });
      if (!options.rollbackOnFailure) throw failed;
      await restore().catch(() => undefined);
      throw new TsopError(
        `${failed.message}\nPointed ClusterCatalog ${names.catalog} and ClusterExtension ${names.extension} back to ${from.csv}.`,
        {
          hint: failed.hint,
          exitCode: failed.exitCode,
          cause: failed,
        },
      );
    }
  } finally {
    if (conn.owned) conn.client.close();
  }
}

/** --rollback-on-failure: the ClusterCatalog's image and annotation and the ClusterExtension's version as they were. */
async function restoreV1(client: KubeClient, catalog: KubeObject, extension: KubeObject): Promise<void> {
  await client.mergePatch(refOf(catalog), {
    metadata: {
      annotations: { [ANNOTATIONS.bundles]: catalog.metadata.annotations?.[ANNOTATIONS.bundles] ?? null },
    },
    spec: catalog.spec,
  });
  const version =
    (extension.spec?.source as { catalog?: { version?: string } } | undefined)?.catalog?.version ?? null;
  await client.mergePatch(refOf(extension), { spec: { source: { catalog: { version } } } });
}
