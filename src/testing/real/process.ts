// One control-plane component as a child process: its own process group (so a terminal's Ctrl-C
// reaches only the orchestrator, which stops components in order), output to a log file, and
// readiness checks that fail fast, with the log's tail, when the process dies.
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import type { Reaper } from "./reaper.js";

export interface ComponentSpec {
  name: string;
  binary: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
}

export class Component {
  readonly exited: Promise<number | null>;
  private done = false;

  private constructor(
    readonly spec: ComponentSpec,
    private readonly child: ChildProcess,
    private readonly reaper: Reaper,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code) => {
        this.done = true;
        reaper.forgetProcess(this.pid);
        resolve(code);
      });
      child.once("error", () => {
        this.done = true;
        resolve(null);
      });
    });
  }

  static start(spec: ComponentSpec, reaper: Reaper): Component {
    const log = openSync(spec.logFile, "a");
    try {
      const child = spawn(spec.binary, spec.args, {
        detached: true,
        stdio: ["ignore", log, log],
        env: spec.env ?? process.env,
      });
      if (child.pid !== undefined) reaper.watchProcess(child.pid);
      child.unref();
      return new Component(spec, child, reaper);
    } finally {
      closeSync(log);
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return !this.done && this.child.pid !== undefined;
  }

  /** Last lines of the component's log, for error messages. */
  logTail(lines = 25): string {
    try {
      return readFileSync(this.spec.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /** Error for a component that exited or never became ready. */
  failure(what: string): Error {
    return new Error(`${this.spec.name} ${what}; log ${this.spec.logFile} ends with:\n${this.logTail()}`);
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    signalGroup(this.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(this.pid, "SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Polls `check` until it resolves true; fails early when `component` exits, or after `timeoutMs`. */
export async function waitUntilReady(
  component: Component,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!component.running) throw component.failure("exited before it was ready");
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw component.failure(`was not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
