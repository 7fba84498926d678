// `tsop cleanup <package>`: label-driven and idempotent. The plan: find the targets (reads only,
// cleanup-targets.ts) → --dry-run lists them → custom resources of CRDs being deleted, while the
// operator still runs → the targets in the shared delete order (kube/delete.ts), waiting until gone →
// what OLM leaves after the install is gone (its Operator object, OperatorGroup ClusterRoles).
import { InvalidInputError, TimeoutError } from "../../common/errors.js";
import { suggest } from "../../common/suggest.js";
import { throwIfInterrupted } from "../../common/interrupt.js";
import type { Reporter } from "../../common/reporter.js";
import type { KubeClient } from "../../kube/client.js";
import { type ClusterOptions, connect } from "../../kube/connect.js";
import { deleteCustomResources } from "../../kube/custom-resources.js";
import { deleteAndWait, deleteOrder } from "../../kube/delete.js";
import { listIn } from "../../kube/list.js";
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import { describeRef, refOf } from "../../kube/objects.js";
import {
  type CleanupItem,
  type CleanupTargets,
  componentLabel,
  CRD,
  findCleanupTargets,
  item,
  KEPT_CRD_LABEL,
  packagesPresent,
} from "./cleanup-targets.js";
import { requireOlm } from "../detect.js";
import { messages } from "./messages.js";
import { V1 } from "./names.js";

export { type CleanupItem, describeItem } from "./cleanup-targets.js";

