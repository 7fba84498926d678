// `tsop run bundle-upgrade <image>`: find the Subscription and catalog `run bundle` created and check
// the new bundle is an upgrade of the installed CSV (upgrade-preflight.ts, reads only) → plan the new
// bundle set (planUpgrade in plan.ts, pure; --dry-run prints it) → create the new registry pod →
// switch the CatalogSource to it → approve the new InstallPlan → new CSV Succeeded, old CSV replaced
// → remove the previous registry pod and ConfigMaps. --rollback-on-failure points the catalog back.
import { randomBytes } from "node:crypto";
import { TsopError } from "../../common/errors.js";
import { CATALOG_INIT_IMAGE } from "../../common/pins.js";
import { type InstallableBundle, loadInstallableBundle, registryAccess } from "../../bundle/load/index.js";
import type { KubeClient } from "../../kube/client.js";
import { type ClusterOptions, connect } from "../../kube/connect.js";
import { listIn } from "../../kube/list.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import { goneCheck } from "../../kube/wait.js";
import { catalogServingCheck, registryPodCheck } from "./checks.js";
import { failRun } from "./failure.js";
import { resolveAndInstall } from "./install-flow.js";
import { ANNOTATIONS, LABELS, packageSelector, V1ALPHA1 } from "./names.js";
import {
  type CatalogOptions,
  planUpgrade,
  type SecurityContextConfig,
  type UpgradePlan,
  upgradeObjects,
} from "./plan.js";
import { DEFAULT_CSV_FAILED_GRACE_MS } from "./run-bundle.js";
import type { BundlePullOptions } from "./pull-options.js";
import { Session } from "./session.js";
import { findInstall, type InstalledRelease } from "./upgrade-preflight.js";

export interface BundleUpgradeOptions extends ClusterOptions, BundlePullOptions {
  image: string;
  timeoutMs: number;
  initImage?: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContext?: SecurityContextConfig;
  rollbackOnFailure?: boolean;
  /** Print what the upgrade would create or change; only reads the cluster. */
  dryRun?: boolean;
  csvFailedGraceMs?: number;
  signal?: AbortSignal;
  runId?: string;
  payloadLimit?: number;
}

export interface BundleUpgradeResult {
  dryRun: boolean;
  namespace: string;
  packageName: string;
  from: { csv: string; version: string };
  to: { csv: string; version: string };
  catalogSource: string;
  subscription: string;
  /** Empty on a dry run. */
  installPlan: string;
  /** Dry run: every object the upgrade would create or change, in order. */
  objects: KubeObject[];
  phases: Array<{ phase: string; ms: number }>;
}

export async function bundleUpgrade(options: BundleUpgradeOptions): Promise<BundleUpgradeResult> {
  const reporter = options.reporter;
  const conn = await connect(options);
  const client = conn.client;
  try {
    reporter.info(`Pulling bundle ${options.image}`);
    const bundle = await loadInstallableBundle(options.image, registryAccess(options));
    const namespace = options.namespace ?? client.namespace;
    const session = new Session(client, reporter, options.timeoutMs, options.signal, "run bundle-upgrade");
    const found = await session.phase("preflight", () => findInstall(client, reporter, bundle, namespace));
    const plan = planUpgrade({
      bundle,
      catalogSource: found.catalog,
      content: found.content,
      served: found.served,
      installed: found.installed,
      options: catalogOptions(found, options, namespace),
    });
    if (options.dryRun) {
      reporter.info("Dry run: the cluster was only read; nothing was created or changed.");
      return result(plan, found, namespace, session, { dryRun: true, installPlan: "" });
    }
    return await upgrade(session, plan, found, bundle, options);
  } finally {
    if (conn.owned) client.close();
  }
}

