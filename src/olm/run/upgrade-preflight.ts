// The reads before `tsop run bundle-upgrade` changes anything: the Subscription and catalog
// `run bundle` created, the installed CSV (replaceable by OLM?), the version order and skipRange,
// and the bundle set the catalog serves now (read back from its ConfigMaps). Only reads; what it
// finds feeds planUpgrade() in plan.ts.
import semver from "semver";
import { errorFrom, ExitCode, TsopError } from "../../common/errors.js";
import type { Reporter } from "../../common/reporter.js";
import type { InstallableBundle } from "../../bundle/load/index.js";
import type { KubeClient } from "../../kube/client.js";
import { listIn } from "../../kube/list.js";
import { describeRef, type KubeObject, type ObjectRef } from "../../kube/objects.js";
import { type CatalogContent, channelHead, csvVersion, parseCatalog, unpackPayload } from "./catalog.js";
import { requireOlm } from "../detect.js";
import { messages } from "./messages.js";
import { ANNOTATIONS, LABELS, MANAGED_BY, packageSelector, V1, V1ALPHA1 } from "./names.js";
import { type ServedBundle, servedBundles } from "./plan.js";

/** What `run bundle` (and earlier upgrades) left installed. */
export interface InstalledRelease {
  subscription: KubeObject;
  catalog: KubeObject;
  catalogRef: ObjectRef;
  /** The installed CSV's name and version. */
  installed: string;
  installedVersion: string;
  served: ServedBundle[];
  /** The catalog content served now. */
  content: CatalogContent;
}

export async function findInstall(
  client: KubeClient,
  reporter: Reporter,
  bundle: InstallableBundle,
  namespace: string,
): Promise<InstalledRelease> {
  const pkg = bundle.packageName;
  const csvName = bundle.csv.metadata.name ?? "";
  await requireOlm(client);
  const subscription = await tsopSubscription(client, pkg, namespace);
  const { catalog, catalogRef } = await tsopCatalog(client, subscription, namespace);
  const installed = (subscription.status?.installedCSV ?? subscription.status?.currentCSV) as
    string | undefined;
  if (!installed) {
    throw errorFrom(messages.noInstalledCsv(subscription.metadata.name ?? ""));
  }
  const served = servedBundles(catalog);
  if (served.some((b) => b.csv === csvName) || csvName === installed) {
    throw errorFrom(messages.alreadyServed(csvName));
  }
  const csvRef = { apiVersion: V1ALPHA1, kind: "ClusterServiceVersion", namespace, name: installed };
  const installedCsv = await client.get(csvRef);
  await checkReplaceable(client, installedCsv, namespace, csvName);
  const installedVersion = installedCsv
    ? csvVersion(installedCsv)
    : (served.find((b) => b.csv === installed)?.version ?? "");
  checkUpgradeOrder(reporter, bundle.csv, installed, installedVersion);
  const content = await servedContent(client, catalog, catalogRef, pkg, installed);
  return { subscription, catalog, catalogRef, installed, installedVersion, served, content };
}

/** The package's Subscription tsop created; a clear error when it is another catalog's or missing. */
async function tsopSubscription(client: KubeClient, pkg: string, namespace: string): Promise<KubeObject> {
  const subs = await listIn(client, V1ALPHA1, "Subscription", namespace, packageSelector(pkg));
  const sub = subs.find((s) => s.spec?.name === pkg);
  if (sub) return sub;
  const any = (await listIn(client, V1ALPHA1, "Subscription", namespace)).find((s) => s.spec?.name === pkg);
  if (any) {
    throw errorFrom(messages.notTsopCatalog(any.spec?.sourceNamespace ?? namespace, any.spec?.source ?? ""));
  }
  throw errorFrom(messages.notUpgradable(pkg, namespace));
}

async function tsopCatalog(
  client: KubeClient,
  sub: KubeObject,
  namespace: string,
): Promise<{ catalog: KubeObject; catalogRef: ObjectRef }> {
  const catalogRef: ObjectRef = {
    apiVersion: V1ALPHA1,
    kind: "CatalogSource",
    namespace: sub.spec?.sourceNamespace ?? namespace,
    name: sub.spec?.source ?? "",
  };
  const catalog = await client.get(catalogRef);
  if (!catalog || catalog.metadata.labels?.[LABELS.managedBy] !== MANAGED_BY) {
    throw errorFrom(messages.notTsopCatalog(catalogRef.namespace ?? "", catalogRef.name));
  }
  return { catalog, catalogRef };
}

