// How both work queues wait for their in-flight keys at shutdown: until done() empties the set
// being processed (it calls the drain waiters) or the timeout passes, whichever comes first.

/** Resolves when `waiters` are called (nothing in flight any more) or after `timeoutMs`. */
export async function waitForDrain(waiters: Array<() => void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise<void>((resolve) => waiters.push(resolve)),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref?.();
    }),
  ]);
  clearTimeout(timer);
}