/** The new registry pod runs with the catalog's index image and pull secret unless flags say otherwise. */
function catalogOptions(
  found: InstalledRelease,
  options: BundleUpgradeOptions,
  namespace: string,
): CatalogOptions {
  const out: CatalogOptions = {
    namespace: found.catalogRef.namespace ?? namespace,
    runId: options.runId ?? (options.dryRun ? "dry-run" : randomBytes(4).toString("hex")),
    indexImage: found.catalog.metadata.annotations?.[ANNOTATIONS.indexImage] ?? "",
    initImage: options.initImage ?? CATALOG_INIT_IMAGE,
    pullSecretName: options.pullSecretName ?? (found.catalog.spec?.secrets as string[] | undefined)?.[0],
    serviceAccount: options.serviceAccount,
    securityContext: options.securityContext ?? "restricted",
    payloadLimit: options.payloadLimit,
  };
  if (!out.indexImage)
    throw new TsopError(`${describeRef(found.catalogRef)} has no ${ANNOTATIONS.indexImage} annotation`);
  return out;
}

function result(
  plan: UpgradePlan,
  found: InstalledRelease,
  namespace: string,
  session: Session,
  run: { dryRun: boolean; installPlan: string },
): BundleUpgradeResult {
  return {
    dryRun: run.dryRun,
    namespace,
    packageName: plan.packageName,
    from: { csv: found.installed, version: found.installedVersion },
    to: { csv: plan.csvName, version: plan.version },
    catalogSource: plan.catalogRef.name,
    subscription: found.subscription.metadata.name ?? "",
    installPlan: run.installPlan,
    objects: run.dryRun ? upgradeObjects(plan) : [],
    phases: session.phases,
  };
}

/** The cluster half: new registry → switch the catalog → OLM upgrades → old CSV gone → old registry gone. */
async function upgrade(
  session: Session,
  plan: UpgradePlan,
  found: InstalledRelease,
  bundle: InstallableBundle,
  options: BundleUpgradeOptions,
): Promise<BundleUpgradeResult> {
  const subRef = refOf(found.subscription);
  const switched = { done: false };
  try {
    await createRegistry(session, plan);
    await switchCatalog(session, plan, switched);
    const installed = await resolveAndInstall(session, subRef, {
      csvName: plan.csvName,
      previousPlan: found.subscription.status?.installPlanRef?.name as string | undefined,
      csvFailedGraceMs: options.csvFailedGraceMs ?? DEFAULT_CSV_FAILED_GRACE_MS,
    });
    await waitForOldCsv(session, plan);
    await removePreviousRegistry(session, plan);
    session.reporter.success(`Upgraded ${bundle.packageName} from ${plan.installed} to ${plan.csvName}`);
    const namespace = subRef.namespace ?? plan.namespace;
    return result(plan, found, namespace, session, { dryRun: false, installPlan: installed.installPlan });
  } catch (error) {
    throw await failUpgrade(session, plan, found, subRef, switched.done, options, error);
  }
}

/** The new ConfigMaps, registry Pod and Service (owned by the CatalogSource), then the pod serving. */
async function createRegistry(session: Session, plan: UpgradePlan): Promise<void> {
  await session.phase("create catalog", async () => {
    for (const obj of [...plan.catalog.configMaps, plan.catalog.pod, plan.catalog.service])
      await session.create(obj);
    session.reporter.success(
      `Created registry pod ${plan.catalog.pod.metadata.name} serving ${plan.served.length} bundle(s)`,
    );
  });
  await session.waitPhase("registry pod", refOf(plan.catalog.pod), registryPodCheck, {
    before: "the registry pod was ready",
    what: `registry ${describeRef(refOf(plan.catalog.pod))} to serve the catalog`,
  });
}

/** Points the CatalogSource at the new registry and waits until OLM serves from it. */
async function switchCatalog(
  session: Session,
  plan: UpgradePlan,
  switched: { done: boolean },
): Promise<void> {
  await session.phase("switch catalog", async () => {
    session.checkInterrupted();
    await session.client.mergePatch(plan.catalogRef, plan.catalogPatch);
    switched.done = true;
    session.reporter.success(
      `CatalogSource ${plan.catalogRef.name} now serves ${plan.csvName} (replaces ${plan.installed})`,
    );
  });
  await session.waitPhase("catalog", plan.catalogRef, catalogServingCheck(plan.catalog.address), {
    before: "the catalog was READY",
    what: `${describeRef(plan.catalogRef)} to be READY on the new registry pod`,
  });
}

