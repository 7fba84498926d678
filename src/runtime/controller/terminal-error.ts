// controller-runtime's reconcile.TerminalError: a reconcile failure that retrying cannot fix (an
// invalid spec, a missing reference the user must create). The controller logs and counts it and
// does not requeue the key; the next event on the object reconciles it again.
export class TerminalError extends Error {
  override readonly name = "TerminalError";

  constructor(cause: unknown) {
    super(`terminal error: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Wraps `err` so the controller does not retry it: `throw terminalError(err)`. */
export function terminalError(err: unknown): TerminalError {
  return err instanceof TerminalError ? err : new TerminalError(err);
}

/** Whether `err` or any error in its `cause` chain is a TerminalError (Go's errors.Is). */
export function isTerminalError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e instanceof Error && !seen.has(e); e = e.cause) {
    if (e instanceof TerminalError) return true;
    seen.add(e);
  }
  return false;
}
