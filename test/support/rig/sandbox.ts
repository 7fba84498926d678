// Runs one container as a local process: private mount and UTS namespaces (`unshare --mount --uts`;
// the host name is the pod's) in which the pod's volumes are bind-mounted into the image's root
// filesystem at their mount paths, then `unshare --root` (chroot) into it with the container's working directory, environment and user
// (uid/gid set after the chroot). With readOnlyRootFilesystem the root filesystem is a read-only
// bind mount (volumes stay as mounted). The host network is shared (the runner rewrites declared
// ports, see ports.ts). Needs root, as a kubelet does. Termination: SIGTERM to the process group
// (the program gets it; `unshare --fork` waits for it and exits with its status), SIGKILL after
// the grace period.
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
  /** SIGKILL to the process group. */
  stop(): void;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once it exited. */
  terminate(graceMs: number): Promise<number>;
}

export interface RunSpec {
  rootfs: string;
  mounts: Mount[];
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  logFile: string;
  /** The host name the program sees (the pod's name, as in a pod's own UTS namespace). */
  hostname?: string;
  /** The user and group the program runs as (default root). */
  user?: { uid: number; gid: number };
  readOnlyRootFilesystem?: boolean;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell script that prepares the mount namespace and enters the root filesystem. */
export function sandboxScript(spec: RunSpec): string {
  const lines = ["set -e"];
  if (spec.hostname) lines.push(`hostname ${quote(spec.hostname)}`);
  const target = (path: string) => quote(`${spec.rootfs}${path}`);
  // Mount points are made twice: in the root filesystem before it may become read-only, and again
  // right before each mount, as one may lie inside a volume mounted over an earlier one (/tmp, then
  // /tmp/certs). Existing ones are left alone (a read-only root refuses even a touch).
  const mountPoint = (m: Mount) =>
    m.file
      ? `mkdir -p "$(dirname ${target(m.containerPath)})" && { [ -e ${target(m.containerPath)} ] || touch ${target(m.containerPath)}; }`
      : `mkdir -p ${target(m.containerPath)}`;
  lines.push(`mkdir -p ${target("/dev")} ${target("/proc")} ${target("/tmp")}`);
  for (const m of spec.mounts) lines.push(mountPoint(m));
  if (spec.readOnlyRootFilesystem) {
    lines.push(`mount --bind ${quote(spec.rootfs)} ${quote(spec.rootfs)}`);
    lines.push(`mount -o remount,bind,ro ${quote(spec.rootfs)}`);
  }
  lines.push(`mount --rbind /dev ${target("/dev")}`);
  lines.push(`mount -t proc proc ${target("/proc")}`);
  for (const m of spec.mounts) {
    lines.push(mountPoint(m));
    lines.push(`mount --bind ${quote(m.hostPath)} ${target(m.containerPath)}`);
    if (m.readOnly) lines.push(`mount -o remount,bind,ro ${target(m.containerPath)}`);
  }
  const user = spec.user ? `--setgid ${spec.user.gid} --setuid ${spec.user.uid} ` : "";
  lines.push(
    `exec unshare --root=${quote(spec.rootfs)} --wd=${quote(spec.workingDir || "/")} ${user}-- ${spec.argv.map(quote).join(" ")}`,
  );
  return lines.join("\n");
}

export function runContainer(spec: RunSpec): ContainerProcess {
  const log = createWriteStream(spec.logFile, { flags: "a" });
  const child = spawn(
    "unshare",
    ["--mount", "--uts", "--propagation", "private", "--fork", "sh", "-c", sandboxScript(spec)],
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
  const signal = (name: NodeJS.Signals) => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, name);
      } catch {
        // already gone
      }
    }
  };
  return {
    child,
    exited,
    stop: () => signal("SIGKILL"),
    async terminate(graceMs) {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

const signalNumber: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };
