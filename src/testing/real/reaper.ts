// A tiny detached watchdog: when the process that started the control plane dies without stopping
// it (SIGKILL, a crashed test worker), the reaper kills the components' process groups and removes
// their temporary directory. It learns what to reap over its stdin; end of stdin (the parent's
// death closes the pipe) or a vanished parent pid triggers the reaping; "release" ends it quietly.
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

// Plain JavaScript run with `node -e`, so it needs no file on disk next to the compiled library.
const REAPER_SOURCE = `
const { rmSync } = require("node:fs");
const parent = Number(process.argv[1]);
const groups = new Set();
const dirs = new Set();
let buffer = "";
let done = false;
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const signal = (pid, sig) => { try { process.kill(-pid, sig); } catch {} };
function reap() {
  if (done) return;
  done = true;
  for (const pid of groups) signal(pid, "SIGTERM");
  const deadline = Date.now() + 5000;
  const finish = () => {
    const left = [...groups].filter(alive);
    if (left.length > 0 && Date.now() < deadline) return void setTimeout(finish, 100);
    for (const pid of left) signal(pid, "SIGKILL");
    for (const dir of dirs) { try { rmSync(dir, { recursive: true, force: true }); } catch {} }
    process.exit(0);
  };
  finish();
}
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    const [verb, ...rest] = line.split(" ");
    const arg = rest.join(" ");
    if (verb === "pid") groups.add(Number(arg));
    else if (verb === "forget") groups.delete(Number(arg));
    else if (verb === "dir") dirs.add(arg);
    else if (verb === "release") process.exit(0);
  }
});
process.stdin.on("end", reap);
process.stdin.on("error", reap);
setInterval(() => { if (!alive(parent)) reap(); }, 500);
`;

export class Reaper {
  private constructor(private readonly stdin: Socket) {}

  static start(): Reaper {
    const child = spawn(process.execPath, ["-e", REAPER_SOURCE, String(process.pid)], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.unref();
    const stdin = child.stdin as unknown as Socket;
    stdin.unref();
    stdin.on("error", () => undefined);
    return new Reaper(stdin);
  }

  /** Kill this process group (its leader's pid) if the parent dies. */
  watchProcess(pid: number): void {
    this.stdin.write(`pid ${pid}\n`);
  }

  forgetProcess(pid: number): void {
    this.stdin.write(`forget ${pid}\n`);
  }

  /** Remove this directory if the parent dies. */
  watchDirectory(dir: string): void {
    this.stdin.write(`dir ${dir}\n`);
  }

  /** The parent cleaned up itself: end the reaper without reaping. */
  release(): void {
    this.stdin.end("release\n");
  }
}
