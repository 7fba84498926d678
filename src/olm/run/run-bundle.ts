// `tsop run bundle <image>`: pull the bundle → choose the install mode → (dry run: print the plan)
// → preflight reads → create catalog (CatalogSource, ConfigMaps, registry Pod + Service) → registry
// pod ready → catalog READY → OperatorGroup if needed → Subscription (Manual) → approve the one
// InstallPlan for this bundle → CSV Succeeded. Any failure names the phase, adds OLM's diagnostics
// and removes what the session's rollback journal holds (unless --keep-on-failure).
import { randomBytes } from "node:crypto";
import { errorFrom, TsopError, UsageError } from "../../common/errors.js";
import { CATALOG_INIT_IMAGE, OPM_IMAGE } from "../../common/pins.js";
import { type ClusterOptions, connect } from "../../kube/connect.js";
import { listIn } from "../../kube/list.js";
import { type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import { type InstallableBundle, loadInstallableBundle, registryAccess } from "../../bundle/load/index.js";
import { singleBundleCatalog } from "./catalog.js";
import { catalogReadyCheck, registryPodCheck } from "./checks.js";
import { failRun } from "./failure.js";
import { requireOlm } from "../detect.js";
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
  ownerReferenceTo,
  type PlanInput,
  planObjects,
  planRunBundle,
  type RunPlan,
  type SecurityContextConfig,
} from "./plan.js";
import type { BundlePullOptions } from "./pull-options.js";
import { Session } from "./session.js";

export interface RunBundleOptions extends ClusterOptions, BundlePullOptions {
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
  dryRun?: boolean;
  keepOnFailure?: boolean;
  /** How long a CSV may stay Failed (with a reason OLM retries) before the run fails. */
  csvFailedGraceMs?: number;
  signal?: AbortSignal;
  /** Test seams. */
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
  const flag =
    typeof options.installMode === "string" ? parseInstallMode(options.installMode) : options.installMode;
  // Connect before pulling: a bad kubeconfig fails before any download (not needed for --dry-run).
  const conn = options.dryRun ? undefined : await connect(options);
  try {
    const bundle = await pullBundle(options);
    const namespace = options.namespace ?? conn?.client.namespace ?? (await kubeconfigNamespace(options));
    const mode = chooseInstallMode(bundle.csv, namespace, flag, conn !== undefined);
    const base = planBase(bundle, namespace, mode.installMode, options);
    if (!conn) return dryRunPlan(base, options);
    const session = new Session(
      conn.client,
      options.reporter,
      options.timeoutMs,
      options.signal,
      "run bundle",
    );
    return await install(session, base, mode, flag, options);
  } finally {
    if (conn?.owned) conn.client.close();
  }
}

/** Everything the plan needs but the cluster's answers (namespace, OperatorGroup). */
type PlanBase = Omit<PlanInput, "createNamespace" | "createOperatorGroup">;

interface ModeChoice {
  installMode: ResolvedInstallMode;
  /** Without --install-mode, a CSV's modes that the namespace's OperatorGroup must decide. */
  undecided?: UsageError;
}

async function pullBundle(options: RunBundleOptions): Promise<InstallableBundle> {
  options.reporter.info(`Pulling bundle ${options.image}`);
  const bundle = await loadInstallableBundle(options.image, registryAccess(options));
  options.reporter.info(`Bundle: package ${bundle.packageName}, ${bundle.csv.metadata.name ?? ""}`);
  return bundle;
}

/**
 * Without --install-mode, a CSV that supports only SingleNamespace/MultiNamespace can still go into
 * a namespace whose existing OperatorGroup fits it: the preflight decides; else this error stands.
 */
function chooseInstallMode(
  csv: KubeObject,
  namespace: string,
  flag: InstallModeFlag | undefined,
  connected: boolean,
): ModeChoice {
  try {
    return { installMode: resolveInstallMode(csv, namespace, flag) };
  } catch (error) {
    if (flag || !connected || !(error instanceof UsageError)) throw error;
    return {
      installMode: { type: "OwnNamespace", targetNamespaces: [namespace], source: "csv" },
      undecided: error,
    };
  }
}