async function waitForOldCsv(session: Session, plan: UpgradePlan): Promise<void> {
  const oldCsv: ObjectRef = {
    apiVersion: V1ALPHA1,
    kind: "ClusterServiceVersion",
    namespace: plan.namespace,
    name: plan.installed,
  };
  await session.waitPhase("old csv", oldCsv, goneCheck, {
    before: "the previous CSV was replaced",
    what: `${describeRef(oldCsv)} to be replaced`,
  });
}

/** The previous registry pod, Service and ConfigMaps serve nothing any more. */
async function removePreviousRegistry(session: Session, plan: UpgradePlan): Promise<void> {
  const old = await previousCatalogObjects(
    session.client,
    plan.catalogRef.namespace ?? plan.namespace,
    plan.packageName,
    plan.catalog.revision,
  );
  for (const ref of old) await session.client.delete(ref).catch(() => false);
}

/**
 * Before the switch the journal (the new registry) is rolled back. After it the Subscription may
 * already be moving to the new bundle: the catalog keeps serving it, unless --rollback-on-failure
 * points it back (OLM does not downgrade a CSV it already created; the error says so).
 */
async function failUpgrade(
  session: Session,
  plan: UpgradePlan,
  found: InstalledRelease,
  subRef: ObjectRef,
  switched: boolean,
  options: BundleUpgradeOptions,
  error: unknown,
): Promise<TsopError> {
  const { client } = session;
  const pkg = plan.packageName;
  const namespace = subRef.namespace ?? plan.namespace;
  const notes: string[] = [];
  if (switched && !options.rollbackOnFailure) {
    notes.push(
      `the catalog still serves ${plan.csvName}; run again with --rollback-on-failure to point it back to the previous bundle set, or remove everything with \`tsop cleanup ${pkg} -n ${namespace}\``,
    );
  } else if (switched) {
    await client
      .mergePatch(plan.catalogRef, {
        metadata: { annotations: found.catalog.metadata.annotations ?? {} },
        spec: { address: found.catalog.spec?.address },
      })
      .then(() =>
        notes.push(
          `rolled CatalogSource ${plan.catalogRef.name} back to the previous bundle set (${found.served.map((b) => b.csv).join(", ")})`,
        ),
      )
      .catch((e: Error) => notes.push(`could not roll the CatalogSource back: ${e.message}`));
    const newCsv = await client
      .get({ apiVersion: V1ALPHA1, kind: "ClusterServiceVersion", namespace, name: plan.csvName })
      .catch(() => undefined);
    if (newCsv)
      notes.push(
        `OLM already created ${plan.csvName}; OLM does not downgrade, so remove it with \`tsop cleanup ${pkg} -n ${namespace}\` and run the old bundle again if needed`,
      );
  }
  const refs = { catalog: plan.catalogRef, pod: refOf(plan.catalog.pod), subscription: subRef };
  const failure = await failRun(session, error, {
    refs,
    keepOnFailure: false,
    rollback: !(switched && !options.rollbackOnFailure),
  });
  if (notes.length === 0) return failure;
  return new TsopError(`${failure.message}\n${notes.join("\n")}`, {
    hint: failure.hint,
    exitCode: failure.exitCode,
    cause: failure.cause,
  });
}

/** Registry pods, Services and ConfigMaps of the package's catalog other than `keepRevision`. */
async function previousCatalogObjects(
  client: KubeClient,
  namespace: string,
  pkg: string,
  keepRevision: string,
): Promise<ObjectRef[]> {
  const refs: ObjectRef[] = [];
  for (const kind of ["Pod", "Service", "ConfigMap"]) {
    for (const obj of await listIn(client, "v1", kind, namespace, packageSelector(pkg))) {
      const rev = (obj as KubeObject).metadata.labels?.[LABELS.revision];
      if (rev && rev !== keepRevision) refs.push(refOf(obj));
    }
  }
  return refs;
}
