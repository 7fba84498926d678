// One command's cluster session: the client, the overall deadline and the interrupt signal, the
// rollback journal (what this run created, then what OLM makes from it) and phase wrapping so a
// failure says which phase broke and why (failure.ts reports it and rolls the journal back).
import { ExitCode, TimeoutError, TsopError } from "../../common/errors.js";
import { formatDuration } from "../../common/duration.js";
import { throwIfInterrupted, trackLeftovers } from "../../common/interrupt.js";
import type { Reporter } from "../../common/reporter.js";
import type { KubeClient } from "../../kube/client.js";
import { describeRef, type KubeObject, type ObjectRef, refOf } from "../../kube/objects.js";
import { WaitFailedError, waitFor, type WaitTarget } from "../../kube/wait.js";

export class Session {
  /** Objects this run created, in creation order. */
  readonly created: ObjectRef[] = [];
  /** Objects OLM makes from them (the CSV, CRDs new to the cluster, InstallPlans). */
  private readonly consequences: ObjectRef[] = [];
  private readonly started = Date.now();
  readonly phases: Array<{ phase: string; ms: number }> = [];

  constructor(
    readonly client: KubeClient,
    readonly reporter: Reporter,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly command: string,
  ) {
    // A second Ctrl-C stops at once: it then names what this run had created.
    trackLeftovers(signal, () => this.created.map(describeRef));
  }

  elapsed(): number {
    return Date.now() - this.started;
  }

  /** Budget left for the next wait; a TimeoutError once the overall --timeout is spent. */
  remaining(what: string): number {
    const left = this.timeoutMs - this.elapsed();
    if (left <= 0) {
      throw new TimeoutError(`timed out after ${formatDuration(this.timeoutMs)} before ${what}`, {
        hint: "raise --timeout if the cluster is only slow",
      });
    }
    return left;
  }

  checkInterrupted(): void {
    throwIfInterrupted(this.signal);
  }

  /** Creates an object and remembers it for rollback. */
  async create(obj: KubeObject): Promise<KubeObject> {
    this.checkInterrupted();
    const created = await this.client.create(obj);
    this.created.push(refOf({ ...obj, metadata: { ...obj.metadata, name: created.metadata.name } }));
    this.reporter.debug(`created ${describeRef(refOf(obj))}`);
    return created;
  }

  /** Records an object OLM will make from what this run created: a rollback removes it too. */
  expect(ref: ObjectRef): void {
    this.consequences.push(ref);
  }

  /** The rollback journal: what a failed run removes (deleteAndWait puts it in delete order). */
  journal(): ObjectRef[] {
    return [...this.created, ...this.consequences];
  }

  /** A phase that waits, within what is left of --timeout, until `ref` passes `check`. */
  waitPhase(
    name: string,
    ref: ObjectRef,
    check: WaitTarget["check"],
    text: WaitText,
  ): Promise<Map<string, KubeObject | undefined>> {
    return this.phase(name, () => this.waitUntil(ref, check, text));
  }

  /** Waits, within what is left of --timeout, until `ref` passes `check` (inside a phase). */
  waitUntil(
    ref: ObjectRef,
    check: WaitTarget["check"],
    text: WaitText,
  ): Promise<Map<string, KubeObject | undefined>> {
    return waitFor(this.client, [{ ref, check }], {
      timeoutMs: this.remaining(text.before),
      reporter: this.reporter,
      what: text.what,
      signal: this.signal,
      relistIntervalMs: text.relistIntervalMs,
    });
  }

  /** Runs one phase; failures become a PhaseError naming the phase. */
  async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const start = Date.now();
    try {
      this.checkInterrupted();
      const result = await fn();
      this.phases.push({ phase: name, ms: Date.now() - start });
      return result;
    } catch (error) {
      if (error instanceof PhaseError) throw error;
      throw new PhaseError(name, error);
    }
  }
}

/** How a wait is named: what must have happened `before` the timeout, and `what` it waits for. */
export interface WaitText {
  before: string;
  what: string;
  relistIntervalMs?: number;
}

/** A failure inside a named phase, with OLM's diagnostics appended later. */
export class PhaseError extends TsopError {
  readonly details: string[] = [];
  constructor(
    readonly phase: string,
    readonly original: unknown,
  ) {
    const err = original instanceof Error ? original : new Error(String(original));
    super(err.message, {
      cause: original,
      hint: original instanceof TsopError ? original.hint : undefined,
      exitCode: exitCodeFor(original),
    });
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof TimeoutError) return ExitCode.timeout;
  if (error instanceof WaitFailedError) return ExitCode.installFailed;
  if (error instanceof TsopError) return error.exitCode;
  return ExitCode.failure;
}
