// The built CLI on a real pseudo-terminal (util-linux `script`), with spinners on, so a test can
// press Ctrl-C (the byte 0x03 typed on the terminal) as a person does. The terminal's line
// discipline turns it into SIGINT only while the terminal keeps `isig`.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { TSOP_BIN } from "./cli.js";

export interface TerminalRun {
  /** Everything the terminal showed so far. */
  output(): string;
  /** Resolves once the terminal shows `text` (rejects after timeoutMs, with the screen). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Types on the terminal, e.g. "\x03" for Ctrl-C. */
  type(text: string): void;
  /** Signals tsop itself (not `script`): for SIGTERM as a service manager sends it. */
  signalTsop(signal: NodeJS.Signals): Promise<void>;
  /** The exit code `script -e` passes on from tsop. */
  exited: Promise<number | null>;
}

export function runOnTerminal(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; killAfterMs?: number } = {},
): TerminalRun {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, TERM: "xterm-256color", NO_COLOR: "1", ...options.env }).filter(
      ([k, v]) => k !== "CI" && v !== undefined,
    ),
  ) as NodeJS.ProcessEnv;
  // A pipe has no window size: give the terminal one, or spinners redraw against 0 columns.
  const command = `stty cols 120 rows 40; exec ${[process.execPath, TSOP_BIN, ...args]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(" ")}`;
  const child: ChildProcessWithoutNullStreams = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd: options.cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
    for (const w of [...waiters]) w();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 120_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      for (const w of [...waiters]) w();
      resolve(code);
    }),
  );
  return {
    output: () => screen,
    waitFor(text, timeoutMs = 60_000) {
      const seen = () => (typeof text === "string" ? screen.includes(text) : text.test(screen));
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (seen()) {
            clearTimeout(giveUp);
            waiters.splice(waiters.indexOf(check), 1);
            resolve();
          } else if (child.exitCode !== null) {
            clearTimeout(giveUp);
            reject(new Error(`tsop ended before showing ${String(text)}:\n${tail(screen)}`));
          }
        };
        const giveUp = setTimeout(
          () => reject(new Error(`timed out waiting for ${String(text)}:\n${tail(screen)}`)),
          timeoutMs,
        );
        waiters.push(check);
        check();
      });
    },
    type(text) {
      child.stdin.write(text);
    },
    async signalTsop(signal) {
      // script's child is the shell running tsop (or tsop itself after exec): find node under it.
      const { execa } = await import("execa");
      const found = await execa("pgrep", ["-f", "-P", String(child.pid), TSOP_BIN], { reject: false });
      const direct = found.stdout.trim().split("\n").filter(Boolean);
      let pids = direct;
      if (pids.length === 0) {
        const shells = (await execa("pgrep", ["-P", String(child.pid)], { reject: false })).stdout
          .trim()
          .split("\n")
          .filter(Boolean);
        for (const shell of shells) {
          const inner = await execa("pgrep", ["-f", "-P", shell, TSOP_BIN], { reject: false });
          pids = pids.concat(inner.stdout.trim().split("\n").filter(Boolean));
        }
      }
      if (pids.length !== 1) throw new Error(`expected one tsop process under script, found ${pids.length}`);
      process.kill(Number(pids[0]), signal);
    },
    exited,
  };
}

/** The end of the screen, without cursor movement codes, for failure messages. */
export function tail(screen: string, chars = 3000): string {
  // eslint-disable-next-line no-control-regex
  return screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").slice(-chars);
}
