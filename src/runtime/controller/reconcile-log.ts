// How a failed reconcile that will be retried is logged. controller-runtime logs every failure at
// error level ("Reconciler error"), 409 Conflicts included; tsop keeps the first conflicts of a key
// at debug level (the usual way a level-triggered reconciler catches up with its cache) and logs
// them at error level once they repeat, when they mean something is wrong: another writer fighting
// over the object, or a write based on a read the cache will never update.
import { isConflict } from "../connect/errors.js";
import type { Logger } from "../log/logger.js";

/** Consecutive failures of a key after which a conflict is logged at error level. */
export const QUIET_CONFLICTS = 5;

export function logFailure(
  log: Logger,
  key: string,
  err: unknown,
  { retries, timedOut }: { retries: number; timedOut: boolean },
): void {
  if (timedOut) {
    log.error(`${(err as Error).message}; retrying with backoff`, err, { retries });
  } else if (isConflict(err) && retries < QUIET_CONFLICTS) {
    log.debug("reconcile hit a conflict; retrying", { err: (err as Error).message, retries });
  } else if (isConflict(err)) {
    log.error(
      `reconcile of ${key} keeps failing with 409 Conflict (${retries} attempts in a row); retrying with backoff`,
      err,
      {
        retries,
        hint: "another writer keeps changing the object, or the write is based on a read the cache never updates (an object outside the cache's selectors: read it with client.apiReader)",
      },
    );
  } else {
    log.error("reconcile failed", err, { retries });
  }
}
