// The error a request ends with when its caller's AbortSignal fires (a reconcile's ctx.signal at
// shutdown or at its reconciliationTimeout, or the caller's own): one clear message naming the
// request and why, instead of Node's bare "The operation was aborted" or "aborted" (ECONNRESET).
export class RequestAbortedError extends Error {
  override readonly name = "AbortError";
  readonly code = "ABORT_ERR";

  constructor(
    readonly method: string,
    readonly path: string,
    reason: unknown,
  ) {
    super(`${method} ${path}: aborted by the caller's signal (${reasonText(reason)})`, { cause: reason });
  }
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? "no reason given" : String(reason);
}

/** Whether `err` is a request ended by its AbortSignal. */
export function isAborted(err: unknown): err is RequestAbortedError {
  return err instanceof RequestAbortedError;
}
