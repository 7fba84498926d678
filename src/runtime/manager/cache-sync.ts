// Waiting for the caches at start, bounded as controller-runtime's CacheSyncTimeout (2 min): an
// informer that cannot list (a missing RBAC verb above all) ends start() with an error that names
// its kind and the server's last answer, instead of leaving the operator waiting forever.
import { TsopError } from "../../common/errors.js";
import { ApiError } from "../connect/errors.js";
import type { SharedInformer } from "../cache/informer.js";

export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** What the server last said about an informer's list or watch (its Status message when it sent one). */
export function lastErrorText(informer: SharedInformer): string | undefined {
  const err = informer.lastError();
  if (!err) return undefined;
  return err instanceof ApiError ? (err.body?.message ?? err.message) : err.message;
}

function describe(informer: SharedInformer): string {
  const last = lastErrorText(informer);
  return `${informer.mapping.kind} (${informer.resource})${last ? `: ${last}` : ": still listing"}`;
}

/** The @Rbac line that lets an informer list and watch its kind. */
function rbacLine(informer: SharedInformer): string {
  const err = informer.lastError();
  const refused = err instanceof ApiError ? err.refused : undefined;
  const group = refused?.group ?? informer.mapping.group;
  return `@Rbac({ groups: [${JSON.stringify(group)}], resources: [${JSON.stringify(informer.resource)}], verbs: ["list", "watch"] })`;
}

export class CacheSyncTimeoutError extends TsopError {
  constructor(
    readonly waiting: readonly SharedInformer[],
    readonly timeoutMs: number,
  ) {
    const forbidden = waiting.filter((i) => {
      const err = i.lastError();
      return err instanceof ApiError && err.status === 403;
    });
    super(
      `timed out after ${timeoutMs / 1000} s waiting for caches to sync: ${waiting.map(describe).join("; ")}`,
      {
        hint: forbidden.length
          ? `grant the operator's role list and watch on ${forbidden.map((i) => i.resource).join(", ")} (${forbidden.map(rbacLine).join("; ")}; then \`tsop generate\` and redeploy config/rbac), or stop watching the kind`
          : "check that the API server is reachable and serves the kind; raise cacheSyncTimeoutMs for a very large cache",
      },
    );
  }
}

/**
 * Resolves true once every informer has synced, false if the signal aborts first; rejects with a
 * CacheSyncTimeoutError naming the informers still waiting after timeoutMs.
 */
export async function waitForCaches(
  informers: readonly SharedInformer[],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      Promise.all(informers.map((i) => i.waitForSync())).then(() => !signal.aborted),
      new Promise<boolean>((resolve) => {
        onAbort = () => resolve(false);
        signal.addEventListener("abort", onAbort, { once: true });
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new CacheSyncTimeoutError(
              informers.filter((i) => !i.hasSynced()),
              timeoutMs,
            ),
          );
        }, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
