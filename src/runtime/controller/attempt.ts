// One reconcile attempt under its own AbortSignal, aborted when the controller stops (the parent
// signal) or at the reconciliationTimeout. JavaScript cannot stop a promise: at the deadline the
// attempt ends as timed out whether or not the reconciler heeds its signal, and `settled` tells
// when the reconciler's code really ended (the controller holds the key until then).
export type AttemptOutcome<R> =
  { kind: "returned"; value: R } | { kind: "threw"; error: unknown } | { kind: "timedOut"; error: Error };

export interface Attempt<R> {
  /** How the attempt ended: the reconciler's answer, or the deadline, whichever came first. */
  outcome: Promise<AttemptOutcome<R>>;
  /** Resolves once the reconciler's promise has settled (after `outcome` when it timed out). */
  settled: Promise<void>;
}

export interface AttemptOptions {
  /** Aborted when the controller stops: aborts the attempt's signal with the same reason. */
  parent: AbortSignal;
  /** No deadline when undefined or not positive. */
  timeoutMs?: number;
  /** The reason the signal aborts with at the deadline (also the outcome's error). */
  timeoutError: () => Error;
}

export function startAttempt<R>(
  run: (signal: AbortSignal) => Promise<R>,
  options: AttemptOptions,
): Attempt<R> {
  const abort = new AbortController();
  const { parent, timeoutMs } = options;
  const onParentAbort = () => abort.abort(parent.reason);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener("abort", onParentAbort, { once: true });

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<AttemptOutcome<R>>((resolve) => {
    if (timeoutMs === undefined || !(timeoutMs > 0)) return;
    timer = setTimeout(() => {
      const error = options.timeoutError();
      abort.abort(error);
      resolve({ kind: "timedOut", error });
    }, timeoutMs);
  });

  let running: Promise<R>;
  try {
    running = run(abort.signal);
  } catch (error) {
    running = Promise.reject(error); // a reconciler that throws before returning its promise
  }
  const answered = Promise.resolve(running).then(
    (value): AttemptOutcome<R> => ({ kind: "returned", value }),
    (error: unknown): AttemptOutcome<R> => ({ kind: "threw", error }),
  );
  const settled = answered.then(() => {
    clearTimeout(timer);
    parent.removeEventListener("abort", onParentAbort);
  });
  return { outcome: Promise.race([answered, deadline]), settled };
}
