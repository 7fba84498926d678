// Runs one container as a local process: a private mount namespace (`unshare --mount`) in which
// the pod's volumes are bind-mounted into the image's root filesystem at their mount paths, then
// `unshare --root` (chroot) into it with the container's working directory and environment. The
// host network is shared (the runner rewrites declared ports, see pod-runner.ts). Needs root, as a
// kubelet does; the process group is killed on stop.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

export interface Mount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
  /** A single file (e.g. /etc/hosts) rather than a directory. */
  file?: boolean;
}

export interface ContainerProcess {
  child: ChildProcess;
  /** Resolves with the exit code (signals count as 128 + n). */
  exited: Promise<number>;
  stop(): void;
}

export interface RunSpec {
  rootfs: string;
  mounts: Mount[];
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  logFile: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell script that prepares the mount namespace and enters the root filesystem. */
export function sandboxScript(spec: RunSpec): string {
  const lines = ["set -e"];
  const target = (path: string) => quote(`${spec.rootfs}${path}`);
  lines.push(`mkdir -p ${target("/dev")} ${target("/proc")} ${target("/tmp")}`);
  lines.push(`mount --rbind /dev ${target("/dev")}`);
  lines.push(`mount -t proc proc ${target("/proc")}`);
  for (const m of spec.mounts) {
    if (m.file) {
      lines.push(`mkdir -p "$(dirname ${target(m.containerPath)})"`, `touch ${target(m.containerPath)}`);
    } else {
      lines.push(`mkdir -p ${target(m.containerPath)}`);
    }
    lines.push(`mount --bind ${quote(m.hostPath)} ${target(m.containerPath)}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${target(m.containerPath)}`);
  }
  lines.push(
    `exec unshare --root=${quote(spec.rootfs)} --wd=${quote(spec.workingDir || "/")} -- ${spec.argv.map(quote).join(" ")}`,
  );
  return lines.join("\n");
}

export function runContainer(spec: RunSpec): ContainerProcess {
  const log = createWriteStream(spec.logFile, { flags: "a" });
  const child = spawn(
    "unshare",
    ["--mount", "--propagation", "private", "--fork", "sh", "-c", sandboxScript(spec)],
    {
      env: spec.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number>((resolve) => {
    child.once("error", () => resolve(127));
    child.once("exit", (code, signal) => {
      log.end();
      resolve(code ?? (signal ? 128 + (signalNumber[signal] ?? 9) : 1));
    });
  });
  return {
    child,
    exited,
    stop() {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  };
}

const signalNumber: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };
