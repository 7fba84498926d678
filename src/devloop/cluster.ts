// The cluster side shared by the dev-loop commands: connecting (with the "which cluster" line every
// command prints first), listing the custom resources of CRDs, and deleting custom resources while
// reporting which finalizers hold them.
import { TimeoutError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "../kube/client.js";
import { NoKindMatchError } from "../kube/errors.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "../kube/objects.js";
import { goneCheck, waitFor } from "../kube/wait.js";
import { type ClusterOptions, connect } from "../kube/connect.js";
import { messages } from "./messages.js";

export type { ClusterOptions };

export interface DevSession {
  client: KubeClient;
  close(): void;
}

/**
 * Connects and tells the user which cluster the command acts on, and which namespace: `true` for the
 * connection's own (-n, else the context's).
 */
export async function openCluster(options: ClusterOptions, namespace?: string | true): Promise<DevSession> {
  const { client, owned } = await connect(options);
  const shown = namespace === true ? client.namespace : namespace;
  options.reporter.info(`using ${messages.target(client.server, client.connection.contextName, shown)}`);
  return { client, close: () => owned && client.close() };
}

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
    try {
      const { items } = await client.list(crdApiVersion(live), String(live.spec?.names?.kind ?? ""), {
        namespace: "",
      });
      found.push(...items);
    } catch (error) {
      // A CRD that is not established yet serves nothing, so it holds no objects.
      if (!(error instanceof NoKindMatchError)) throw error;
    }
  }
  return found;
}

export interface DeleteResourcesOptions {
  reporter: Reporter;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Deletes the objects and waits until they are gone. When time runs out, the error lists each object
 * still there with the finalizers holding it (the usual cause: its operator is not running).
 */
export async function deleteResources(
  client: KubeClient,
  objects: KubeObject[],
  options: DeleteResourcesOptions,
): Promise<ObjectRef[]> {
  const refs = objects.map(refOf);
  // Foreground: an object goes only after the garbage collector deleted what it owns. A CRD deleted
  // right after its custom resources would otherwise race the collector: once the kind is gone it
  // can no longer resolve those owners and leaves their Deployments behind for good.
  for (const ref of refs) {
    if (await client.delete(ref, "Foreground")) options.reporter.info(`  deleting ${describeRef(ref)}`);
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
    const m = messages.finalizersBlock(await blockers(client, refs));
    throw new TimeoutError(m.message, { hint: m.hint, cause: error });
  }
  return refs;
}

async function blockers(client: KubeClient, refs: ObjectRef[]): Promise<string[]> {
  const lines: string[] = [];
  for (const ref of refs) {
    const obj = await client.get(ref).catch(() => undefined);
    if (!obj) continue;
    const finalizers = obj.metadata.finalizers ?? [];
    lines.push(
      `${describeRef(ref)}: ${finalizers.length > 0 ? `waiting for finalizer(s) ${finalizers.join(", ")}` : "still terminating"}`,
    );
  }
  return lines;
}
