// Kubeconfig loading as kubectl does it: --kubeconfig (one file), else KUBECONFIG (several files,
// first definition of a name wins, missing files skipped), else ~/.kube/config, else the in-cluster
// service account. @kubernetes/client-node parses the files; tsop chooses files and context itself.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfigError } from "./errors.js";
import { messages } from "./messages.js";

export interface ConnectionOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  env?: NodeJS.ProcessEnv;
  /** Whether a person could answer an interactive credential plugin (stdin and stderr are a TTY). */
  interactive?: boolean;
  /** Root under which the in-cluster service account files live (tests; default "/"). */
  serviceAccountRoot?: string;
}

export interface ClusterInfo {
  name: string;
  server: string;
  caData?: string;
  caFile?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

export interface UserInfo {
  name: string;
  token?: string;
  certData?: string;
  certFile?: string;
  keyData?: string;
  keyFile?: string;
  username?: string;
  password?: string;
  impersonateUser?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw exec/auth-provider stanza from the kubeconfig
  exec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw auth-provider stanza
  authProvider?: any;
}

/** Everything needed to talk to one cluster as one user. */
export interface Connection {
  contextName: string;
  namespace: string;
  cluster: ClusterInfo;
  user: UserInfo;
  /** Where it came from, for messages ("in-cluster" or file paths). */
  source: string;
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  /** The parsed config from @kubernetes/client-node, for auth providers tsop does not handle itself. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- KubeConfig instance (kept loose to avoid importing its types eagerly)
  kubeConfig: any;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export async function loadConnection(options: ConnectionOptions = {}): Promise<Connection> {
  const env = options.env ?? process.env;
  const { KubeConfig } = await import("@kubernetes/client-node");
  const files = kubeconfigFiles(options, env);
  const kc = new KubeConfig();
  let source: string;
  const saRoot = options.serviceAccountRoot ?? "";
  if (files.length === 0) {
    const host = env.KUBERNETES_SERVICE_HOST;
    if (host && existsSync(join(saRoot, SA_DIR, "token"))) {
      withEnv(env, () => kc.loadFromCluster(saRoot));
      source = "in-cluster service account";
    } else {
      const m = messages.noKubeconfig();
      throw new KubeConfigError(m.message, { hint: m.hint });
    }
  } else {
    mergeFiles(kc, files, KubeConfig);
    source = files.join(delimiter);
  }

  const contextNames = kc.getContexts().map((c: { name: string }) => c.name);
  const contextName = options.context ?? kc.getCurrentContext();
  if (!contextName) {
    const m = messages.noContext(contextNames);
    throw new KubeConfigError(m.message, { hint: m.hint });
  }
  const context = kc.getContextObject(contextName);
  if (!context) {
    const m = messages.unknownContext(contextName, contextNames);
    throw new KubeConfigError(m.message, { hint: m.hint });
  }
  kc.setCurrentContext(contextName);
  const cluster = kc.getCluster(context.cluster);
  if (!cluster) {
    const m = messages.contextIncomplete(contextName, "cluster", context.cluster);
    throw new KubeConfigError(m.message, { hint: m.hint });
  }
  const user = kc.getUser(context.user) ?? { name: context.user ?? "" };
  if (!kc.getUser(context.user) && context.user) {
    const m = messages.contextIncomplete(contextName, "user", context.user);
    throw new KubeConfigError(m.message, { hint: m.hint });
  }
  let namespace = (options.namespace ?? context.namespace)?.trim();
  if (!namespace && source === "in-cluster service account") {
    namespace = await readInClusterNamespace(saRoot);
  }
  return {
    contextName,
    namespace: namespace || "default",
    cluster: { ...cluster },
    user: { ...user },
    source,
    interactive: options.interactive ?? false,
    env,
    kubeConfig: kc,
  };
}

/** The files kubectl would read, in precedence order. */
export function kubeconfigFiles(options: ConnectionOptions, env: NodeJS.ProcessEnv): string[] {
  if (options.kubeconfig) {
    if (!existsSync(options.kubeconfig)) {
      const m = messages.kubeconfigMissing(options.kubeconfig);
      throw new KubeConfigError(m.message, { hint: m.hint });
    }
    return [options.kubeconfig];
  }
  if (env.KUBECONFIG) {
    // kubectl skips entries that do not exist and merges the rest.
    return env.KUBECONFIG.split(delimiter).filter((f) => f !== "" && existsSync(f));
  }
  const home = env.HOME ?? homedir();
  const fallback = join(home, ".kube", "config");
  return existsSync(fallback) ? [fallback] : [];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- client-node's KubeConfig class
function mergeFiles(target: any, files: string[], KubeConfig: any): void {
  const clusters = new Map<string, unknown>();
  const users = new Map<string, unknown>();
  const contexts = new Map<string, unknown>();
  let currentContext = "";
  for (const file of files) {
    const one = new KubeConfig();
    try {
      one.loadFromFile(file);
    } catch (error) {
      const m = messages.kubeconfigInvalid(file, (error as Error).message);
      throw new KubeConfigError(m.message, { hint: m.hint, cause: error });
    }
    // The first file to define a name (or the current context) wins, as in kubectl.
    for (const c of one.clusters ?? []) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.users ?? []) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.contexts ?? []) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (!currentContext && one.currentContext) currentContext = one.currentContext;
  }
  target.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext,
  });
}

/** client-node reads KUBERNETES_SERVICE_HOST/PORT from process.env; give it the caller's env. */
function withEnv(env: NodeJS.ProcessEnv, fn: () => void): void {
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = env.KUBERNETES_SERVICE_HOST;
  if (env.KUBERNETES_SERVICE_PORT !== undefined)
    process.env.KUBERNETES_SERVICE_PORT = env.KUBERNETES_SERVICE_PORT;
  try {
    fn();
  } finally {
    for (const [key, value] of [
      ["KUBERNETES_SERVICE_HOST", saved.host],
      ["KUBERNETES_SERVICE_PORT", saved.port],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function readInClusterNamespace(root: string): Promise<string | undefined> {
  try {
    const { readFile } = await import("node:fs/promises");
    return (await readFile(join(root, SA_DIR, "namespace"), "utf8")).trim();
  } catch {
    return undefined;
  }
}
