// Loading cluster credentials, in controller-runtime's order: --kubeconfig, KUBECONFIG (several files
// merged), in-cluster service account, ~/.kube/config. @kubernetes/client-node parses kubeconfig and
// runs auth (tokens, exec plugins, client certificates); it is imported lazily so that importing
// "tsop" stays cheap.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { ConfigError } from "./errors.js";

export interface KubeConfigOptions {
  /** A kubeconfig file (the --kubeconfig flag). */
  kubeconfig?: string;
  /** Kubeconfig YAML text (tests). */
  kubeconfigText?: string;
  /** Context to use instead of the current one (the --context flag). */
  context?: string;
  env?: NodeJS.ProcessEnv;
  /** Root under which the service account files are looked up (tests); default "/". */
  inClusterRoot?: string;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface LoadedKubeConfig {
  kc: KubeConfig;
  server: string;
  /** Where it came from, for the startup log line. */
  source: string;
  /** The context's namespace, or the pod's namespace in-cluster. */
  namespace: string | undefined;
  inCluster: boolean;
}

export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env;
  const saRoot = options.inClusterRoot ?? "/";
  const saPrefix = options.inClusterRoot ? options.inClusterRoot.replace(/\/+$/, "") : "";
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  let source: string;
  let inCluster = false;
  try {
    if (options.kubeconfigText !== undefined) {
      kc.loadFromString(options.kubeconfigText);
      source = "kubeconfig text";
    } else if (options.kubeconfig) {
      if (!existsSync(options.kubeconfig))
        throw new ConfigError(`kubeconfig ${options.kubeconfig} does not exist`, {
          hint: "check the --kubeconfig path",
        });
      kc.loadFromFile(options.kubeconfig);
      source = options.kubeconfig;
    } else if (env.KUBECONFIG) {
      withEnv(env, ["KUBECONFIG"], () => kc.loadFromDefault());
      source = `KUBECONFIG=${env.KUBECONFIG}`;
    } else if (env.KUBERNETES_SERVICE_HOST && existsSync(join(saRoot, SA_DIR, "token"))) {
      withEnv(env, ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"], () =>
        kc.loadFromCluster(saPrefix),
      );
      source = "in-cluster service account";
      inCluster = true;
    } else {
      const home = join(env.HOME ?? homedir(), ".kube", "config");
      if (!existsSync(home))
        throw new ConfigError("no kubeconfig found", {
          hint: "pass --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run inside a cluster",
        });
      kc.loadFromFile(home);
      source = home;
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`cannot load kubeconfig: ${(err as Error).message}`, { cause: err });
  }
  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      const known = kc.contexts.map((c) => c.name).join(", ") || "none";
      throw new ConfigError(`context "${options.context}" not found in ${source}`, {
        hint: `known contexts: ${known}`,
      });
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new ConfigError(`kubeconfig ${source} has no current cluster`, {
      hint: "set current-context or pass --context",
    });
  // Plain http (local test servers) has no TLS to verify; client-node refuses it unless marked so.
  kc.clusters = kc.clusters.map((c) => (c.server.startsWith("http:") ? { ...c, skipTLSVerify: true } : c));
  let namespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  if (inCluster) {
    try {
      namespace = readFileSync(join(saRoot, SA_DIR, "namespace"), "utf8").trim() || namespace;
    } catch {
      // not mounted: keep the context's namespace
    }
  }
  return { kc, server: cluster.server.replace(/\/+$/, ""), source, namespace, inCluster };
}

/** client-node reads these from process.env; run fn with the given environment's values. */
function withEnv(env: NodeJS.ProcessEnv, names: string[], fn: () => void): void {
  if (env === process.env) {
    fn();
    return;
  }
  const saved = names.map((n) => [n, process.env[n]] as const);
  for (const n of names) {
    if (env[n] === undefined) delete process.env[n];
    else process.env[n] = env[n];
  }
  try {
    fn();
  } finally {
    for (const [n, v] of saved) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  }
}
