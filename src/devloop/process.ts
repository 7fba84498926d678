// The manager as a child process of `run local`: started with node and the computed environment,
// its output streamed to the terminal, stopped like the kubelet stops a container (SIGTERM, then
// SIGKILL after the grace period). A child never outlives tsop.
import { type ChildProcess, spawn } from "node:child_process";

export interface ManagerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagerProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<ManagerExit>;
  /** SIGTERM, then SIGKILL when it has not exited after graceMs. */
  stop(graceMs: number): Promise<ManagerExit>;
  kill(): void;
}

export interface StartOptions {
  cwd: string;
  entry: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export function startManager(options: StartOptions): ManagerProcess {
  const child: ChildProcess = spawn(process.execPath, [options.entry, ...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.on("exit", killOnExit);
  const exited = new Promise<ManagerExit>((resolve) => {
    child.once("exit", (code, signal) => {
      process.removeListener("exit", killOnExit);
      resolve({ code, signal });
    });
    child.once("error", () => {
      process.removeListener("exit", killOnExit);
      resolve({ code: 127, signal: null });
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    pid: child.pid,
    exited,
    async stop(graceMs) {
      if (done) return exited;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
    kill() {
      if (!done) child.kill("SIGKILL");
    },
  };
}
