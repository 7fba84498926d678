// What counts in controller_runtime_reconcile_panics_total. Go separates panics (a nil dereference,
// an index out of range: a bug in the reconciler) from returned errors; JavaScript throws both. The
// errors the engine itself throws for such bugs are TypeError ("cannot read properties of
// undefined"), ReferenceError and RangeError, so those count as panics. As controller-runtime with
// RecoverPanic (its default) they also count as errors and are retried with backoff. Node's fetch
// reports a network failure as TypeError("fetch failed"): that one is an error, not a bug.
export function isPanic(err: unknown): boolean {
  if (err instanceof TypeError) return err.message !== "fetch failed";
  return err instanceof ReferenceError || err instanceof RangeError;
}