function planBase(
  bundle: InstallableBundle,
  namespace: string,
  installMode: ResolvedInstallMode,
  options: RunBundleOptions,
): PlanBase {
  const catalogOptions: CatalogOptions = {
    namespace,
    runId: options.runId ?? (options.dryRun ? "dry-run" : randomBytes(4).toString("hex")),
    indexImage: options.indexImage ?? OPM_IMAGE,
    initImage: options.initImage ?? CATALOG_INIT_IMAGE,
    pullSecretName: options.pullSecretName,
    serviceAccount: options.serviceAccount,
    securityContext: options.securityContext ?? "restricted",
    payloadLimit: options.payloadLimit,
  };
  return { bundle, content: singleBundleCatalog(bundle), installMode, ...catalogOptions };
}

function dryRunPlan(base: PlanBase, options: RunBundleOptions): RunBundleResult {
  const plan = planRunBundle({
    ...base,
    createNamespace: options.createNamespace ?? false,
    createOperatorGroup: true,
  });
  options.reporter.info(
    `Dry run: nothing was sent to the cluster. The OperatorGroup is included; a real run reuses the namespace's existing group when it is compatible.`,
  );
  return result(plan, true, planObjects(plan), [], [], {
    name: plan.operatorGroup?.metadata.name ?? "",
    created: true,
  });
}

/** The cluster half: preflight → plan → catalog → OperatorGroup → Subscription → OLM installs. */
async function install(
  session: Session,
  base: PlanBase,
  mode: ModeChoice,
  flag: InstallModeFlag | undefined,
  options: RunBundleOptions,
): Promise<RunBundleResult> {
  const { bundle } = base;
  let plan: RunPlan | undefined;
  try {
    const preflight = await session.phase("preflight", () =>
      preflightChecks(session, options, bundle.packageName, base.namespace, flag, bundle.csv),
    );
    if (mode.undecided && !preflight.groupMode) throw mode.undecided;
    plan = planRunBundle({
      ...base,
      installMode: preflight.groupMode ?? base.installMode,
      createNamespace: preflight.createNamespace,
      createOperatorGroup: !preflight.operatorGroup,
    });
    await createCatalog(session, plan);
    await waitForCatalog(session, plan);
    const operatorGroup = (await createOperatorGroup(session, plan)) ?? preflight.operatorGroup;
    await subscribe(session, plan, bundle.csv, base.content.channel);
    const installed = await resolveAndInstall(session, refOf(plan.subscription), {
      csvName: plan.csvName,
      csvFailedGraceMs: options.csvFailedGraceMs ?? DEFAULT_CSV_FAILED_GRACE_MS,
    });
    session.reporter.success(`OLM installed ${plan.csvName} in namespace ${plan.namespace}`);
    return {
      ...result(plan, false, [], session.created, session.phases, operatorGroup),
      installPlan: installed.installPlan,
    };
  } catch (error) {
    if (plan) await journalInstallPlans(session, plan);
    throw await failRun(session, error, {
      refs: plan ? planRefs(plan) : {},
      keepOnFailure: options.keepOnFailure ?? false,
      packageName: bundle.packageName,
    });
  }
}

function planRefs(plan: RunPlan) {
  return {
    catalog: refOf(plan.catalogSource),
    pod: refOf(plan.catalog.pod),
    subscription: refOf(plan.subscription),
  };
}

/** The namespace (if asked), the CatalogSource, then its ConfigMaps, registry Pod and Service. */
async function createCatalog(session: Session, p: RunPlan): Promise<void> {
  const { reporter } = session;
  await session.phase("create catalog", async () => {
    if (p.namespaceObject) {
      await session.create(p.namespaceObject);
      reporter.success(`Created namespace ${p.namespace}`);
    }
    const cs = await session.create(p.catalogSource);
    const owner = ownerReferenceTo({
      ...p.catalogSource,
      metadata: { ...p.catalogSource.metadata, uid: cs.metadata.uid },
    });
    for (const obj of [...p.catalog.configMaps, p.catalog.pod, p.catalog.service]) {
      await session.create({ ...obj, metadata: { ...obj.metadata, ownerReferences: [owner] } });
    }
    reporter.success(
      `Created CatalogSource ${p.catalogSource.metadata.name} (${p.catalog.configMaps.length} ConfigMap(s), registry pod ${p.catalog.pod.metadata.name})`,
    );
  });
}

