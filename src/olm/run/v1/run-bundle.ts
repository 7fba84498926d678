// `tsop run bundle <image> --olm v1`: pull the bundle → refuse what OLM v1 cannot install (the
// olm-v1 validate suite, cert-manager for webhooks) → (dry run: print the plan) → preflight reads →
// push a one-bundle catalog image beside the bundle → namespace (if asked), installer
// ServiceAccount + ClusterRole + binding, ClusterCatalog → Serving → ClusterExtension pinned to the
// bundle's version → Installed. Any failure names the phase, adds the conditions of the
// ClusterCatalog and ClusterExtension and rolls back the session's journal (the v0 path's
// Session and failRun), the ClusterExtension first: its finalizers need the installer's RBAC.
import { randomBytes } from "node:crypto";
import { errorFrom, TsopError } from "../../../common/errors.js";
import type { Reporter } from "../../../common/reporter.js";
import {
  type InstallableBundle,
  installable,
  loadBundle,
  registryAccess,
} from "../../../bundle/load/index.js";
import type { KubeClient } from "../../../kube/client.js";
import { type ClusterOptions, connect } from "../../../kube/connect.js";
import { listIn } from "../../../kube/list.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "../../../kube/objects.js";
import { singleBundleCatalog } from "../catalog.js";
import { failRun } from "../failure.js";
import { messages } from "../messages.js";
import type { BundlePullOptions } from "../pull-options.js";
import { Session } from "../session.js";
import { catalogImageFor, pushCatalogImage } from "./catalog-image.js";
import { catalogServingCheck, extensionInstalledCheck, v1ConditionLines } from "./checks.js";
import { requireOlmV1, serves } from "./detect.js";
import { OLM_V1, planV1Objects, planV1RunBundle, type V1Plan, v1Names } from "./plan.js";
import { CERT_MANAGER_API, refuseForV1, v1Findings } from "./refusals.js";

export interface RunBundleV1Options extends ClusterOptions, BundlePullOptions {
  image: string;
  caFile?: string;
  /** Where to push the catalog image (default `<bundle-repository>-catalog:<tag>`). */
  catalogImage?: string;
  createNamespace?: boolean;
  timeoutMs: number;
  dryRun?: boolean;
  keepOnFailure?: boolean;
  signal?: AbortSignal;
  /** Test seam. */
  runId?: string;
}

export interface RunBundleV1Result {
  olm: "v1";
  dryRun: boolean;
  namespace: string;
  packageName: string;
  csv: string;
  version: string;
  catalogImage: string;
  clusterCatalog: string;
  clusterExtension: string;
  serviceAccount: string;
  objects: KubeObject[];
  created: ObjectRef[];
  phases: Array<{ phase: string; ms: number }>;
}

/** The v1 rollback deletes ClusterExtensions first (and waits): operator-controller uninstalls
 * the bundle under their finalizers, with the installer's RBAC. */
export const V1_DELETE_FIRST = ["ClusterExtension"] as const;

export async function runBundleV1(options: RunBundleV1Options): Promise<RunBundleV1Result> {
  const conn = options.dryRun ? undefined : await connect(options);
  try {
    if (conn) await requireOlmV1(conn.client);
    const certManager = conn
      ? await serves(conn.client, CERT_MANAGER_API.apiVersion, CERT_MANAGER_API.kind)
      : true;
    const bundle = await pullForV1(options, options.image, { certManager });
    const namespace = options.namespace ?? conn?.client.namespace ?? "default";
    const target = catalogImageFor(bundle, options.catalogImage);
    const runId = options.runId ?? (options.dryRun ? "dry-run" : randomBytes(4).toString("hex"));
    const plan = (catalogImage: string, createNamespace: boolean) =>
      planV1RunBundle({ bundle, namespace, runId, catalogImage, createNamespace });
    if (!conn) {
      const p = plan(target, options.createNamespace ?? false);
      options.reporter.info(
        `Dry run: nothing was pushed or sent to the cluster (the catalog image would be pushed to ${target}).`,
      );
      return result(p, target, true, planV1Objects(p), [], []);
    }
    const session = new Session(
      conn.client,
      options.reporter,
      options.timeoutMs,
      options.signal,
      "run bundle",
    );
    return await install(session, bundle, namespace, target, plan, options);
  } finally {
    if (conn?.owned) conn.client.close();
  }
}

/** Pulls and reads the bundle; refuses (before anything is created) what OLM v1 cannot install. */
export async function pullForV1(
  options: BundlePullOptions & { caFile?: string; reporter: Reporter; env?: NodeJS.ProcessEnv },
  image: string,
  cluster: { certManager: boolean },
): Promise<InstallableBundle> {
  options.reporter.info(`Pulling bundle ${image}`);
  const loaded = await loadBundle({ image }, registryAccess(options));
  const bundle = installable(loaded, image);
  options.reporter.info(`Bundle: package ${bundle.packageName}, ${bundle.csv.metadata.name ?? ""}`);
  const findings = v1Findings(loaded, cluster);
  for (const w of findings.warnings) options.reporter.warn(`${w.id}: ${w.message}`);
  refuseForV1(image, findings);
  return bundle;
}

