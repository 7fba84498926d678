// Custom resources deleted before their CRD: the one way `cleanup --delete-crds`, `uninstall --force`
// and `undeploy --delete-crds` do it. Foreground propagation: a custom resource goes only after the
// garbage collector deleted what it owns. Deleted in the background and followed at once by its
// CRD, it races the collector, which can no longer resolve the owner's kind once the CRD is gone and
// leaves the Deployments it made behind for good. Waits until every one is gone, naming what blocks.
import { TimeoutError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "./client.js";
import { NoKindMatchError } from "./errors.js";
import type { Message } from "./messages.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "./objects.js";
import { goneCheck, waitFor } from "./wait.js";

/** The apiVersion a CRD's objects are listed with: its storage version (else the first served one). */
export function crdApiVersion(crd: KubeObject): string {
  const versions = (crd.spec?.versions ?? []) as Array<{ name: string; served?: boolean; storage?: boolean }>;
  const version = versions.find((v) => v.storage) ?? versions.find((v) => v.served) ?? versions[0];
  return `${String(crd.spec?.group ?? "")}/${version?.name ?? ""}`;
}

/** Every custom resource of the CRDs that exist in the cluster, across all namespaces. */
export async function customResourcesOf(client: KubeClient, crds: KubeObject[]): Promise<KubeObject[]> {
  const found: KubeObject[] = [];
  for (const crd of crds) {
    const live = await client.get(refOf(crd));
    if (!live) continue;
    const apiVersion = crdApiVersion(live);
    const kind = String(live.spec?.names?.kind ?? "");
    try {
      const { items } = await client.list(apiVersion, kind, { namespace: "" });
      found.push(...items.map((item) => ({ ...item, apiVersion, kind })));
    } catch (error) {
      // A CRD that is not established yet serves nothing, so it holds no objects.
      if (!(error instanceof NoKindMatchError)) throw error;
    }
  }
  return found;
}

export interface DeleteCustomResourcesOptions {
  reporter: Reporter;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The command's words for resources that stayed (lines: each one, its finalizers, how to release). */
  blocked: (lines: string[]) => Message;
}

/**
 * Deletes every custom resource of the CRDs (foreground) and waits until they are gone. When time
 * runs out, a TimeoutError from `blocked` lists each one still there with its finalizers and the
 * kubectl patch that releases it (the usual cause: its operator is not running).
 */
export async function deleteCustomResources(
  client: KubeClient,
  crds: KubeObject[],
  options: DeleteCustomResourcesOptions,
): Promise<ObjectRef[]> {
  const refs = (await customResourcesOf(client, crds)).map(refOf);
  if (refs.length === 0) return [];
  options.reporter.info(`deleting ${refs.length} custom resource(s), each after what it owns (foreground)`);
  const deleted: ObjectRef[] = [];
  for (const ref of refs) {
    if (await client.delete(ref, "Foreground")) {
      deleted.push(ref);
      options.reporter.info(`  deleting ${describeRef(ref)}`);
    }
  }
  try {
    await waitFor(
      client,
      refs.map((ref) => ({ ref, check: goneCheck })),
      {
        timeoutMs: options.timeoutMs,
        reporter: options.reporter,
        what: `${refs.length} custom resource(s) to be deleted`,
        signal: options.signal,
      },
    );
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    const m = options.blocked(await blockers(client, refs, crds));
    throw new TimeoutError(m.message, { hint: m.hint, cause: error });
  }
  return deleted;
}

async function blockers(client: KubeClient, refs: ObjectRef[], crds: KubeObject[]): Promise<string[]> {
  const lines: string[] = [];
  for (const ref of refs) {
    const obj = await client.get(ref).catch(() => undefined);
    if (!obj) continue;
    const finalizers = obj.metadata.finalizers ?? [];
    const group = ref.apiVersion.split("/")[0];
    const crd = crds.find((c) => c.spec?.group === group && c.spec?.names?.kind === ref.kind);
    const resource = crd?.metadata.name ?? ref.kind.toLowerCase();
    lines.push(
      `${describeRef(ref)}: ${finalizers.length > 0 ? `waiting for finalizer(s) ${finalizers.join(", ")}` : "still terminating"}\n` +
        `      release: kubectl patch ${resource} ${ref.name}${ref.namespace ? ` -n ${ref.namespace}` : ""} --type=merge -p '{"metadata":{"finalizers":null}}'`,
    );
  }
  return lines;
}
