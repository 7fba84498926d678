// Runnables, as controller-runtime's manager.Add: work the manager starts and stops with itself.
// Leader-only ones (the default, as controller-runtime's) start once this replica leads and the
// caches synced; the others at start. A runnable that fails stops the manager, named in the error.
import { TsopError } from "../../common/errors.js";

export interface Runnable {
  /** Runs until done or until `signal` aborts (at stop, or when leadership is lost). */
  start(signal: AbortSignal): Promise<void>;
  /** Start only on the replica that leads. Default true, as controller-runtime's. */
  needLeaderElection?: boolean;
  /** Names the runnable in logs and errors. Default: its constructor's name, else "runnable #n". */
  name?: string;
}

export class RunnableError extends TsopError {
  constructor(
    readonly runnable: string,
    cause: unknown,
  ) {
    super(`runnable ${runnable} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      hint: "fix the runnable's error, or catch it inside start() if it should not stop the manager",
    });
  }
}

export function runnableName(runnable: Runnable, index: number): string {
  if (runnable.name) return runnable.name;
  const ctor = (runnable as object).constructor?.name;
  return ctor && ctor !== "Object" ? ctor : `runnable #${index + 1}`;
}

/** The runnables of one kind (leader-only or not): started together, awaited at shutdown. */
export class RunnableGroup {
  private readonly pending: Array<{ runnable: Runnable; name: string }> = [];
  private readonly running: Promise<void>[] = [];
  private signal: AbortSignal | undefined;

  constructor(private readonly onFailure: (err: RunnableError) => void) {}

  add(runnable: Runnable, name: string): void {
    if (this.signal) this.run(runnable, name, this.signal);
    else this.pending.push({ runnable, name });
  }

  /** Starts every runnable added so far, and any added later, with this signal. */
  start(signal: AbortSignal): void {
    if (this.signal) return;
    this.signal = signal;
    for (const { runnable, name } of this.pending.splice(0)) this.run(runnable, name, signal);
  }

  /** Resolves true when every started runnable returned within budgetMs. */
  async wait(budgetMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), budgetMs)));
    const done = Promise.all(this.running).then(() => true);
    try {
      return await Promise.race([done, budget]);
    } finally {
      clearTimeout(timer);
    }
  }

  private run(runnable: Runnable, name: string, signal: AbortSignal): void {
    if (signal.aborted) return;
    const started = (async () => runnable.start(signal))();
    this.running.push(
      started.then(
        () => {},
        (err: unknown) => this.onFailure(new RunnableError(name, err)),
      ),
    );
  }
}