async function install(
  session: Session,
  bundle: InstallableBundle,
  namespace: string,
  target: string,
  plan: (catalogImage: string, createNamespace: boolean) => V1Plan,
  options: RunBundleV1Options,
): Promise<RunBundleV1Result> {
  const { reporter, client } = session;
  const names = v1Names(bundle.packageName);
  try {
    const createNamespace = await session.phase("preflight", () =>
      preflight(client, bundle.packageName, namespace, options.createNamespace ?? false),
    );
    const catalogImage = await session.phase("push catalog image", async () => {
      const pinned = await pushCatalogImage(singleBundleCatalog(bundle), target, {
        ...registryAccess(options),
        ...(options.caFile ? { caFile: options.caFile } : {}),
        reporter,
      });
      reporter.success(`Pushed catalog image ${pinned}`);
      return pinned;
    });
    const p = plan(catalogImage, createNamespace);
    await session.phase("create objects", async () => {
      for (const obj of [
        p.namespaceObject,
        p.serviceAccount,
        p.clusterRole,
        p.clusterRoleBinding,
        p.clusterCatalog,
      ])
        if (obj) await session.create(obj);
      reporter.success(
        `Created ServiceAccount ${namespace}/${names.installer} (ClusterRole ${names.installer}) and ClusterCatalog ${names.catalog}`,
      );
    });
    await session.waitPhase("cluster catalog", refOf(p.clusterCatalog), catalogServingCheck(catalogImage), {
      before: "the ClusterCatalog was Serving",
      what: `ClusterCatalog ${names.catalog} to serve ${catalogImage}`,
    });
    await session.phase("create extension", async () => {
      await session.create(p.clusterExtension);
      reporter.success(
        `Created ClusterExtension ${names.extension} (package ${p.packageName}, version ${p.version})`,
      );
    });
    await session.waitPhase("extension", refOf(p.clusterExtension), extensionInstalledCheck(p.version), {
      before: "the ClusterExtension was Installed",
      what: `ClusterExtension ${names.extension} to install ${p.csvName}`,
    });
    reporter.success(`OLM v1 installed ${p.csvName} in namespace ${namespace}`);
    return result(p, catalogImage, false, [], session.created, session.phases);
  } catch (error) {
    throw await failRun(session, error, {
      refs: {},
      keepOnFailure: options.keepOnFailure ?? false,
      diagnostics: () => v1Diagnostics(client, bundle.packageName),
      deleteFirst: V1_DELETE_FIRST,
    });
  }
}

/** Reads only: no earlier install of the package; the namespace exists (or --create-namespace). */
async function preflight(
  client: KubeClient,
  packageName: string,
  namespace: string,
  createNamespace: boolean,
): Promise<boolean> {
  const names = v1Names(packageName);
  for (const ref of [
    { apiVersion: OLM_V1, kind: "ClusterExtension", name: names.extension },
    { apiVersion: OLM_V1, kind: "ClusterCatalog", name: names.catalog },
  ]) {
    if (await client.get(ref))
      throw new TsopError(`${describeRef(ref)} already exists`, {
        hint: `remove the earlier install with \`tsop cleanup ${packageName} --olm v1\`, or upgrade it with \`tsop run bundle-upgrade <image> --olm v1\``,
      });
  }
  const other = (await listIn(client, OLM_V1, "ClusterExtension", "")).find(
    (e) =>
      (e.spec?.source as { catalog?: { packageName?: string } } | undefined)?.catalog?.packageName ===
      packageName,
  );
  if (other)
    throw new TsopError(
      `ClusterExtension ${other.metadata.name ?? ""} already installs package ${packageName}`,
      {
        hint: "OLM v1 installs a package once per cluster: delete that ClusterExtension first",
      },
    );
  const ns = await client.get({ apiVersion: "v1", kind: "Namespace", name: namespace });
  if (!ns && !createNamespace) throw errorFrom(messages.namespaceMissing(namespace));
  return !ns;
}

/** The conditions of the package's ClusterCatalog and ClusterExtension, for a failed phase. */
export async function v1Diagnostics(client: KubeClient, packageName: string): Promise<string[]> {
  const names = v1Names(packageName);
  const lines: string[] = [];
  for (const ref of [
    { apiVersion: OLM_V1, kind: "ClusterCatalog", name: names.catalog },
    { apiVersion: OLM_V1, kind: "ClusterExtension", name: names.extension },
  ]) {
    const obj = await client.get(ref).catch(() => undefined);
    const conditions = v1ConditionLines(obj);
    if (conditions.length) lines.push(`${describeRef(ref)}:`, ...conditions.map((l) => `  ${l}`));
  }
  return lines;
}

function result(
  plan: V1Plan,
  catalogImage: string,
  dryRun: boolean,
  objects: KubeObject[],
  created: ObjectRef[],
  phases: Array<{ phase: string; ms: number }>,
): RunBundleV1Result {
  return {
    olm: "v1",
    dryRun,
    namespace: plan.namespace,
    packageName: plan.packageName,
    csv: plan.csvName,
    version: plan.version,
    catalogImage,
    clusterCatalog: plan.clusterCatalog.metadata.name ?? "",
    clusterExtension: plan.clusterExtension.metadata.name ?? "",
    serviceAccount: plan.serviceAccount.metadata.name ?? "",
    objects,
    created,
    phases,
  };
}
