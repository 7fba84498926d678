// When a run has settled: the operator is idle (nothing running, queued or due for a retry), the
// API server's resourceVersion stopped moving, the workloads simulation has no change on its way
// (a pod about to start moves the resourceVersion only after its delay, longer than the quiet
// checks), and the operator's cache shows every compared object at the server's resourceVersion.
// Checked a few times in a row.
import type { Client, KindRef, KubeObjectLike } from "../../runtime/index.js";
import type { RunCluster } from "./cluster.js";
import type { PerturbedOperator } from "./operator.js";

/**
 * "full": idle, no retry due, and the cache agrees on every compared kind; "primaries": idle and
 * the cache agrees on the reconciled kinds (the others' events are held on purpose); "idle": idle
 * only (the operator is blind on purpose).
 */
export type SettleMode = "full" | "primaries" | "idle";

export async function settle(
  cluster: RunCluster,
  operator: PerturbedOperator,
  admin: Client,
  kinds: Array<KindRef<KubeObjectLike>>,
  mode: SettleMode,
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let lastVersion = "";
  while (Date.now() < deadline) {
    // Consecutive quiet checks make a run settled (a requeue or an event in flight breaks it).
    await new Promise((r) => setTimeout(r, cluster.quiet.pollMs));
    if (operator.failure) return `the manager failed: ${String(operator.failure)}`;
    const version = await cluster.resourceVersion();
    const still =
      version === lastVersion &&
      !cluster.workloadsBusy() &&
      operator.idle(mode === "full") &&
      (mode === "idle" || (await cacheAgrees(operator, admin, mode === "full" ? kinds : operator.primaries)));
    lastVersion = version;
    quiet = still ? quiet + 1 : 0;
    if (quiet >= cluster.quiet.checks) return undefined;
  }
  const busy = operator.busy(mode === "full");
  return `the operator did not settle within ${timeoutMs} ms: ${busy ?? "its cache still differs from the server, or the API server's objects kept changing"}`;
}

/** Whether the operator's cache holds every compared object at the server's resourceVersion. */
async function cacheAgrees(
  operator: PerturbedOperator,
  admin: Client,
  kinds: Array<KindRef<KubeObjectLike>>,
): Promise<boolean> {
  const reader = operator.manager?.client;
  if (!reader) return false;
  for (const kind of kinds) {
    const server = await admin.list(kind);
    const cached = await reader.list(kind).catch(() => undefined);
    if (!cached || cached.length !== server.length) return false;
    const versions = new Set(cached.map(version));
    if (!server.every((o) => versions.has(version(o)))) return false;
  }
  return true;
}

function version(obj: unknown): string {
  const meta = (obj as { metadata?: { namespace?: string; name?: string; resourceVersion?: string } })
    .metadata;
  return `${meta?.namespace}/${meta?.name}@${meta?.resourceVersion}`;
}
