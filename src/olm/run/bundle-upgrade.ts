// `tsop run bundle-upgrade <image>`: find the Subscription and catalog `run bundle` created → check
// the new bundle is an upgrade of the installed CSV (package, semver order, skipRange) → serve the
// old bundles plus the new one (replaces → installed CSV) from a new registry pod → switch the
// CatalogSource to it → approve the new InstallPlan → new CSV Succeeded, old CSV replaced → remove
// the previous registry pod and ConfigMaps. --rollback-on-failure points the catalog back.
import { randomBytes } from "node:crypto";
import semver from "semver";
import { ExitCode, TsopError } from "../../common/errors.js";
import { CATALOG_INIT_IMAGE } from "../../common/pins.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import { goneCheck, waitFor } from "../../kube/wait.js";
import { loadInstallableBundle, type PullBundle, registryAccess } from "../../bundle/load/index.js";
import { csvVersion } from "./catalog.js";
import { channelHead, parseCatalog, unpackPayload, withUpgrade } from "./catalog.js";
import { catalogServingCheck, registryPodCheck } from "./checks.js";
import {
  type ClusterOptions,
  connect,
  failRun,
  listIn,
  ownerReferenceTo,
  requireOlm,
  servedBundles,
} from "./cluster.js";
import { resolveAndInstall } from "./install-flow.js";
import { messages } from "./messages.js";
import { ANNOTATIONS, LABELS, MANAGED_BY, packageSelector, V1, V1ALPHA1 } from "./names.js";
import {
  type CatalogOptions,
  catalogAnnotations,
  catalogObjects,
  type SecurityContextConfig,
  type ServedBundle,
} from "./plan.js";
import { DEFAULT_CSV_FAILED_GRACE_MS } from "./run-bundle.js";
import { Session } from "./session.js";

export interface BundleUpgradeOptions extends ClusterOptions {
  image: string;
  timeoutMs: number;
  initImage?: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContext?: SecurityContextConfig;
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  registryConfig?: string;
  rollbackOnFailure?: boolean;
  csvFailedGraceMs?: number;
  signal?: AbortSignal;
  pull?: PullBundle;
  runId?: string;
  payloadLimit?: number;
}

export interface BundleUpgradeResult {
  namespace: string;
  packageName: string;
  from: { csv: string; version: string };
  to: { csv: string; version: string };
  catalogSource: string;
  subscription: string;
  installPlan: string;
  phases: Array<{ phase: string; ms: number }>;
}

