// Ctrl-C and SIGTERM for every command that changes something (init, olm install, run bundle,
// bundle-upgrade, cleanup). The first signal aborts the work through an AbortSignal: the command
// removes what it created, then ends with InterruptedError (exit 130, or 143 for SIGTERM). A second
// signal stops at once and prints what was left behind.
import { ExitCode, TsopError } from "./errors.js";

type StopSignal = "SIGINT" | "SIGTERM";
const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGINT: 2, SIGTERM: 15 };

/** The user stopped the command (Ctrl-C or SIGTERM); what it created was removed first. */
export class InterruptedError extends TsopError {
  readonly signal: StopSignal;
  constructor(message = "interrupted", signal: StopSignal = "SIGINT") {
    super(message, { exitCode: signal === "SIGTERM" ? ExitCode.terminated : ExitCode.interrupted });
    this.signal = signal;
  }
}

/** Whether the error is the user's interrupt (directly, or wrapped by a phase error). */
export function isInterrupted(error: unknown): boolean {
  return (
    error instanceof InterruptedError ||
    (error instanceof TsopError &&
      (error.exitCode === ExitCode.interrupted || error.exitCode === ExitCode.terminated))
  );
}

/** A new InterruptedError for the signal that aborted `signal` (SIGINT when unknown). */
export function interruptedError(signal: AbortSignal | undefined, message = "interrupted"): InterruptedError {
  const reason: unknown = signal?.reason;
  return new InterruptedError(message, reason instanceof InterruptedError ? reason.signal : "SIGINT");
}

/** Throws an InterruptedError once the signal is aborted. */
export function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw interruptedError(signal);
}

const leftovers = new WeakMap<AbortSignal, Array<() => string[]>>();

/**
 * Registers what a unit of work has created so far, for the message printed when a second signal
 * stops the command at once (it cannot clean up any more).
 */
export function trackLeftovers(signal: AbortSignal | undefined, describe: () => string[]): void {
  if (!signal) return;
  const list = leftovers.get(signal) ?? [];
  list.push(describe);
  leftovers.set(signal, list);
}

export interface InterruptOptions {
  /** What the first signal starts, e.g. "removing what this run created". */
  rollback: string;
  /** How to remove what a stop at once leaves behind, e.g. "tsop cleanup <package>". */
  leftoverHint?: string;
  /** Where the notices go (default stderr). */
  write?: (text: string) => void;
  /** How to end at once on the second signal (default process.exit; tests replace it). */
  exit?: (code: number) => void;
}

/**
 * Runs `work` with an AbortSignal that the first SIGINT or SIGTERM aborts; a second signal prints
 * what is left and exits at once with 128 + the signal number.
 */
export async function withInterrupt<T>(
  options: InterruptOptions,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const write = options.write ?? ((text: string) => void process.stderr.write(text));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  let received: StopSignal | undefined;
  const onSignal = (signal: StopSignal) => {
    if (received) {
      write(`\n${stoppedAtOnce(controller.signal, options.leftoverHint)}\n`);
      exit(128 + SIGNAL_NUMBER[signal]);
      return;
    }
    received = signal;
    write(`\ninterrupted: ${options.rollback} (Ctrl-C again to stop at once)\n`);
    controller.abort(new InterruptedError("interrupted", signal));
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener("SIGINT", onInt);
    process.removeListener("SIGTERM", onTerm);
  }
}

function stoppedAtOnce(signal: AbortSignal, hint: string | undefined): string {
  const left = (leftovers.get(signal) ?? []).flatMap((describe) => describe());
  if (left.length === 0) return "stopped at once; nothing this command created was left behind";
  return [
    `stopped at once; left behind${hint ? ` (remove with: ${hint})` : ""}:`,
    ...left.map((l) => `  - ${l}`),
  ].join("\n");
}
