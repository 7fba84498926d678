// `tsop run bundle <image>`: pull the bundle → choose the install mode → (dry run: print the plan)
// → preflight reads → create catalog (CatalogSource, ConfigMaps, registry Pod + Service) → registry
// pod ready → catalog READY → OperatorGroup if needed → Subscription (Manual) → approve the one
// InstallPlan for this bundle → CSV Succeeded. Any failure names the phase, adds OLM's diagnostics
// and removes what this run created (unless --keep-on-failure).
import { randomBytes } from "node:crypto";
import { TsopError, UsageError } from "../../common/errors.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../../common/pins.js";
import { waitFor } from "../../kube/wait.js";
import { type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import { loadInstallableBundle, type PullBundle, registryAccess } from "../../bundle/load/index.js";
import { singleBundleCatalog } from "./catalog.js";
import { catalogReadyCheck, registryPodCheck } from "./checks.js";
import { type ClusterOptions, connect, failRun, listIn, ownerReferenceTo, requireOlm } from "./cluster.js";
import { resolveAndInstall } from "./install-flow.js";
import {
  checkExistingGroup,
  type InstallModeFlag,
  modeOfGroup,
  parseInstallMode,
  type ResolvedInstallMode,
  resolveInstallMode,
} from "./install-mode.js";
import { messages } from "./messages.js";
import { LABELS, MANAGED_BY, runNames, V1, V1ALPHA1 } from "./names.js";
import {
  type CatalogOptions,
  planObjects,
  planRunBundle,
  type RunPlan,
  type SecurityContextConfig,
} from "./plan.js";
import { Session } from "./session.js";

export interface RunBundleOptions extends ClusterOptions {
  image: string;
  createNamespace?: boolean;
  /** `Type` or `Type=ns1,ns2` (parsed here when given as text). */
  installMode?: string | InstallModeFlag;
  timeoutMs: number;
  indexImage?: string;
  initImage?: string;
  pullSecretName?: string;
  serviceAccount?: string;
  securityContext?: SecurityContextConfig;
  /** For tsop's own pull of the bundle image. */
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  registryConfig?: string;
  dryRun?: boolean;
  keepOnFailure?: boolean;
  /** How long a CSV may stay Failed (with a reason OLM retries) before the run fails. */
  csvFailedGraceMs?: number;
  signal?: AbortSignal;
  /** Test seams. */
  pull?: PullBundle;
  runId?: string;
  payloadLimit?: number;
}

export interface RunBundleResult {
  dryRun: boolean;
  namespace: string;
  packageName: string;
  csv: string;
  version: string;
  installMode: ResolvedInstallMode;
  catalogSource: string;
  subscription: string;
  operatorGroup?: { name: string; created: boolean };
  installPlan?: string;
  /** Dry run: every object that would be created, in order. */
  objects: KubeObject[];
  /** Objects this run created. */
  created: ObjectRef[];
  phases: Array<{ phase: string; ms: number }>;
}

export const DEFAULT_CSV_FAILED_GRACE_MS = 60_000;

export async function runBundle(options: RunBundleOptions): Promise<RunBundleResult> {
  const reporter = options.reporter;
  const flag =
    typeof options.installMode === "string" ? parseInstallMode(options.installMode) : options.installMode;
  // Connect before pulling: a bad kubeconfig fails before any download (not needed for --dry-run).
  const conn = options.dryRun ? undefined : await connect(options);
  try {
    reporter.info(`Pulling bundle ${options.image}`);
    const bundle = await loadInstallableBundle(options.image, registryAccess(options));
    const csvName = bundle.csv.metadata.name ?? "";
    reporter.info(`Bundle: package ${bundle.packageName}, ${csvName}`);
    const namespace = options.namespace ?? conn?.client.namespace ?? (await kubeconfigNamespace(options));
    // Without --install-mode, a CSV that supports only SingleNamespace/MultiNamespace can still go into
    // a namespace whose existing OperatorGroup fits it: the preflight decides; else this error stands.
    let installMode: ResolvedInstallMode;
    let modeUndecided: UsageError | undefined;
    try {
      installMode = resolveInstallMode(bundle.csv, namespace, flag);
    } catch (error) {
      if (flag || !conn || !(error instanceof UsageError)) throw error;
      modeUndecided = error;
      installMode = { type: "OwnNamespace", targetNamespaces: [namespace], source: "csv" };
    }
    const catalogOptions: CatalogOptions = {
      namespace,
      runId: options.runId ?? randomBytes(4).toString("hex"),
      indexImage: options.indexImage ?? OPM_IMAGE,
      initImage: options.initImage ?? CATALOG_INIT_IMAGE,
      pullSecretName: options.pullSecretName,
      serviceAccount: options.serviceAccount,
      securityContext: options.securityContext ?? "restricted",
      payloadLimit: options.payloadLimit,
    };
    const content = singleBundleCatalog(bundle);
    const base = { bundle, content, installMode, ...catalogOptions };

    if (!conn) {
      const plan = planRunBundle({
        ...base,
        runId: options.runId ?? "dry-run",
        createNamespace: options.createNamespace ?? false,
        createOperatorGroup: true,
      });
      reporter.info(
        `Dry run: nothing was sent to the cluster. The OperatorGroup is included; a real run reuses the namespace's existing group when it is compatible.`,
      );
      return result(plan, true, planObjects(plan), [], [], {
        name: plan.operatorGroup?.metadata.name ?? "",
        created: true,
      });
    }

    const client = conn.client;
    const session = new Session(client, reporter, options.timeoutMs, options.signal, "run bundle");
    let plan: RunPlan | undefined;
    let operatorGroup: { name: string; created: boolean } | undefined;
    const rollback: ObjectRef[] = [];
    const refs: { catalog?: ObjectRef; pod?: ObjectRef; subscription?: ObjectRef } = {};
    try {
      const preflight = await session.phase("preflight", () =>
        preflightChecks(session, options, bundle.packageName, namespace, flag, bundle.csv),
      );
      operatorGroup = preflight.operatorGroup;
      if (modeUndecided && !preflight.groupMode) throw modeUndecided;
      plan = planRunBundle({
        ...base,
        installMode: preflight.groupMode ?? installMode,
        createNamespace: preflight.createNamespace,
        createOperatorGroup: !preflight.operatorGroup,
      });
      const p = plan;
      refs.catalog = refOf(p.catalogSource);
      refs.pod = refOf(p.catalog.pod);
      refs.subscription = refOf(p.subscription);

      await session.phase("create catalog", async () => {
        if (p.namespaceObject) {
          await session.create(p.namespaceObject);
          rollback.push(refOf(p.namespaceObject));
          reporter.success(`Created namespace ${namespace}`);
        }
        const cs = await session.create(p.catalogSource);
        rollback.push(refOf(p.catalogSource));
        const owner = ownerReferenceTo({
          ...p.catalogSource,
          metadata: { ...p.catalogSource.metadata, uid: cs.metadata.uid },
        });
        for (const obj of [...p.catalog.configMaps, p.catalog.pod, p.catalog.service]) {
          await session.create({ ...obj, metadata: { ...obj.metadata, ownerReferences: [owner] } });
          rollback.push(refOf(obj));
        }
        reporter.success(
          `Created CatalogSource ${p.catalogSource.metadata.name} (${p.catalog.configMaps.length} ConfigMap(s), registry pod ${p.catalog.pod.metadata.name})`,
        );
      });
      await session.phase("registry pod", () =>
        waitFor(client, [{ ref: refOf(p.catalog.pod), check: registryPodCheck }], {
          timeoutMs: session.remaining("the registry pod was ready"),
          reporter,
          what: `registry pod ${namespace}/${p.catalog.pod.metadata.name} to serve the catalog`,
          signal: session.signal,
        }),
      );
      await session.phase("catalog", () =>
        waitFor(client, [{ ref: refOf(p.catalogSource), check: catalogReadyCheck }], {
          timeoutMs: session.remaining("the catalog was READY"),
          reporter,
          what: `CatalogSource ${namespace}/${p.catalogSource.metadata.name} to be READY`,
          signal: session.signal,
        }),
      );
      if (p.operatorGroup) {
        const og = p.operatorGroup;
        await session.phase("operator group", async () => {
          await session.create(og);
          rollback.push(refOf(og));
          operatorGroup = { name: og.metadata.name ?? "", created: true };
          reporter.success(
            `Created OperatorGroup ${og.metadata.name} (${installMode.type}${installMode.targetNamespaces.length ? `: ${installMode.targetNamespaces.join(", ")}` : ""})`,
          );
        });
      }
      // CRDs that exist before the install are never removed by a rollback.
      const ownedCrds = ownedCrdNames(bundle.csv);
      const preexisting = new Set(
        (await listIn(client, "apiextensions.k8s.io/v1", "CustomResourceDefinition", ""))
          .map((c) => c.metadata.name ?? "")
          .filter((n) => ownedCrds.includes(n)),
      );
      await session.phase("create subscription", async () => {
        await session.create(p.subscription);
      });
      rollback.push(refOf(p.subscription));
      rollback.push({ apiVersion: V1ALPHA1, kind: "ClusterServiceVersion", namespace, name: csvName });
      for (const crd of ownedCrds.filter((n) => !preexisting.has(n))) {
        rollback.push({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: crd });
      }
      reporter.success(
        `Created Subscription ${p.subscription.metadata.name} (channel ${content.channel}, approval Manual, starting at ${csvName})`,
      );
      const installed = await resolveAndInstall(session, refOf(p.subscription), {
        csvName,
        csvFailedGraceMs: options.csvFailedGraceMs ?? DEFAULT_CSV_FAILED_GRACE_MS,
      });
      reporter.success(`OLM installed ${csvName} in namespace ${namespace}`);
      return {
        ...result(p, false, [], session.created, session.phases, operatorGroup),
        installPlan: installed.installPlan,
      };
    } catch (error) {
      if (plan) {
        // InstallPlans are owned by the Subscription; delete the ones OLM made for it explicitly.
        for (const ip of await listIn(client, V1ALPHA1, "InstallPlan", namespace).catch(() => [])) {
          if (
            (ip.metadata.ownerReferences ?? []).some(
              (o) => o.kind === "Subscription" && o.name === plan?.subscription.metadata.name,
            )
          ) {
            rollback.push(refOf(ip));
          }
        }
      }
      throw await failRun(session, error, {
        refs,
        rollback,
        keepOnFailure: options.keepOnFailure ?? false,
        packageName: bundle.packageName,
      });
    }
  } finally {
    if (conn?.owned) conn.client.close();
  }
}

function result(
  plan: RunPlan,
  dryRun: boolean,
  objects: KubeObject[],
  created: ObjectRef[],
  phases: Array<{ phase: string; ms: number }>,
  operatorGroup: { name: string; created: boolean } | undefined,
): RunBundleResult {
  const out: RunBundleResult = {
    dryRun,
    namespace: plan.namespace,
    packageName: plan.packageName,
    csv: plan.csvName,
    version: plan.version,
    installMode: plan.installMode,
    catalogSource: plan.catalogSource.metadata.name ?? "",
    subscription: plan.subscription.metadata.name ?? "",
    objects,
    created,
    phases,
  };
  if (operatorGroup) out.operatorGroup = operatorGroup;
  return out;
}

export function ownedCrdNames(csv: KubeObject): string[] {
  return ((csv.spec?.customresourcedefinitions?.owned ?? []) as Array<{ name?: string }>)
    .map((d) => d.name ?? "")
    .filter((n) => n !== "");
}

interface Preflight {
  createNamespace: boolean;
  operatorGroup?: { name: string; created: boolean };
  /** The install mode the namespace's existing OperatorGroup imposes. */
  groupMode?: ResolvedInstallMode;
}

/** Reads only: OLM present, namespace, pull secret, service account, no earlier install, OperatorGroups. */
async function preflightChecks(
  session: Session,
  options: RunBundleOptions,
  packageName: string,
  namespace: string,
  flag: InstallModeFlag | undefined,
  csv: KubeObject,
): Promise<Preflight> {
  const { client, reporter } = session;
  await requireOlm(client);
  const ns = await client.get({ apiVersion: "v1", kind: "Namespace", name: namespace });
  if (!ns && !options.createNamespace) {
    const m = messages.namespaceMissing(namespace);
    throw new TsopError(m.message, { hint: m.hint });
  }
  if (ns && options.pullSecretName) {
    const secret = await client.get({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name: options.pullSecretName,
    });
    if (!secret) {
      const m = messages.secretMissing(namespace, options.pullSecretName);
      throw new TsopError(m.message, { hint: m.hint });
    }
  } else if (!ns && options.pullSecretName) {
    const m = messages.secretMissing(namespace, options.pullSecretName);
    throw new TsopError(m.message, {
      hint: `${m.hint}; a namespace created by --create-namespace has no secrets yet`,
    });
  }
  if (options.serviceAccount && options.serviceAccount !== "default") {
    const sa = ns
      ? await client.get({
          apiVersion: "v1",
          kind: "ServiceAccount",
          namespace,
          name: options.serviceAccount,
        })
      : undefined;
    if (!sa) {
      const m = messages.serviceAccountMissing(namespace, options.serviceAccount);
      throw new TsopError(m.message, { hint: m.hint });
    }
  }
  if (!ns) return { createNamespace: true };

  const catalogName = runNames(packageName).catalogSource;
  const existing = await client.get({
    apiVersion: V1ALPHA1,
    kind: "CatalogSource",
    namespace,
    name: catalogName,
  });
  if (existing) {
    const ours = existing.metadata.labels?.[LABELS.managedBy] === MANAGED_BY;
    const m = messages.catalogExists(namespace, catalogName, ours, packageName);
    throw new TsopError(m.message, { hint: m.hint });
  }
  const subs = await listIn(client, V1ALPHA1, "Subscription", namespace);
  const sub = subs.find((s) => s.spec?.name === packageName);
  if (sub) {
    const m = messages.subscriptionExists(namespace, sub.metadata.name ?? "", packageName);
    throw new TsopError(m.message, { hint: m.hint });
  }
  const groups = await listIn(client, V1, "OperatorGroup", namespace);
  if (groups.length > 1) {
    const m = messages.tooManyGroups(
      namespace,
      groups.map((g) => g.metadata.name ?? ""),
    );
    throw new TsopError(m.message, { hint: m.hint });
  }
  if (groups.length === 1) {
    const og = groups[0] as KubeObject;
    reporter.info(checkExistingGroup(og, csv, namespace, flag));
    const out: Preflight = {
      createNamespace: false,
      operatorGroup: { name: og.metadata.name ?? "", created: false },
    };
    const groupMode = modeOfGroup(og, namespace);
    if (groupMode) out.groupMode = groupMode;
    return out;
  }
  return { createNamespace: false };
}

/** --dry-run without -n: the kubeconfig context's namespace if there is a kubeconfig (no cluster call). */
async function kubeconfigNamespace(options: RunBundleOptions): Promise<string> {
  try {
    const { loadConnection } = await import("../../kube/config.js");
    const connection = await loadConnection({
      kubeconfig: options.kubeconfig,
      context: options.context,
      env: options.env ?? process.env,
    });
    return connection.namespace;
  } catch {
    return "default";
  }
}
