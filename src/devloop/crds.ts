// `tsop install` / `tsop uninstall`: the project's CRDs (config/crd) applied with server-side apply
// and waited on until Established, or deleted. Uninstall refuses while custom resources exist,
// unless forced: then it deletes them first and waits for their finalizers, saying what blocks.
import { errorFrom, TsopError } from "../common/errors.js";
import { applyAll } from "../kube/apply.js";
import type { KubeClient } from "../kube/client.js";
import { describeRef, type KubeObject, refOf } from "../kube/objects.js";
import { deleteAndWait } from "../kube/delete.js";
import { customResourcesOf, deleteCustomResources } from "../kube/custom-resources.js";
import { type ClusterOptions, openCluster } from "./cluster.js";
import { generateFirst } from "./generate.js";
import { messages } from "./messages.js";
import { loadCrds, openProject } from "./project.js";

/** Field manager of `tsop install` (deploy uses its own, so neither removes the other's fields). */
export const INSTALL_FIELD_MANAGER = "tsop-install";

export interface CrdOptions extends ClusterOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface InstallResult {
  crds: Array<{ name: string; action: "created" | "configured" }>;
}

export interface InstallOptions extends CrdOptions {
  /** Apply config/crd as it is on disk, without `tsop generate` first. */
  skipGenerate?: boolean;
}

export async function install(options: InstallOptions): Promise<InstallResult> {
  const project = await openProject(options.cwd);
  if (!options.skipGenerate) await generateFirst(project.root, options.reporter);
  const crds = await loadCrds(project);
  const session = await openCluster(options);
  try {
    return await applyCrds(session.client, crds, options);
  } finally {
    session.close();
  }
}

/** Applies the CRDs and waits until the API server serves them. */
export async function applyCrds(
  client: KubeClient,
  crds: KubeObject[],
  options: Omit<CrdOptions, "cwd">,
): Promise<InstallResult> {
  options.reporter.info(`installing ${crds.length} CustomResourceDefinition(s)`);
  const applied = await applyAll(client, crds, {
    reporter: options.reporter,
    timeoutMs: options.timeoutMs,
    fieldManager: INSTALL_FIELD_MANAGER,
    signal: options.signal,
  });
  return { crds: applied.map((a) => ({ name: a.ref.name, action: a.action })) };
}

export interface UninstallOptions extends CrdOptions {
  force?: boolean;
}

export interface UninstallResult {
  items: Array<{ kind: string; namespace?: string; name: string; action: "deleted" | "not found" }>;
}

export async function uninstall(options: UninstallOptions): Promise<UninstallResult> {
  const crds = await loadCrds(await openProject(options.cwd));
  const session = await openCluster(options);
  const client = session.client;
  try {
    const items: UninstallResult["items"] = [];
    const deadline = Date.now() + options.timeoutMs;
    const existing = await customResourcesOf(client, crds);
    if (existing.length > 0 && !options.force) {
      throw errorFrom(
        messages.crsExist(
          existing.length,
          existing.slice(0, 10).map((o) => describeRef(refOf(o))),
        ),
      );
    }
    if (existing.length > 0) {
      for (const ref of await deleteCustomResources(client, crds, {
        ...options,
        blocked: messages.finalizersBlock,
      })) {
        items.push({ kind: ref.kind, namespace: ref.namespace, name: ref.name, action: "deleted" });
      }
    }
    const outcome = await deleteAndWait(client, crds.map(refOf), {
      reporter: options.reporter,
      timeoutMs: Math.max(deadline - Date.now(), 1000),
      what: `${crds.length} CustomResourceDefinition(s) to be deleted`,
      signal: options.signal,
    });
    if (outcome.left.length > 0)
      throw new TsopError(`could not delete every CRD:\n${outcome.left.map((l) => `  ${l}`).join("\n")}`);
    const deleted = new Set(outcome.deleted.map((r) => r.name));
    for (const crd of crds) {
      const name = crd.metadata.name ?? "";
      items.push({ kind: crd.kind, name, action: deleted.has(name) ? "deleted" : "not found" });
    }
    return { items };
  } finally {
    session.close();
  }
}
