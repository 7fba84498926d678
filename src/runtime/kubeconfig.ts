// The one kubeconfig loader, for the operator library and the CLI. Files are chosen and merged as
// kubectl does: --kubeconfig (one file, must exist), else every file of KUBECONFIG (missing ones
// skipped; for clusters, users and contexts the first file to define a name wins, and the first file
// that sets current-context chooses it), else ~/.kube/config. The in-cluster service account comes
// before ~/.kube/config for the operator (controller-runtime's order) and only when no file exists for
// the CLI (kubectl's). @kubernetes/client-node parses each file; it is imported lazily so that
// importing "tsop" stays cheap.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import type { Cluster, Context, KubeConfig, User } from "@kubernetes/client-node";
import { ConfigError } from "./errors.js";
import { type Message, messages } from "./messages.js";

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
  /**
   * Where the in-cluster service account ranks: "before-home" (controller-runtime: when KUBECONFIG is
   * unset it is tried before ~/.kube/config; the default) or "last" (kubectl: only without any file).
   */
  inCluster?: "before-home" | "last";
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface LoadedKubeConfig {
  kc: KubeConfig;
  server: string;
  /** Where it came from, for logs and messages. */
  source: string;
  /** The kubeconfig files read, in precedence order (none for text or in-cluster). */
  files: string[];
  contextName: string;
  cluster: Cluster;
  user: User;
  /** The context's namespace, or the pod's namespace in-cluster. */
  namespace: string | undefined;
  inCluster: boolean;
}

type KubeConfigClass = typeof import("@kubernetes/client-node").KubeConfig;

export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env;
  const saRoot = options.inClusterRoot ?? "/";
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  const { source, files } = loadSource(kc, KubeConfig, options, env, saRoot);
  const inCluster = source === IN_CLUSTER;
  const contextName = chooseContext(kc, options.context);
  const context = kc.getContextObject(contextName) as Context;
  const cluster = kc.getCluster(context.cluster);
  if (!cluster) fail(messages.contextIncomplete(contextName, "cluster", context.cluster));
  const user = kc.getUser(context.user);
  if (!user && context.user) fail(messages.contextIncomplete(contextName, "user", context.user));
  // Plain http (local test servers) has no TLS to verify; client-node refuses it unless marked so.
  kc.clusters = kc.clusters.map((c) => (c.server.startsWith("http:") ? { ...c, skipTLSVerify: true } : c));
  return {
    kc,
    server: cluster.server.replace(/\/+$/, ""),
    source,
    files,
    contextName,
    cluster: kc.getCluster(context.cluster) as Cluster,
    user: user ?? { name: context.user ?? "" },
    namespace: (inCluster ? readPodNamespace(saRoot) : undefined) || context.namespace?.trim() || undefined,
    inCluster,
  };
}

const IN_CLUSTER = "in-cluster service account";

/** Fills kc from the first source that applies and says which it was. */
function loadSource(
  kc: KubeConfig,
  KubeConfig: KubeConfigClass,
  options: KubeConfigOptions,
  env: NodeJS.ProcessEnv,
  saRoot: string,
): { source: string; files: string[] } {
  if (options.kubeconfigText !== undefined) {
    parse(() => kc.loadFromString(options.kubeconfigText as string), "kubeconfig text");
    return { source: "kubeconfig text", files: [] };
  }
  const inClusterEarly = (options.inCluster ?? "before-home") === "before-home" && !options.kubeconfig;
  if (inClusterEarly && !env.KUBECONFIG && inClusterAvailable(env, saRoot)) {
    loadInCluster(kc, env, saRoot);
    return { source: IN_CLUSTER, files: [] };
  }
  const files = kubeconfigFiles(options, env);
  if (files.length > 0) {
    mergeFiles(kc, files, KubeConfig);
    const source =
      options.kubeconfig ?? (env.KUBECONFIG ? `KUBECONFIG=${env.KUBECONFIG}` : (files[0] as string));
    return { source, files };
  }
  if (inClusterAvailable(env, saRoot)) {
    loadInCluster(kc, env, saRoot);
    return { source: IN_CLUSTER, files: [] };
  }
  return fail(messages.noKubeconfig());
}

/** The files kubectl would read, in precedence order (missing KUBECONFIG entries skipped). */
export function kubeconfigFiles(options: { kubeconfig?: string }, env: NodeJS.ProcessEnv): string[] {
  if (options.kubeconfig) {
    if (!existsSync(options.kubeconfig)) fail(messages.kubeconfigMissing(options.kubeconfig));
    return [options.kubeconfig];
  }
  if (env.KUBECONFIG) {
    const listed = env.KUBECONFIG.split(delimiter).filter((f) => f !== "");
    return [...new Set(listed)].filter((f) => existsSync(f));
  }
  const home = join(env.HOME ?? homedir(), ".kube", "config");
  return existsSync(home) ? [home] : [];
}

function mergeFiles(target: KubeConfig, files: string[], KubeConfig: KubeConfigClass): void {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = "";
  for (const file of files) {
    const one = new KubeConfig();
    parse(() => one.loadFromFile(file), file);
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

function parse(load: () => void, what: string): void {
  try {
    load();
  } catch (error) {
    const m = messages.kubeconfigInvalid(what, (error as Error).message);
    throw new ConfigError(m.message, { hint: m.hint, cause: error });
  }
}

function chooseContext(kc: KubeConfig, requested: string | undefined): string {
  const known = kc.getContexts().map((c) => c.name);
  const name = requested ?? kc.getCurrentContext();
  if (!name) fail(messages.noContext(known));
  if (!kc.getContextObject(name)) fail(messages.unknownContext(name, known));
  kc.setCurrentContext(name);
  return name;
}

function inClusterAvailable(env: NodeJS.ProcessEnv, saRoot: string): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(join(saRoot, SA_DIR, "token"));
}

function loadInCluster(kc: KubeConfig, env: NodeJS.ProcessEnv, saRoot: string): void {
  const prefix = saRoot === "/" ? "" : saRoot.replace(/\/+$/, "");
  withEnv(env, ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"], () => kc.loadFromCluster(prefix));
}

function readPodNamespace(saRoot: string): string | undefined {
  try {
    return readFileSync(join(saRoot, SA_DIR, "namespace"), "utf8").trim() || undefined;
  } catch {
    return undefined; // not mounted: keep the context's namespace
  }
}

function fail(m: Message): never {
  throw new ConfigError(m.message, { hint: m.hint });
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