/** Newer by semver (else refuse); a skipRange or replaces that does not name the installed CSV warns. */
function checkUpgradeOrder(
  reporter: Reporter,
  csv: KubeObject,
  installed: string,
  installedVersion: string,
): void {
  const csvName = csv.metadata.name ?? "";
  const version = csvVersion(csv);
  if (semver.valid(version) && semver.valid(installedVersion) && !semver.gt(version, installedVersion)) {
    throw errorFrom(messages.notNewer(csvName, version, installed, installedVersion));
  }
  const skipRange = csv.metadata.annotations?.["olm.skipRange"];
  if (skipRange && semver.valid(installedVersion) && !semver.satisfies(installedVersion, skipRange)) {
    reporter.warn(
      `olm.skipRange "${skipRange}" of ${csvName} does not include the installed version ${installedVersion}; the upgrade relies on replaces: ${installed}`,
    );
  }
  const declared = csv.spec?.replaces as string | undefined;
  if (declared && declared !== installed) {
    reporter.warn(
      `${csvName} declares spec.replaces: ${declared}, but ${installed} is installed; tsop serves it as replacing ${installed}`,
    );
  }
}

/** The bundle set the catalog serves now, read back from its ConfigMaps; its head must be installed. */
async function servedContent(
  client: KubeClient,
  catalog: KubeObject,
  catalogRef: ObjectRef,
  pkg: string,
  installed: string,
): Promise<CatalogContent> {
  const namespace = catalogRef.namespace ?? "";
  const revision = catalog.metadata.annotations?.[ANNOTATIONS.revision] ?? "";
  const cms = (await listIn(client, "v1", "ConfigMap", namespace, packageSelector(pkg)))
    .filter((cm) => cm.metadata.labels?.[LABELS.revision] === revision)
    .sort((a, b) =>
      (a.metadata.name ?? "").localeCompare(b.metadata.name ?? "", undefined, { numeric: true }),
    );
  const texts = cms.flatMap((cm) =>
    Object.values((cm.binaryData ?? {}) as Record<string, string>).map(unpackPayload),
  );
  const content = parseCatalog(texts, pkg);
  if (content.bundles.length === 0) {
    throw new TsopError(
      `the catalog content of ${describeRef(catalogRef)} is missing (no ConfigMaps for revision ${revision})`,
      {
        hint: `remove the install with \`tsop cleanup ${pkg} -n ${namespace}\` and run the new bundle with \`tsop run bundle\``,
      },
    );
  }
  const head = channelHead(content);
  if (head && head.name !== installed) {
    throw new TsopError(
      `the catalog's newest bundle is ${head.name}, but ${installed} is installed: an earlier upgrade did not finish`,
      { hint: `finish or undo it (\`tsop cleanup ${pkg} -n ${namespace}\` and run bundle again)` },
    );
  }
  return content;
}

const FAIL_FORWARD = "TechPreviewUnsafeFailForward";

/**
 * OLM moves a CSV to Replacing only from Succeeded, or from Failed when the namespace's
 * OperatorGroup has `spec.upgradeStrategy: TechPreviewUnsafeFailForward`; the new CSV waits in
 * Pending until its predecessor is Replacing. So upgrading from a Failed CSV without fail-forward
 * would hang until --timeout: refuse before changing anything, with OLM's reason.
 */
async function checkReplaceable(
  client: KubeClient,
  installed: KubeObject | undefined,
  namespace: string,
  csvName: string,
): Promise<void> {
  if (installed?.status?.phase !== "Failed") return;
  const groups = await listIn(client, V1, "OperatorGroup", namespace);
  // spec.upgradeStrategy is a plain string in the OperatorGroup CRD ("Default" when unset).
  const strategy = groups.length === 1 ? (groups[0]!.spec?.upgradeStrategy as unknown) : undefined;
  if (strategy === FAIL_FORWARD) return;
  const name = installed.metadata.name ?? "";
  const why = `${installed.status.reason ?? "no reason"}${installed.status.message ? `: ${installed.status.message}` : ""}`;
  const group =
    groups.length === 1
      ? `OperatorGroup ${namespace}/${groups[0]!.metadata.name}`
      : `the OperatorGroup of namespace ${namespace}`;
  throw new TsopError(
    `the installed ClusterServiceVersion ${namespace}/${name} is Failed (${why}); OLM does not replace a Failed CSV unless the namespace's OperatorGroup allows fail-forward upgrades, so ${csvName} would wait in phase Pending forever`,
    {
      hint: `fix ${name} until it is Succeeded and retry; or allow fail-forward upgrades on ${group} (kubectl patch operatorgroup ${groups[0]?.metadata.name ?? "<name>"} -n ${namespace} --type merge -p '{"spec":{"upgradeStrategy":"${FAIL_FORWARD}"}}', unsafe: OLM then skips its upgrade checks); or remove it with \`tsop cleanup\` and run the new bundle with \`tsop run bundle\``,
      exitCode: ExitCode.installFailed,
    },
  );
}