export async function bundleUpgrade(options: BundleUpgradeOptions): Promise<BundleUpgradeResult> {
  const reporter = options.reporter;
  const conn = await connect(options);
  const client = conn.client;
  try {
    reporter.info(`Pulling bundle ${options.image}`);
    const bundle = await loadInstallableBundle(options.image, registryAccess(options));
    const csvName = bundle.csv.metadata.name ?? "";
    const version = csvVersion(bundle.csv);
    const pkg = bundle.packageName;
    const namespace = options.namespace ?? client.namespace;
    const session = new Session(client, reporter, options.timeoutMs, options.signal, "run bundle-upgrade");

    // ---- find what run bundle created, and check the upgrade (reads only) ----
    const found = await session.phase("preflight", async () => {
      await requireOlm(client);
      const subs = (await listIn(client, V1ALPHA1, "Subscription", namespace, packageSelector(pkg))).filter(
        (s) => s.spec?.name === pkg,
      );
      const sub = subs[0];
      if (!sub) {
        const any = (await listIn(client, V1ALPHA1, "Subscription", namespace)).find(
          (s) => s.spec?.name === pkg,
        );
        if (any) {
          const m = messages.notTsopCatalog(any.spec?.sourceNamespace ?? namespace, any.spec?.source ?? "");
          throw new TsopError(m.message, { hint: m.hint });
        }
        const m = messages.notUpgradable(pkg, namespace);
        throw new TsopError(m.message, { hint: m.hint });
      }
      const catalogRef: ObjectRef = {
        apiVersion: V1ALPHA1,
        kind: "CatalogSource",
        namespace: sub.spec?.sourceNamespace ?? namespace,
        name: sub.spec?.source ?? "",
      };
      const catalog = await client.get(catalogRef);
      if (!catalog || catalog.metadata.labels?.[LABELS.managedBy] !== MANAGED_BY) {
        const m = messages.notTsopCatalog(catalogRef.namespace ?? "", catalogRef.name);
        throw new TsopError(m.message, { hint: m.hint });
      }
      const installed = (sub.status?.installedCSV ?? sub.status?.currentCSV) as string | undefined;
      if (!installed) {
        const m = messages.noInstalledCsv(sub.metadata.name ?? "");
        throw new TsopError(m.message, { hint: m.hint });
      }
      const served = servedBundles(catalog);
      if (served.some((b) => b.csv === csvName) || csvName === installed) {
        const m = messages.alreadyServed(csvName);
        throw new TsopError(m.message, { hint: m.hint });
      }
      const installedCsv = await client.get({
        apiVersion: V1ALPHA1,
        kind: "ClusterServiceVersion",
        namespace,
        name: installed,
      });
      await checkReplaceable(client, installedCsv, namespace, csvName);
      const installedVersion = installedCsv
        ? csvVersion(installedCsv)
        : (served.find((b) => b.csv === installed)?.version ?? "");
      if (semver.valid(version) && semver.valid(installedVersion) && !semver.gt(version, installedVersion)) {
        const m = messages.notNewer(csvName, version, installed, installedVersion);
        throw new TsopError(m.message, { hint: m.hint });
      }
      const skipRange = bundle.csv.metadata.annotations?.["olm.skipRange"];
      if (skipRange && semver.valid(installedVersion) && !semver.satisfies(installedVersion, skipRange)) {
        reporter.warn(
          `olm.skipRange "${skipRange}" of ${csvName} does not include the installed version ${installedVersion}; the upgrade relies on replaces: ${installed}`,
        );
      }
      const declared = bundle.csv.spec?.replaces as string | undefined;
      if (declared && declared !== installed) {
        reporter.warn(
          `${csvName} declares spec.replaces: ${declared}, but ${installed} is installed; tsop serves it as replacing ${installed}`,
        );
      }
      // The bundle set the catalog serves now, read back from its ConfigMaps.
      const revision = catalog.metadata.annotations?.[ANNOTATIONS.revision] ?? "";
      const cms = (
        await listIn(client, "v1", "ConfigMap", catalogRef.namespace ?? namespace, packageSelector(pkg))
      )
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
          {
            hint: `finish or undo it (\`tsop cleanup ${pkg} -n ${namespace}\` and run bundle again)`,
          },
        );
      }
      return { sub, catalog, catalogRef, installed, installedVersion, served, content, revision };
    });

    const catalogOptions: CatalogOptions = {
      namespace: found.catalogRef.namespace ?? namespace,
      runId: options.runId ?? randomBytes(4).toString("hex"),
      indexImage: found.catalog.metadata.annotations?.[ANNOTATIONS.indexImage] ?? "",
      initImage: options.initImage ?? CATALOG_INIT_IMAGE,
      pullSecretName: options.pullSecretName ?? (found.catalog.spec?.secrets as string[] | undefined)?.[0],
      serviceAccount: options.serviceAccount,
      securityContext: options.securityContext ?? "restricted",
      payloadLimit: options.payloadLimit,
    };
    if (!catalogOptions.indexImage)
      throw new TsopError(`${describeRef(found.catalogRef)} has no ${ANNOTATIONS.indexImage} annotation`);
    const next = catalogObjects(withUpgrade(found.content, bundle, found.installed), catalogOptions);
    const served: ServedBundle[] = [...found.served, { image: bundle.image, csv: csvName, version }];
    const subRef = refOf(found.sub);
    const previousPlan = found.sub.status?.installPlanRef?.name as string | undefined;
    const created: ObjectRef[] = [];
    const previousCatalog = {
      address: found.catalog.spec?.address,
      annotations: found.catalog.metadata.annotations ?? {},
    };
    let switched = false;
    const refs = { catalog: found.catalogRef, pod: refOf(next.pod), subscription: subRef };
    try {
      await session.phase("create catalog", async () => {
        const owner = ownerReferenceTo(found.catalog);
        for (const obj of [...next.configMaps, next.pod, next.service]) {
          await session.create({ ...obj, metadata: { ...obj.metadata, ownerReferences: [owner] } });
          created.push(refOf(obj));
        }
        reporter.success(`Created registry pod ${next.pod.metadata.name} serving ${served.length} bundle(s)`);
      });
      await session.phase("registry pod", () =>
        waitFor(client, [{ ref: refOf(next.pod), check: registryPodCheck }], {
          timeoutMs: session.remaining("the registry pod was ready"),
          reporter,
          what: `registry ${describeRef(refOf(next.pod))} to serve the catalog`,
          signal: session.signal,
        }),
      );
      await session.phase("switch catalog", async () => {
        session.checkInterrupted();
        await client.mergePatch(found.catalogRef, {
          metadata: { annotations: catalogAnnotations(served, next, catalogOptions) },
          spec: { address: next.address },
        });
        switched = true;
        reporter.success(
          `CatalogSource ${found.catalogRef.name} now serves ${csvName} (replaces ${found.installed})`,
        );
      });
      await session.phase("catalog", () =>
        waitFor(client, [{ ref: found.catalogRef, check: catalogServingCheck(next.address) }], {
          timeoutMs: session.remaining("the catalog was READY"),
          reporter,
          what: `${describeRef(found.catalogRef)} to be READY on the new registry pod`,
          signal: session.signal,
        }),
      );
      const installed = await resolveAndInstall(session, subRef, {
        csvName,
        previousPlan,
        csvFailedGraceMs: options.csvFailedGraceMs ?? DEFAULT_CSV_FAILED_GRACE_MS,
      });
      const oldCsv: ObjectRef = {
        apiVersion: V1ALPHA1,
        kind: "ClusterServiceVersion",
        namespace,
        name: found.installed,
      };
      await session.phase("old csv", () =>
        waitFor(client, [{ ref: oldCsv, check: goneCheck }], {
          timeoutMs: session.remaining("the previous CSV was replaced"),
          reporter,
          what: `${describeRef(oldCsv)} to be replaced`,
          signal: session.signal,
        }),
      );
      // The previous registry pod, Service and ConfigMaps serve nothing any more.
      const old = await previousCatalogObjects(
        client,
        found.catalogRef.namespace ?? namespace,
        pkg,
        next.revision,
      );
      for (const ref of old) await client.delete(ref).catch(() => false);
      reporter.success(`Upgraded ${pkg} from ${found.installed} to ${csvName}`);
      return {
        namespace,
        packageName: pkg,
        from: { csv: found.installed, version: found.installedVersion },
        to: { csv: csvName, version },
        catalogSource: found.catalogRef.name,
        subscription: subRef.name,
        installPlan: installed.installPlan,
        phases: session.phases,
      };
    } catch (error) {
      let rollback = created;
      const notes: string[] = [];
      if (switched && !options.rollbackOnFailure) {
        // The Subscription may already be moving to the new bundle: keep the catalog serving it.
        rollback = [];
        notes.push(
          `the catalog still serves ${csvName}; run again with --rollback-on-failure to point it back to the previous bundle set, or remove everything with \`tsop cleanup ${pkg} -n ${namespace}\``,
        );
      } else if (switched) {
        await client
          .mergePatch(found.catalogRef, {
            metadata: { annotations: previousCatalog.annotations },
            spec: { address: previousCatalog.address },
          })
          .then(() =>
            notes.push(
              `rolled CatalogSource ${found.catalogRef.name} back to the previous bundle set (${found.served.map((b) => b.csv).join(", ")})`,
            ),
          )
          .catch((e: Error) => notes.push(`could not roll the CatalogSource back: ${e.message}`));
        const newCsv = await client
          .get({ apiVersion: V1ALPHA1, kind: "ClusterServiceVersion", namespace, name: csvName })
          .catch(() => undefined);
        if (newCsv)
          notes.push(
            `OLM already created ${csvName}; OLM does not downgrade, so remove it with \`tsop cleanup ${pkg} -n ${namespace}\` and run the old bundle again if needed`,
          );
      }
      const failure = await failRun(session, error, { refs, rollback, keepOnFailure: false });
      if (notes.length === 0) return Promise.reject(failure);
      throw new TsopError(`${failure.message}\n${notes.join("\n")}`, {
        hint: failure.hint,
        exitCode: failure.exitCode,
        cause: failure.cause,
      });
    }
  } finally {
    if (conn.owned) client.close();
  }
}

/** Registry pods, Services and ConfigMaps of the package's catalog other than `keepRevision`. */
async function previousCatalogObjects(
  client: Session["client"],
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

const FAIL_FORWARD = "TechPreviewUnsafeFailForward";

/**
 * OLM moves a CSV to Replacing only from Succeeded, or from Failed when the namespace's
 * OperatorGroup has `spec.upgradeStrategy: TechPreviewUnsafeFailForward`; the new CSV waits in
 * Pending until its predecessor is Replacing. So upgrading from a Failed CSV without fail-forward
 * would hang until --timeout: refuse before changing anything, with OLM's reason.
 */
async function checkReplaceable(
  client: Session["client"],
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
