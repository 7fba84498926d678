// One operator process under measurement: started with the bed's kubeconfig, its output in a log
// file, stopped with SIGTERM (SIGKILL after 15 s), and its CPU and memory read from /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cpuMs, RssSampler } from "./probe.js";
import type { Operator } from "./twins.js";

export class OperatorProcess {
  readonly rss: RssSampler;
  readonly exited: Promise<number | null>;
  private running = true;

  private constructor(
    private readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    this.rss = new RssSampler(child.pid!);
    this.exited = new Promise((resolve) =>
      child.once("exit", (code) => {
        this.running = false;
        resolve(code);
      }),
    );
  }

  static start(
    operator: Operator,
    kubeconfig: string,
    dir: string,
    extraArgs: string[] = [],
  ): OperatorProcess {
    const logFile = join(dir, `${operator.side}.log`);
    const log = openSync(logFile, "a");
    try {
      const child = spawn(operator.command, [...operator.args, ...extraArgs], {
        cwd: operator.cwd,
        env: { ...process.env, KUBECONFIG: kubeconfig, NO_COLOR: "1" },
        stdio: ["ignore", log, log],
      });
      if (child.pid === undefined) throw new Error(`${operator.command} did not start`);
      return new OperatorProcess(child, logFile);
    } finally {
      closeSync(log);
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.running;
  }

  cpuMs(): number {
    return cpuMs(this.pid);
  }

  /**
   * How many reconciles it has run: asks with SIGUSR2 (both twins print "bench-reconciles <n>") and
   * reads the answer from its log.
   */
  async reconciles(): Promise<number> {
    const answers = () => [...this.logText().matchAll(/^bench-reconciles (\d+)$/gm)].map((m) => Number(m[1]));
    const before = answers().length;
    this.child.kill("SIGUSR2");
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline) {
      const now = answers();
      if (now.length > before) return now.at(-1)!;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${this.logFile}: no reconcile count 10 s after SIGUSR2`);
  }

  private logText(): string {
    try {
      return readFileSync(this.logFile, "utf8");
    } catch {
      return "";
    }
  }

  /** The last lines of its log, for a failure message. */
  tail(lines = 30): string {
    return this.logText().trimEnd().split("\n").slice(-lines).join("\n") || "(no log)";
  }

  async stop(): Promise<void> {
    this.rss.stop();
    if (!this.running) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}
