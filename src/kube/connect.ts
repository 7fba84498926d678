// Connecting to the cluster for every cluster command (olm install/status/uninstall, run bundle,
// bundle-upgrade, cleanup, and the dev-loop commands): kubeconfig flags in, a KubeClient out, retries
// reported as debug lines. A client the caller passes in (tests, library use) is used as is.
import type { Reporter } from "../common/reporter.js";
import { KubeClient } from "./client.js";

export interface ClusterOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  interactive?: boolean;
  reporter: Reporter;
  /** Client tuning (tests shorten retries). */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** An already connected client (tests, library use); not closed by tsop. */
  client?: KubeClient;
}

/** The client and whether this call opened it (and so must close it). */
export async function connect(options: ClusterOptions): Promise<{ client: KubeClient; owned: boolean }> {
  if (options.client) return { client: options.client, owned: false };
  const client = await KubeClient.connect({
    kubeconfig: options.kubeconfig,
    context: options.context,
    namespace: options.namespace,
    env: options.env ?? process.env,
    interactive: options.interactive ?? false,
    retry: options.retry,
    onRetry: (what, attempt, detail) =>
      options.reporter.debug(`retrying ${what} (attempt ${attempt + 1}): ${detail}`),
  });
  return { client, owned: true };
}
