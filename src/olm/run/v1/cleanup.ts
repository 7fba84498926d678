// `tsop cleanup <package> --olm v1`: what `run bundle --olm v1` created, found by its labels
// (managed-by tsop, the package), deleted in stages, each waited for: the ClusterExtension first
// (operator-controller removes what it installed under its finalizers, with the installer's RBAC),
// then the ClusterCatalog, then the installer's binding, ClusterRole and ServiceAccount, and last
// the namespace when tsop created it. --dry-run lists them. Idempotent: a second run finds nothing.
import { TsopError } from "../../../common/errors.js";
import type { KubeClient } from "../../../kube/client.js";
import { type ClusterOptions, connect } from "../../../kube/connect.js";
import { deleteAndWait } from "../../../kube/delete.js";
import { listIn } from "../../../kube/list.js";
import { type ObjectRef, refOf } from "../../../kube/objects.js";
import { type CleanupItem, item } from "../cleanup-targets.js";
import { packageSelector } from "../names.js";
import { requireOlmV1 } from "./detect.js";
import { OLM_V1 } from "./plan.js";

export interface CleanupV1Options extends ClusterOptions {
  packageName: string;
  timeoutMs: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface CleanupV1Result {
  olm: "v1";
  packageName: string;
  dryRun: boolean;
  items: CleanupItem[];
}

const RBAC = "rbac.authorization.k8s.io/v1";

/** The kinds the v1 path creates, in delete stages (each stage gone before the next starts). */
export const V1_CLEANUP_STAGES: ReadonlyArray<ReadonlyArray<{ apiVersion: string; kind: string }>> = [
  [{ apiVersion: OLM_V1, kind: "ClusterExtension" }],
  [{ apiVersion: OLM_V1, kind: "ClusterCatalog" }],
  [
    { apiVersion: RBAC, kind: "ClusterRoleBinding" },
    { apiVersion: RBAC, kind: "ClusterRole" },
    { apiVersion: "v1", kind: "ServiceAccount" },
  ],
  [{ apiVersion: "v1", kind: "Namespace" }],
];

/** What tsop created for the package, by stage (reads only). */
export async function findV1Targets(client: KubeClient, packageName: string): Promise<ObjectRef[][]> {
  const selector = packageSelector(packageName);
  const stages: ObjectRef[][] = [];
  for (const stage of V1_CLEANUP_STAGES) {
    const refs: ObjectRef[] = [];
    for (const { apiVersion, kind } of stage)
      refs.push(...(await listIn(client, apiVersion, kind, "", selector)).map(refOf));
    stages.push(refs);
  }
  return stages;
}

export async function cleanupV1(options: CleanupV1Options): Promise<CleanupV1Result> {
  const { reporter, packageName } = options;
  const conn = await connect(options);
  const client = conn.client;
  try {
    await requireOlmV1(client);
    const stages = await findV1Targets(client, packageName);
    const all = stages.flat();
    if (all.length === 0)
      throw new TsopError(
        `nothing to clean up: tsop created no OLM v1 objects for package "${packageName}"`,
        {
          hint: "check the package name `tsop run bundle --olm v1` printed (or use --olm v0)",
          exitCode: 1,
        },
      );
    if (options.dryRun)
      return { olm: "v1", packageName, dryRun: true, items: all.map((r) => item(r, "would delete")) };
    const deadline = Date.now() + options.timeoutMs;
    const items: CleanupItem[] = [];
    for (const stage of stages) {
      if (stage.length === 0) continue;
      const extension = stage[0]!.kind === "ClusterExtension";
      const outcome = await deleteAndWait(client, stage, {
        reporter,
        timeoutMs: Math.max(deadline - Date.now(), 1000),
        what: extension
          ? "the ClusterExtension and what it installed to be deleted"
          : "the objects tsop created to be deleted",
        signal: options.signal,
        // What operator-controller installed (and its Helm release Secrets) is owned by the
        // ClusterExtension and removed by the garbage collector: in the foreground, the
        // ClusterExtension is gone only once they are, so the later stages (the installer's RBAC)
        // and the caller never see them left behind.
        ...(extension ? { propagationPolicy: "Foreground" as const } : {}),
      });
      items.push(...outcome.deleted.map((r) => item(r, "deleted")));
      if (outcome.left.length)
        throw new TsopError(
          `could not remove everything tsop created for ${packageName}:\n${outcome.left.map((l) => `  - ${l}`).join("\n")}`,
          {
            hint: "run the cleanup again once the cause is fixed; it continues where it stopped",
          },
        );
    }
    reporter.success(`Removed package ${packageName} (OLM v1)`);
    return { olm: "v1", packageName, dryRun: false, items };
  } finally {
    if (conn.owned) conn.client.close();
  }
}