/** The registry pod serves, then OLM reports the CatalogSource READY. */
async function waitForCatalog(session: Session, p: RunPlan): Promise<void> {
  await session.waitPhase("registry pod", refOf(p.catalog.pod), registryPodCheck, {
    before: "the registry pod was ready",
    what: `registry pod ${p.namespace}/${p.catalog.pod.metadata.name} to serve the catalog`,
  });
  await session.waitPhase("catalog", refOf(p.catalogSource), catalogReadyCheck, {
    before: "the catalog was READY",
    what: `CatalogSource ${p.namespace}/${p.catalogSource.metadata.name} to be READY`,
  });
}

async function createOperatorGroup(
  session: Session,
  p: RunPlan,
): Promise<{ name: string; created: boolean } | undefined> {
  const og = p.operatorGroup;
  if (!og) return undefined;
  await session.phase("operator group", async () => {
    await session.create(og);
    const mode = p.installMode;
    session.reporter.success(
      `Created OperatorGroup ${og.metadata.name} (${mode.type}${mode.targetNamespaces.length ? `: ${mode.targetNamespaces.join(", ")}` : ""})`,
    );
  });
  return { name: og.metadata.name ?? "", created: true };
}

/**
 * Creates the Subscription and journals what OLM will make from it: the CSV and the CRDs it owns
 * that are new to the cluster (CRDs that exist before the install are never removed by a rollback).
 */
async function subscribe(session: Session, p: RunPlan, csv: KubeObject, channel: string): Promise<void> {
  const ownedCrds = ownedCrdNames(csv);
  const preexisting = new Set(
    (await listIn(session.client, "apiextensions.k8s.io/v1", "CustomResourceDefinition", ""))
      .map((c) => c.metadata.name ?? "")
      .filter((n) => ownedCrds.includes(n)),
  );
  await session.phase("create subscription", async () => {
    await session.create(p.subscription);
  });
  session.expect({
    apiVersion: V1ALPHA1,
    kind: "ClusterServiceVersion",
    namespace: p.namespace,
    name: p.csvName,
  });
  for (const crd of ownedCrds.filter((n) => !preexisting.has(n))) {
    session.expect({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: crd });
  }
  session.reporter.success(
    `Created Subscription ${p.subscription.metadata.name} (channel ${channel}, approval Manual, starting at ${p.csvName})`,
  );
}

/** InstallPlans are owned by the Subscription; the ones OLM made for it are rolled back explicitly. */
async function journalInstallPlans(session: Session, plan: RunPlan): Promise<void> {
  for (const ip of await listIn(session.client, V1ALPHA1, "InstallPlan", plan.namespace).catch(() => [])) {
    const owners = ip.metadata.ownerReferences ?? [];
    if (owners.some((o) => o.kind === "Subscription" && o.name === plan.subscription.metadata.name))
      session.expect(refOf(ip));
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
    throw errorFrom(messages.namespaceMissing(namespace));
  }
  if (ns && options.pullSecretName) {
    const secret = await client.get({
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      name: options.pullSecretName,
    });
    if (!secret) {
      throw errorFrom(messages.secretMissing(namespace, options.pullSecretName));
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
      throw errorFrom(messages.serviceAccountMissing(namespace, options.serviceAccount));
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
    throw errorFrom(messages.catalogExists(namespace, catalogName, ours, packageName));
  }
  const subs = await listIn(client, V1ALPHA1, "Subscription", namespace);
  const sub = subs.find((s) => s.spec?.name === packageName);
  if (sub) {
    throw errorFrom(messages.subscriptionExists(namespace, sub.metadata.name ?? "", packageName));
  }
  const groups = await listIn(client, V1, "OperatorGroup", namespace);
  if (groups.length > 1) {
    throw errorFrom(
      messages.tooManyGroups(
        namespace,
        groups.map((g) => g.metadata.name ?? ""),
      ),
    );
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
