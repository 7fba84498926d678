// The one kubeconfig loader, for the operator library and the CLI. Files are chosen and merged as
// kubectl does: --kubeconfig (one file, must exist), else every file of KUBECONFIG (missing ones
// skipped; for clusters, users and contexts the first file to define a name wins, and the first file
// that sets current-context chooses it), else ~/.kube/config. The in-cluster service account comes
// before ~/.kube/config for the operator (controller-runtime's order) and only when no file exists for
// the CLI (kubectl's). Relative paths in a file are resolved against its directory, as client-go
// does. tsop parses kubeconfigs itself (with `yaml`): @kubernetes/client-node, a large module graph,
// is never loaded for it.
import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, sep } from "node:path";
import { ConfigError } from "./errors.js";
import type { ExecConfig } from "./exec-credential.js";
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

/** A kubeconfig `clusters[].cluster` entry (file paths absolute). */
export interface ClusterConfig {
  name: string;
  server: string;
  caFile?: string;
  /** certificate-authority-data (base64). */
  caData?: string;
  skipTLSVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

/** A kubeconfig `users[].user` entry (file paths absolute). */
export interface UserConfig {
  name: string;
  token?: string;
  /** Read again periodically (projected service-account tokens rotate); wins over `token`. */
  tokenFile?: string;
  certFile?: string;
  /** client-certificate-data (base64). */
  certData?: string;
  keyFile?: string;
  /** client-key-data (base64). */
  keyData?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  /** A legacy auth provider (oidc, …); applied by @kubernetes/client-node, loaded only then. */
  authProvider?: { name: string; config?: Record<string, string> };
  /** `as`: the user to impersonate. */
  impersonateUser?: string;
  /** `as-groups`. */
  impersonateGroups?: string[];
}

export interface ContextConfig {
  name: string;
  cluster: string;
  user?: string;
  namespace?: string;
}

/** A parsed (or merged) kubeconfig. */
export interface KubeConfigFile {
  clusters: ClusterConfig[];
  users: UserConfig[];
  contexts: ContextConfig[];
  currentContext: string;
}

/** What a client needs to reach one cluster as one user. */
export interface ClusterAccess {
  cluster: ClusterConfig;
  user: UserConfig;
}

export interface LoadedKubeConfig extends ClusterAccess {
  server: string;
  /** Where it came from, for logs and messages. */
  source: string;
  /** The kubeconfig files read, in precedence order (none for text or in-cluster). */
  files: string[];
  contextName: string;
  /** The context's namespace, or the pod's namespace in-cluster. */
  namespace: string | undefined;
  inCluster: boolean;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";
const IN_CLUSTER = "in-cluster service account";

export async function loadKubeConfig(options: KubeConfigOptions = {}): Promise<LoadedKubeConfig> {
  const env = options.env ?? process.env;
  const saRoot = options.inClusterRoot ?? "/";
  // YAML is loaded here, not at import time: importing "tsop" stays cheap. The alias cap of
  // common/yaml refuses a kubeconfig that is a YAML bomb.
  const { parseYamlText } = await import("../../common/yaml/read-values.js");
  const { config, source, files } = loadSource(options, env, saRoot, parseYamlText);
  const inCluster = source === IN_CLUSTER;
  const context = chooseContext(config, options.context);
  const cluster = config.clusters.find((c) => c.name === context.cluster);
  if (!cluster) fail(messages.contextIncomplete(context.name, "cluster", context.cluster));
  const user = config.users.find((u) => u.name === context.user);
  if (!user && context.user) fail(messages.contextIncomplete(context.name, "user", context.user));
  return {
    server: cluster.server.replace(/\/+$/, ""),
    source,
    files,
    contextName: context.name,
    cluster,
    user: user ?? { name: context.user ?? "" },
    namespace: (inCluster ? readPodNamespace(saRoot) : undefined) || context.namespace?.trim() || undefined,
    inCluster,
  };
}

/** Reads the first source that applies and says which it was. */
function loadSource(
  options: KubeConfigOptions,
  env: NodeJS.ProcessEnv,
  saRoot: string,
  parseYaml: YamlParse,
): { config: KubeConfigFile; source: string; files: string[] } {
  if (options.kubeconfigText !== undefined) {
    const config = parseKubeConfig(options.kubeconfigText, "kubeconfig text", undefined, parseYaml);
    return { config, source: "kubeconfig text", files: [] };
  }
  const inClusterEarly = (options.inCluster ?? "before-home") === "before-home" && !options.kubeconfig;
  if (inClusterEarly && !env.KUBECONFIG && inClusterAvailable(env, saRoot)) {
    return { config: inClusterConfig(env, saRoot), source: IN_CLUSTER, files: [] };
  }
  const files = kubeconfigFiles(options, env);
  if (files.length > 0) {
    const source =
      options.kubeconfig ?? (env.KUBECONFIG ? `KUBECONFIG=${env.KUBECONFIG}` : (files[0] as string));
    return { config: mergeFiles(files, parseYaml), source, files };
  }
  if (inClusterAvailable(env, saRoot)) {
    return { config: inClusterConfig(env, saRoot), source: IN_CLUSTER, files: [] };
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

/** kubectl's merge: the first file to define a name keeps it; the first current-context wins. */
function mergeFiles(files: string[], parseYaml: YamlParse): KubeConfigFile {
  const merged: KubeConfigFile = { clusters: [], users: [], contexts: [], currentContext: "" };
  const firstWins = <T extends { name: string }>(into: T[], from: T[]) => {
    for (const item of from) if (!into.some((i) => i.name === item.name)) into.push(item);
  };
  for (const file of files) {
    const one = parseKubeConfig(readFileSync(file, "utf8"), file, dirname(file), parseYaml);
    firstWins(merged.clusters, one.clusters);
    firstWins(merged.users, one.users);
    firstWins(merged.contexts, one.contexts);
    merged.currentContext ||= one.currentContext;
  }
  return merged;
}

type Raw = Record<string, unknown>;
type YamlParse = (text: string) => unknown;

/** Parses one kubeconfig; `base` is the directory relative paths are resolved against. */
function parseKubeConfig(
  text: string,
  what: string,
  base: string | undefined,
  parseYaml: YamlParse,
): KubeConfigFile {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    invalid(what, (error as Error).message.split("\n")[0] ?? "", error);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== "object" || Array.isArray(doc)) invalid(what, "it is not a YAML mapping");
  const raw = doc as Raw;
  const path = (p: unknown) => resolvePath(base, p);
  const clusters = entries(raw, "clusters", "cluster", what).map(({ name, body, where }) => {
    if (typeof body.server !== "string" || !body.server) invalid(what, `${where}.cluster.server is missing`);
    return {
      name,
      server: body.server.replace(/\/$/, ""),
      caFile: path(body["certificate-authority"]),
      caData: str(body["certificate-authority-data"]),
      skipTLSVerify: body["insecure-skip-tls-verify"] === true,
      tlsServerName: str(body["tls-server-name"]),
      proxyUrl: str(body["proxy-url"]),
    } satisfies ClusterConfig;
  });
  const users = entries(raw, "users", "user", what, true).map(({ name, body }) => {
    const exec = body.exec as ExecConfig | undefined;
    const provider = body["auth-provider"] as UserConfig["authProvider"] | undefined;
    const groups = body["as-groups"];
    return {
      name,
      token: str(body.token),
      tokenFile: path(body.tokenFile ?? body["token-file"]),
      certFile: path(body["client-certificate"]),
      certData: str(body["client-certificate-data"]),
      keyFile: path(body["client-key"]),
      keyData: str(body["client-key-data"]),
      username: str(body.username),
      password: str(body.password),
      exec:
        exec && typeof exec === "object" ? { ...exec, command: execCommand(base, exec.command) } : undefined,
      authProvider: provider && typeof provider === "object" ? provider : undefined,
      impersonateUser: str(body.as),
      impersonateGroups: Array.isArray(groups) ? groups.map(String) : undefined,
    } satisfies UserConfig;
  });
  const contexts = entries(raw, "contexts", "context", what).map(({ name, body, where }) => {
    if (typeof body.cluster !== "string" || !body.cluster)
      invalid(what, `${where}.context.cluster is missing`);
    return { name, cluster: body.cluster, user: str(body.user), namespace: str(body.namespace) };
  });
  return { clusters, users, contexts, currentContext: str(raw["current-context"]) ?? "" };
}

/** The named entries of a list (clusters, users, contexts), checked for a name and a body. */
function entries(
  raw: Raw,
  list: string,
  field: string,
  what: string,
  bodyOptional = false,
): Array<{ name: string; body: Raw; where: string }> {
  const items = raw[list];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) invalid(what, `${list} is not a list`);
  return items.map((item: unknown, i) => {
    const where = `${list}[${i}]`;
    const entry = (item ?? {}) as Raw;
    if (typeof entry.name !== "string" || !entry.name) invalid(what, `${where}.name is missing`);
    const body = entry[field];
    if ((body === undefined || body === null) && !bodyOptional) invalid(what, `${where}.${field} is missing`);
    if (body !== undefined && body !== null && typeof body !== "object")
      invalid(what, `${where}.${field} is not a mapping`);
    return { name: entry.name, body: (body ?? {}) as Raw, where };
  });
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function resolvePath(base: string | undefined, value: unknown): string | undefined {
  const p = str(value);
  return p && base && !isAbsolute(p) ? join(base, p) : p;
}

/** client-go resolves an exec command relative to the file only when it names a path, not a $PATH lookup. */
function execCommand(base: string | undefined, command: unknown): string {
  const c = str(command) ?? "";
  return c.includes(sep) ? (resolvePath(base, c) ?? c) : c;
}

function chooseContext(config: KubeConfigFile, requested: string | undefined): ContextConfig {
  const known = config.contexts.map((c) => c.name);
  const name = requested ?? config.currentContext;
  if (!name) fail(messages.noContext(known));
  const context = config.contexts.find((c) => c.name === name);
  if (!context) fail(messages.unknownContext(name, known));
  return context;
}

/** client-go's rule: both variables set and the token mounted. */
function inClusterAvailable(env: NodeJS.ProcessEnv, saRoot: string): boolean {
  return (
    Boolean(env.KUBERNETES_SERVICE_HOST) &&
    Boolean(env.KUBERNETES_SERVICE_PORT) &&
    existsSync(join(saRoot, SA_DIR, "token"))
  );
}

/** client-go's InClusterConfig: https to the service address, the mounted CA and (rotating) token. */
function inClusterConfig(env: NodeJS.ProcessEnv, saRoot: string): KubeConfigFile {
  const host = env.KUBERNETES_SERVICE_HOST as string;
  const server = `https://${isIP(host) === 6 ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  const name = "in-cluster";
  return {
    clusters: [{ name, server, caFile: join(saRoot, SA_DIR, "ca.crt") }],
    users: [{ name, tokenFile: join(saRoot, SA_DIR, "token") }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  };
}

function readPodNamespace(saRoot: string): string | undefined {
  try {
    return readFileSync(join(saRoot, SA_DIR, "namespace"), "utf8").trim() || undefined;
  } catch {
    return undefined; // not mounted: keep the context's namespace
  }
}

function invalid(what: string, detail: string, cause?: unknown): never {
  const m = messages.kubeconfigInvalid(what, detail);
  throw new ConfigError(m.message, { hint: m.hint, cause });
}

function fail(m: Message): never {
  throw new ConfigError(m.message, { hint: m.hint });
}
