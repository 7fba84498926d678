// The reconciles whose code is still running (timed-out ones too), so that stop() can tell
// whether it drained: true only when none is left.
export class InFlight {
  private readonly running = new Set<Promise<void>>();
  private readonly waiters: Array<() => void> = [];

  /** Tracks `settled` until it resolves. */
  track(settled: Promise<void>): void {
    this.running.add(settled);
    void settled.then(() => {
      this.running.delete(settled);
      if (this.running.size === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when nothing is running. */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
