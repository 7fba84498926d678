// `tsop deploy` / `tsop undeploy`: the operator running in the cluster without OLM. Deploy applies
// config/default (namespace, RBAC, CRDs, manager, services) with server-side apply, every object
// labelled with the project, then waits for the manager Deployment. Undeploy finds what deploy
// made by that label and deletes it: workloads and RBAC, then the namespace, and the CRDs (after
// their custom resources, while the operator can still run their finalizers) only when asked.
import { applyAll } from "../kube/apply.js";
import type { RegistryClientOptions } from "../oci/client.js";
import type { KubeClient } from "../kube/client.js";
import { NoKindMatchError } from "../kube/errors.js";
import { describeRef, isCrd, type KubeObject, type ObjectRef, refOf } from "../kube/objects.js";
import { deploymentCheck, waitFor } from "../kube/wait.js";
import { deleteAndWait } from "../kube/delete.js";
import { TsopError } from "../common/errors.js";
import { deleteCustomResources } from "../kube/custom-resources.js";
import { type ClusterOptions, openCluster } from "./cluster.js";
import { generateFirst } from "./generate.js";
import { checkImagesExist, imagesOf } from "./image-check.js";
import { messages } from "./messages.js";
import { setReplicas } from "./replicas.js";
import { findManager, loadDefault, openProject } from "./project.js";
import type { Project } from "../project/types.js";

/** Label on every object `tsop deploy` applies; its value is the project name. */
export const DEPLOY_LABEL = "tsop.dev/deploy";
export const DEPLOY_FIELD_MANAGER = "tsop-deploy";

/** Kinds undeploy looks for besides those config/default holds now (a tree may have shrunk since). */
const USUAL_KINDS: Array<[string, string]> = [
  ["v1", "Namespace"],
  ["v1", "ServiceAccount"],
  ["v1", "Service"],
  ["v1", "ConfigMap"],
  ["v1", "Secret"],
  ["apps/v1", "Deployment"],
  ["rbac.authorization.k8s.io/v1", "Role"],
  ["rbac.authorization.k8s.io/v1", "RoleBinding"],
  ["rbac.authorization.k8s.io/v1", "ClusterRole"],
  ["rbac.authorization.k8s.io/v1", "ClusterRoleBinding"],
  ["networking.k8s.io/v1", "NetworkPolicy"],
  ["admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"],
  ["admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"],
  ["apiextensions.k8s.io/v1", "CustomResourceDefinition"],
];

export interface DeployOptions extends ClusterOptions {
  cwd: string;
  image?: string;
  /** Manager replicas for this deploy (config/manager's count otherwise; setReplicas checks it). */
  replicas?: number;
  dryRun?: boolean;
  /** Apply config/ as it is on disk, without `tsop generate` first. */
  skipGenerate?: boolean;
  /** Do not ask the registries whether the images exist. */
  skipImageCheck?: boolean;
  /** How to reach the registries for that check. */
  registry?: RegistryClientOptions;
  /** A public key (cosign.pub): every image deployed must carry a valid signature made with it. */
  verifyKey?: string;
  /** Who named verifyKey (`--verify-key`, `$TSOP_VERIFY_KEY`, a PROJECT field), for errors. */
  verifyKeyOrigin?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface DeployItem {
  kind: string;
  namespace?: string;
  name: string;
  action: string;
}

export interface DeployResult {
  namespace: string;
  manager: string;
  objects: KubeObject[];
  items: DeployItem[];
}

export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const project = await openProject(options.cwd);
  if (!options.skipGenerate) await generateFirst(project.root, options.reporter, { dryRun: options.dryRun });
  const objects = await deployObjects(project, options);
  const manager = findManager(objects, "config/default");
  const namespace = manager.deployment.metadata.namespace ?? "";
  const result: DeployResult = {
    namespace,
    manager: manager.deployment.metadata.name ?? "",
    objects,
    items: [],
  };
  if (options.dryRun) return result;
  if (!options.skipImageCheck)
    await checkImagesExist(imagesOf(objects), options.registry ?? {}, options.reporter);
  if (options.verifyKey) {
    const { verifyImages } = await import("../oci/sign/index.js");
    await verifyImages(imagesOf(objects), {
      ...options.registry,
      verifyKey: options.verifyKey,
      verifyKeyOrigin: options.verifyKeyOrigin,
      reporter: options.reporter,
    });
  }

  const session = await openCluster(options, namespace);
  try {
    const toApply = await withoutForeignNamespaces(session.client, objects, project, result.items);
    const applied = await applyAll(session.client, toApply, {
      reporter: options.reporter,
      timeoutMs: options.timeoutMs,
      fieldManager: DEPLOY_FIELD_MANAGER,
      signal: options.signal,
    });
    for (const a of applied) result.items.push({ ...itemOf(a.ref), action: a.action });
    await waitFor(session.client, [{ ref: refOf(manager.deployment), check: deploymentCheck }], {
      timeoutMs: options.timeoutMs,
      reporter: options.reporter,
      what: `the manager Deployment ${describeRef(refOf(manager.deployment))}`,
      signal: options.signal,
    });
    return result;
  } finally {
    session.close();
  }
}