export interface CleanupOptions extends ClusterOptions {
  packageName: string;
  timeoutMs: number;
  deleteCrds?: boolean;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface CleanupResult {
  namespace: string;
  packageName: string;
  dryRun: boolean;
  items: CleanupItem[];
}

export async function cleanup(options: CleanupOptions): Promise<CleanupResult> {
  const { reporter, packageName: pkg } = options;
  const conn = await connect(options);
  const client = conn.client;
  try {
    const namespace = options.namespace ?? client.namespace;
    await requireOlm(client);
    const found = await findCleanupTargets(client, pkg, namespace, options.deleteCrds ?? false);
    // Only OperatorGroups (kept for other packages) found: nothing of this package is here.
    if (found.targets.length === 0 && found.kept.every((k) => k.kind === "OperatorGroup"))
      throw await packageNotFound(client, pkg, namespace);
    const ordered = deleteOrder(found.targets);
    const done = (dryRun: boolean, items: CleanupItem[]) => ({ namespace, packageName: pkg, dryRun, items });
    if (ordered.length === 0) {
      reporter.warn(messages.cleanupNothing(pkg, namespace));
      return done(options.dryRun ?? false, found.kept);
    }
    if (options.dryRun) return done(true, [...ordered.map((r) => item(r, "would delete")), ...found.kept]);
    // Custom resources first, while the operator still runs to release their finalizers; else
    // deleting the CRD leaves them (and the CRD) Terminating for good once the operator is gone.
    const customResources = await deleteCustomResourcesOf(client, found.crdsToDelete, options);
    const { deleted, alreadyGone } = await deleteTargets(client, ordered, options, namespace);
    deleted.push(...(await afterInstallGone(client, found, options, namespace)));
    reporter.success(`Removed package ${pkg} from namespace ${namespace}`);
    return done(false, [
      ...customResources.map((r) => item(r, "deleted")),
      ...deleted.map((r) => item(r, "deleted")),
      ...alreadyGone.map((r) => ({ ...item(r, "deleted"), reason: messages.cleanupAlreadyGone() })),
      ...found.kept,
    ]);
  } finally {
    if (conn.owned) client.close();
  }
}

/** A package with nothing in the namespace: misspelt, in another namespace, or cleaned up already. */
async function packageNotFound(
  client: KubeClient,
  pkg: string,
  namespace: string,
): Promise<InvalidInputError> {
  const present = (await packagesPresent(client, namespace)).filter((name) => name !== pkg);
  const m = messages.cleanupNotFound(pkg, namespace, present, suggest(pkg, present));
  return new InvalidInputError(m.message, { hint: m.hint });
}

/**
 * Deletes the package's objects in the shared delete order; a TimeoutError names what stayed. Some
 * are gone before their turn (OLM and the garbage collector remove what the CSV owned): those are
 * listed too, so that the count announced and the objects listed agree.
 */
async function deleteTargets(
  client: KubeClient,
  ordered: ObjectRef[],
  options: CleanupOptions,
  namespace: string,
): Promise<{ deleted: ObjectRef[]; alreadyGone: ObjectRef[] }> {
  const { reporter, packageName: pkg } = options;
  reporter.info(`Deleting ${ordered.length} object(s) of package ${pkg} in namespace ${namespace}`);
  const outcome = await deleteAndWait(client, ordered, {
    reporter,
    timeoutMs: options.timeoutMs,
    what: `the objects of package ${pkg} to be deleted`,
    signal: options.signal,
  });
  throwIfInterrupted(options.signal);
  if (outcome.left.length === 0) {
    const deleted = new Set(outcome.deleted.map(describeRef));
    const alreadyGone = ordered.filter((ref) => !deleted.has(describeRef(ref)));
    for (const ref of alreadyGone) reporter.info(`  ${describeRef(ref)}: ${messages.cleanupAlreadyGone()}`);
    return { deleted: outcome.deleted, alreadyGone };
  }
  throw new TimeoutError(
    `cleanup of package ${pkg} did not finish:\n${outcome.left.map((l) => `  - ${l}`).join("\n")}`,
    {
      hint: "objects with finalizers wait for their controllers (OLM for CSVs); run tsop cleanup again, or raise --timeout",
    },
  );
}

/**
 * Once the install is gone: OLM's component label comes off the CRDs kept (else OLM re-creates the
 * Operator object for them), then OLM's Operator object and the OperatorGroups' ClusterRoles go.
 */
async function afterInstallGone(
  client: KubeClient,
  found: CleanupTargets,
  options: CleanupOptions,
  namespace: string,
): Promise<ObjectRef[]> {
  const { reporter, packageName: pkg } = options;
  for (const k of found.kept.filter((i) => i.kind === "CustomResourceDefinition")) {
    // The package's own ones keep its name (KEPT_CRD_LABEL), so `cleanup --delete-crds` finds them.
    const own = found.keptOwnedCrds.includes(k.name) ? { [KEPT_CRD_LABEL]: pkg } : {};
    await client
      .mergePatch(
        { apiVersion: CRD, kind: "CustomResourceDefinition", name: k.name },
        { metadata: { labels: { [componentLabel(pkg, namespace)]: null, ...own } } },
      )
      .catch(() => undefined);
  }
  const deleted: ObjectRef[] = [];
  const operator = await removeOperatorObject(client, pkg, namespace, reporter, options.timeoutMs);
  if (operator) deleted.push(operator);
  deleted.push(...(await removeOperatorGroupRoles(client, found.deletedGroups, namespace)));
  return deleted;
}

/** The custom resources of the CRDs about to go (kube/custom-resources.ts: foreground, then gone). */
function deleteCustomResourcesOf(
  client: KubeClient,
  crds: KubeObject[],
  options: CleanupOptions,
): Promise<ObjectRef[]> {
  return deleteCustomResources(client, crds, {
    reporter: options.reporter,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    blocked: messages.cleanupBlocked,
  });
}

/**
 * OLM's Operator object for the package in this namespace (operators.coreos.com/v1, cluster-scoped,
 * named "<package>.<namespace>"): OLM creates it for the installed components and never deletes it.
 * Removed once its components are gone. OLM re-creates it on the delete event while its informer
 * cache still holds a component (seen on the real test bed under load), so it is deleted only once
 * the status OLM writes lists no component, and deleted again if a sync in flight brings it back.
 */
export async function removeOperatorObject(
  client: KubeClient,
  pkg: string,
  namespace: string,
  reporter: Reporter,
  timeoutMs: number,
): Promise<ObjectRef | undefined> {
  const ref: ObjectRef = { apiVersion: V1, kind: "Operator", name: `${pkg}.${namespace}` };
  if (!(await client.get(ref).catch(() => undefined))) return undefined;
  const deadline = Date.now() + Math.min(timeoutMs, 60_000);
  for (;;) {
    await untilOlmListsNoComponents(client, ref, deadline);
    const outcome = await deleteAndWait(client, [ref], {
      reporter,
      timeoutMs: Math.max(deadline - Date.now(), 1000),
      what: `OLM's Operator object ${ref.name} to be deleted`,
    });
    if (outcome.left.length > 0) return undefined;
    if (!(await reappears(client, ref, deadline))) return ref;
    if (Date.now() >= deadline) return undefined;
  }
}

/** Polls until the Operator's status lists no component (OLM's cache has seen them go), or the deadline. */
async function untilOlmListsNoComponents(
  client: KubeClient,
  ref: ObjectRef,
  deadline: number,
): Promise<void> {
  while (Date.now() < deadline) {
    const operator = await client.get(ref).catch(() => undefined);
    const refs = (operator?.status as { components?: { refs?: unknown[] } } | undefined)?.components?.refs;
    if (!operator || (refs ?? []).length === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Whether the deleted object comes back within a short settle time (or before the deadline). */
async function reappears(
  client: KubeClient,
  ref: ObjectRef,
  deadline: number,
  settleMs = 3000,
): Promise<boolean> {
  const until = Math.min(Date.now() + settleMs, deadline);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    if (await client.get(ref).catch(() => undefined)) return true;
  }
  return false;
}

/**
 * The admin/edit/view ClusterRoles OLM made for OperatorGroups that were deleted (by cleanup, or by
 * a failed run's rollback). OLM removes them on the group's delete event from its informer cache, so
 * one created just before the delete is missed and stays for good (seen on the real test bed);
 * swept after the group is gone, and once more when there were any, in case a sync in flight
 * re-creates one.
 */
export async function removeOperatorGroupRoles(
  client: KubeClient,
  groups: readonly string[],
  namespace: string,
): Promise<ObjectRef[]> {
  const removed: ObjectRef[] = [];
  if (groups.length === 0) return removed;
  for (let pass = 0; pass < 2; pass++) {
    if (pass > 0) {
      if (removed.length === 0) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    for (const name of groups) {
      const selector = `olm.owner=${name},olm.owner.kind=OperatorGroup,olm.owner.namespace=${namespace}`;
      for (const role of await listIn(client, "rbac.authorization.k8s.io/v1", "ClusterRole", "", selector)) {
        const ref = refOf(role);
        await client.delete(ref).catch(() => undefined);
        if (!removed.some((r) => r.name === ref.name)) removed.push(ref);
      }
    }
  }
  return removed;
}
