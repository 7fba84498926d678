// Exec credential plugins (client.authentication.k8s.io): tsop runs them itself instead of using
// client-node's runner, so that a plugin that wants to prompt never hangs a non-interactive run.
// Without a terminal the plugin gets no stdin (EOF) and spec.interactive=false; with one, it
// inherits stdin/stderr as kubectl allows. Results are cached until their expirationTimestamp.
import { spawn } from "node:child_process";
import { ConfigError } from "./errors.js";
import { messages } from "./messages.js";

export interface ExecConfig {
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  apiVersion?: string;
  interactiveMode?: "Never" | "IfAvailable" | "Always";
  provideClusterInfo?: boolean;
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

const cache = new Map<string, ExecCredentialStatus>();

export function forgetExecCredential(userName: string): void {
  cache.delete(userName);
}

export async function execCredential(
  userName: string,
  exec: ExecConfig,
  options: { interactive: boolean; env: NodeJS.ProcessEnv; timeoutMs?: number; server?: string },
): Promise<ExecCredentialStatus> {
  const cached = cache.get(userName);
  if (
    cached &&
    (!cached.expirationTimestamp || Date.parse(cached.expirationTimestamp) > Date.now() + 10_000)
  ) {
    return cached;
  }
  if (!exec?.command) {
    throw new ConfigError(`user "${userName}" has an exec credential stanza without a command`, {
      hint: "fix the users[].user.exec entry in the kubeconfig",
    });
  }
  const mode = exec.interactiveMode ?? "IfAvailable";
  const interactive = mode !== "Never" && options.interactive;
  if (mode === "Always" && !interactive) {
    const m = messages.execNeedsTerminal(exec.command);
    throw new ConfigError(m.message, { hint: m.hint });
  }
  const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1";
  const info: Record<string, unknown> = { apiVersion, kind: "ExecCredential", spec: { interactive } };
  if (exec.provideClusterInfo && options.server) {
    (info.spec as Record<string, unknown>).cluster = { server: options.server };
  }
  const env: NodeJS.ProcessEnv = { ...options.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  // Interactive plugins may take as long as the person needs; others get a bounded time.
  const timeoutMs = interactive ? undefined : (options.timeoutMs ?? 60_000);
  const stdout = await run(exec.command, exec.args ?? [], env, interactive, timeoutMs);
  let parsed: { status?: ExecCredentialStatus };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    const m = messages.execFailed(exec.command, "it did not print an ExecCredential JSON object");
    throw new ConfigError(m.message, { hint: m.hint });
  }
  const status = parsed.status ?? {};
  if (!status.token && !(status.clientCertificateData && status.clientKeyData)) {
    const m = messages.execFailed(
      exec.command,
      "its ExecCredential has neither a token nor a client certificate",
    );
    throw new ConfigError(m.message, { hint: m.hint });
  }
  cache.set(userName, status);
  return status;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  interactive: boolean,
  timeoutMs: number | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      stdio: [interactive ? "inherit" : "ignore", "pipe", interactive ? "inherit" : "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill("SIGTERM");
            const m = messages.execTimeout(command, Math.round(timeoutMs / 1000));
            reject(new ConfigError(m.message, { hint: m.hint }));
          }, timeoutMs);
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      const m = messages.execFailed(
        command,
        (error as NodeJS.ErrnoException).code === "ENOENT" ? "command not found" : error.message,
      );
      reject(new ConfigError(m.message, { hint: m.hint }));
    });
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      if (code !== 0) {
        const detail = err.trim().split("\n").slice(-3).join(" ") || `exit code ${code}`;
        const m = messages.execFailed(command, detail);
        reject(new ConfigError(m.message, { hint: m.hint }));
        return;
      }
      resolve(out);
    });
  });
}