/** config/default as deploy applies it: moved to -n, the manager image replaced, every object labelled. */
async function deployObjects(project: Project, options: DeployOptions): Promise<KubeObject[]> {
  const objects = await loadDefault(project, options.namespace);
  if (options.image) findManager(objects, "config/default").container.image = options.image;
  if (options.replicas !== undefined)
    setReplicas(findManager(objects, "config/default"), options.replicas, options.reporter);
  for (const obj of objects) {
    obj.metadata.labels = { ...obj.metadata.labels, [DEPLOY_LABEL]: project.projectName };
  }
  return objects;
}

/** Leaves out a Namespace that exists without deploy's label: undeploy must never delete it. */
async function withoutForeignNamespaces(
  client: KubeClient,
  objects: KubeObject[],
  project: Project,
  items: DeployItem[],
): Promise<KubeObject[]> {
  const kept: KubeObject[] = [];
  for (const obj of objects) {
    if (obj.kind === "Namespace" && obj.apiVersion === "v1") {
      const live = await client.get(refOf(obj));
      if (live && live.metadata.labels?.[DEPLOY_LABEL] !== project.projectName) {
        items.push({ ...itemOf(refOf(obj)), action: "exists (left as it is)" });
        continue;
      }
    }
    kept.push(obj);
  }
  return kept;
}

function itemOf(ref: ObjectRef): Omit<DeployItem, "action"> {
  return { kind: ref.kind, ...(ref.namespace ? { namespace: ref.namespace } : {}), name: ref.name };
}

export interface UndeployOptions extends ClusterOptions {
  cwd: string;
  deleteCrds?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface UndeployResult {
  items: DeployItem[];
}

export async function undeploy(options: UndeployOptions): Promise<UndeployResult> {
  const project = await openProject(options.cwd);
  const kinds = await kindsToSearch(project);
  const session = await openCluster(options);
  const client = session.client;
  try {
    const found = await labelled(client, kinds, `${DEPLOY_LABEL}=${project.projectName}`);
    const items: DeployItem[] = [];
    if (found.length === 0) {
      options.reporter.info(messages.nothingDeployed(project.projectName));
      return { items };
    }
    const deadline = Date.now() + options.timeoutMs;
    const left = () => Math.max(deadline - Date.now(), 1000);
    const crds = found.filter(isCrd);
    if (crds.length > 0 && options.deleteCrds) {
      // While the manager still runs, so it can remove its finalizers.
      const deleted = await deleteCustomResources(client, crds, {
        ...options,
        timeoutMs: left(),
        blocked: messages.finalizersBlock,
      });
      for (const ref of deleted) items.push({ ...itemOf(ref), action: "deleted" });
    } else if (crds.length > 0) {
      options.reporter.info(messages.deleteCrdsNeeded());
      for (const crd of crds) items.push({ ...itemOf(refOf(crd)), action: "kept" });
    }
    const rest = found.filter((o) => !isCrd(o) && o.kind !== "Namespace");
    const namespaces = found.filter((o) => o.kind === "Namespace");
    for (const batch of [rest, namespaces, options.deleteCrds ? crds : []]) {
      if (batch.length === 0) continue;
      const outcome = await deleteAndWait(client, batch.map(refOf), {
        reporter: options.reporter,
        timeoutMs: left(),
        what: `${batch.length} object(s) to be deleted`,
        signal: options.signal,
      });
      if (outcome.left.length > 0)
        throw new TsopError(
          `could not delete everything deploy created:\n${outcome.left.map((l) => `  ${l}`).join("\n")}`,
        );
      for (const ref of outcome.deleted) items.push({ ...itemOf(ref), action: "deleted" });
    }
    return { items };
  } finally {
    session.close();
  }
}

/** The kinds config/default holds now plus the usual ones, without duplicates. */
async function kindsToSearch(project: Project): Promise<Array<[string, string]>> {
  const kinds = new Map(USUAL_KINDS.map(([v, k]) => [`${v}|${k}`, [v, k] as [string, string]]));
  const current = await loadDefault(project).catch(() => [] as KubeObject[]);
  for (const obj of current) kinds.set(`${obj.apiVersion}|${obj.kind}`, [obj.apiVersion, obj.kind]);
  return [...kinds.values()];
}

async function labelled(
  client: KubeClient,
  kinds: Array<[string, string]>,
  selector: string,
): Promise<KubeObject[]> {
  const found: KubeObject[] = [];
  for (const [apiVersion, kind] of kinds) {
    try {
      found.push(...(await client.list(apiVersion, kind, { namespace: "", labelSelector: selector })).items);
    } catch (error) {
      if (!(error instanceof NoKindMatchError)) throw error;
    }
  }
  return found;
}
