// The in-memory API server: wires store, registry, engine, controllers, watches, the optional
// workloads simulation and the HTTP front into a server on 127.0.0.1 (HTTPS unless tls: false) with a
// kubeconfig for it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinAdmissions } from "./builtins.js";
import { Controllers } from "./controllers.js";
import { installCrdSupport } from "./crd.js";
import { Engine } from "./engine.js";
import { Faults } from "../faults.js";
import type { RequestRecord } from "../requests.js";
import { type Authorizer, handle, type HttpContext } from "./http.js";
import { builtinDefs, Registry } from "./resources.js";
import { review } from "./reviews.js";
import { Store, type StoreEvent } from "./store.js";
import { selfSignedCert } from "../../common/x509.js";
import type { KObj, RequestAttributes, ResourceDef, UserInfo } from "./types.js";
import { WatchHub } from "./watch.js";
import { type WorkloadOptions, Workloads } from "./workloads/index.js";

export interface TestClusterOptions {
  /** The in-memory server (the default); see RealTestClusterOptions for "real". */
  controlPlane?: "memory";
  /** Bearer token of the kubeconfig user (random by default). */
  token?: string;
  /** Extra tokens and the users they authenticate as (for RBAC tests). */
  users?: Record<string, string | UserInfo>;
  /** Name of the kubeconfig user (default "tsop-test"). */
  userName?: string;
  /** Events kept for watch replay; older resourceVersions answer 410 Gone (default 1000). */
  watchCacheSize?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK (default 1000 ms). */
  bookmarkIntervalMs?: number;
  /**
   * Serve WatchList streams (watch with sendInitialEvents), as kube-apiserver v1.34 does by
   * default (true); false answers them 422 as a server with the WatchList feature gate off.
   */
  watchList?: boolean;
  /** Delay before a new CRD becomes Established and served (default 0: at once). */
  crdEstablishDelayMs?: number;
  /** Simulate kubelet and workload controllers (pods, Deployments, ReplicaSets, Jobs). */
  workloads?: boolean | WorkloadOptions;
  /** Authorization hook: return false or a reason string to answer 403 Forbidden. */
  authorize?: Authorizer;
  /** Namespaces created at start besides default, kube-system, kube-public, kube-node-lease. */
  namespaces?: string[];
  /** Objects created at start (any kind, including CRDs). */
  objects?: KObj[];
  /** /version answer (gitVersion, default "v1.31.0"). */
  kubernetesVersion?: string;
  /**
   * Serve HTTPS with a fresh self-signed certificate, the kubeconfig carrying it as
   * certificate-authority-data (default true: kubectl only sends credentials over TLS). false serves
   * plain HTTP (the kubeconfig then sets insecure-skip-tls-verify, which kubectl refuses to send a token over).
   */
  tls?: boolean;
}

/** One forbid rule: every listed attribute must match (omitted = any). */
export interface ForbidRule {
  user?: string;
  verb?: string | string[];
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Appended to the Forbidden message (e.g. an RBAC explanation). */
  reason?: string;
}

export interface TestCluster {
  /** "https://127.0.0.1:PORT" ("http://…" with tls: false) */
  url: string;
  /** PEM of the server certificate (its own CA); absent with tls: false. */
  caCertificate?: string;
  /** Kubeconfig YAML (cluster, user and context "tsop-test", namespace default, token auth). */
  kubeconfig: string;
  /** The kubeconfig written to a temporary file (removed by stop()). */
  kubeconfigPath: string;
  /** The kubeconfig user's bearer token. */
  token: string;
  faults: Faults;
  /** Requests served so far (method, path with query, status, user), oldest first (last 5000). */
  requests: RequestRecord[];
  /** Drops every open watch stream. */
  closeWatches(): void;
  /** Number of open watch streams. */
  openWatches(): number;
  /** Forgets watch history: any older resourceVersion now answers 410 Gone. */
  compact(): void;
  /** Current global resourceVersion. */
  resourceVersion(): string;
  /** Workloads mode: whether the simulation has a change on its way (a pod step, a queued reconcile). */
  workloadsBusy(): boolean;
  /** Stops accepting a token (default: the kubeconfig's), so its requests answer 401 ("expired credentials"). */
  revokeToken(token?: string): void;
  /** Answer 403 Forbidden to matching requests; returns a function that lifts the rule. */
  forbid(rule: ForbidRule): () => void;
  /** Images whose pulls fail in workloads mode (ErrImagePull → ImagePullBackOff). */
  markImageUnpullable(image: string | RegExp): void;
  /** Direct read of a stored object as served at apiVersion (undefined when absent). */
  get(apiVersion: string, kind: string, name: string, namespace?: string): KObj | undefined;
  /** Direct list of stored objects as served at apiVersion. */
  list(apiVersion: string, kind: string, namespace?: string): KObj[];
  /** Creates an object with the server's rules (admission, validation), bypassing HTTP and auth. */
  create(obj: KObj): KObj;
  /** Resolves with the object once `predicate` holds (checks now, then on every change). */
  waitFor(
    apiVersion: string,
    kind: string,
    name: string,
    namespace: string | undefined,
    predicate: (obj: KObj | undefined) => boolean,
    timeoutMs?: number,
  ): Promise<KObj | undefined>;
  stop(): Promise<void>;
}

function kubeconfigYaml(url: string, token: string, user: string, ca: string | undefined): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: tsop-test",
    "  cluster:",
    `    server: ${url}`,
    // Plain HTTP on loopback: @kubernetes/client-node only allows http:// servers with this set.
    ca
      ? `    certificate-authority-data: ${Buffer.from(ca).toString("base64")}`
      : "    insecure-skip-tls-verify: true",
    "contexts:",
    "- name: tsop-test",
    "  context:",
    "    cluster: tsop-test",
    `    user: ${user}`,
    "    namespace: default",
    "current-context: tsop-test",
    "preferences: {}",
    "users:",
    `- name: ${user}`,
    "  user:",
    `    token: ${token}`,
    "",
  ].join("\n");
}

function ruleMatches(rule: ForbidRule, a: RequestAttributes): boolean {
  const verbs = rule.verb === undefined ? undefined : Array.isArray(rule.verb) ? rule.verb : [rule.verb];
  return (
    (rule.user === undefined || rule.user === a.user.name) &&
    (verbs === undefined || verbs.includes(a.verb)) &&
    (rule.group === undefined || rule.group === a.group) &&
    (rule.resource === undefined || rule.resource === a.resource) &&
    (rule.subresource === undefined || rule.subresource === a.subresource) &&
    (rule.namespace === undefined || rule.namespace === a.namespace) &&
    (rule.name === undefined || rule.name === a.name)
  );
}

/** The bearer tokens the server accepts: the admin's, then the test's own users. */
function userTokens(options: TestClusterOptions, token: string, userName: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>([
    [token, { name: userName, groups: ["system:masters", "system:authenticated"] }],
  ]);
  for (const [t, u] of Object.entries(options.users ?? {})) {
    tokens.set(t, typeof u === "string" ? { name: u, groups: ["system:authenticated"] } : u);
  }
  return tokens;
}

/** What /version answers for a gitVersion such as v1.31.0. */
function versionInfo(gitVersion: string): KObj {
  const [major, minor] = gitVersion.replace(/^v/, "").split(".");
  return {
    major,
    minor,
    gitVersion,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2024-08-13T07:28:49Z",
    goVersion: "go1.22.5",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

/** Serves ctx on 127.0.0.1 (HTTPS with a self-signed certificate unless tls is false). */
async function listen(ctx: HttpContext, useTls: boolean) {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(ctx, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  const tls = useTls ? selfSignedCert() : undefined;
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key }, listener)
    : createServer(listener);
  // Idle keep-alive sockets outlive the clients' own idle timeouts (node's agent: 5 s), so a client
  // never reuses a socket the server is closing (ECONNRESET races); stop() closes them all.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return { server, tls, url: `${tls ? "https" : "http"}://127.0.0.1:${port}` };
}

/** Resolves with the object once predicate accepts it (checked now and on every store event). */
function waitForObject(
  engine: Engine,
  def: ResourceDef,
  name: string,
  namespace: string | undefined,
  predicate: (obj: KObj | undefined) => boolean,
  timeoutMs: number,
): Promise<KObj | undefined> {
  const store = engine.store;
  const read = () => {
    const obj = store.get(def.storageKey, def.namespaced ? (namespace ?? "") : "", name);
    return obj ? engine.present(def, obj) : undefined;
  };
  return new Promise((resolve, reject) => {
    const first = read();
    if (predicate(first)) {
      resolve(first);
      return;
    }
    const timer = setTimeout(() => {
      unsubscribe();
      reject(
        new Error(
          `timed out after ${timeoutMs} ms waiting for ${def.kind} ${namespace ? `${namespace}/` : ""}${name}`,
        ),
      );
    }, timeoutMs);
    const unsubscribe = store.subscribe((e: StoreEvent) => {
      if (e.storageKey !== def.storageKey || e.object.metadata.name !== name) return;
      const now = read();
      if (predicate(now)) {
        clearTimeout(timer);
        unsubscribe();
        resolve(now);
      }
    });
  });
}

/** The namespaces every cluster has, and the test's own. */
function seedNamespaces(engine: Engine, extra: readonly string[]): void {
  const nsDef = engine.registry.find("", "v1", "namespaces")!;
  for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease", ...extra]) {
    engine.create(nsDef, "", { metadata: { name: ns } }, { manager: "kube-apiserver" });
  }
}

/** Starts the in-memory API server (startTestCluster's default control plane). */
export async function startMemoryCluster(options: TestClusterOptions): Promise<TestCluster> {
  const token = options.token ?? randomBytes(16).toString("hex");
  const userName = options.userName ?? "tsop-test";
  const tokens = userTokens(options, token, userName);
  const store = new Store(options.watchCacheSize ?? 1000);
  const registry = new Registry(builtinDefs());
  let controllers: Controllers | undefined;
  const engine = new Engine(store, registry, () => controllers?.kick());
  controllers = new Controllers(engine);
  engine.admissions.push(...builtinAdmissions);
  const timers = new Set<NodeJS.Timeout>();
  installCrdSupport(engine, options.crdEstablishDelayMs ?? 0, timers);
  const faults = new Faults();
  const watches = new WatchHub(engine, options.bookmarkIntervalMs ?? 1000, faults);
  const rules: ForbidRule[] = [];
  const authorizers: Authorizer[] = [
    (a) => {
      const rule = rules.find((r) => ruleMatches(r, a));
      return rule ? (rule.reason ?? false) : undefined;
    },
  ];
  if (options.authorize) authorizers.push(options.authorize);
  const requests: RequestRecord[] = [];

  const workloads = options.workloads
    ? new Workloads(engine, options.workloads === true ? {} : options.workloads)
    : undefined;

  const ctx: HttpContext = {
    engine,
    watches,
    faults,
    tokens,
    authorizers,
    maxBodyBytes: 3 * 1024 * 1024,
    watchList: options.watchList ?? true,
    version: versionInfo(options.kubernetesVersion ?? "v1.31.0"),
    onRequest: (entry) => {
      requests.push(entry);
      if (requests.length > 5000) requests.shift();
    },
    virtual: (def, body, user) => review(def, body, user, ctx),
  };

  seedNamespaces(engine, options.namespaces ?? []);
  for (const obj of options.objects ?? []) createDirect(engine, obj);

  const { server, tls, url } = await listen(ctx, options.tls !== false);
  const kubeconfig = kubeconfigYaml(url, token, userName, tls?.cert);
  const dir = await mkdtemp(join(tmpdir(), "tsop-test-cluster-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  workloads?.start();

  const defFor = (apiVersion: string, kind: string): ResourceDef => {
    const def = registry.byKind(apiVersion, kind);
    if (!def) throw new Error(`no resource serves ${kind} in ${apiVersion}`);
    return def;
  };

  let stopped = false;
  return {
    url,
    ...(tls ? { caCertificate: tls.cert } : {}),
    kubeconfig,
    kubeconfigPath,
    token,
    faults,
    requests,
    closeWatches: () => watches.closeAll(),
    openWatches: () => watches.size,
    compact: () => store.compact(),
    resourceVersion: () => String(store.currentRv()),
    workloadsBusy: () => workloads?.busy() ?? false,
    revokeToken(t = token) {
      tokens.delete(t);
    },
    forbid(rule) {
      rules.push(rule);
      return () => {
        const i = rules.indexOf(rule);
        if (i >= 0) rules.splice(i, 1);
      };
    },
    markImageUnpullable(image) {
      if (!workloads) throw new Error("markImageUnpullable needs startTestCluster({ workloads: true })");
      workloads.markUnpullable(image);
    },
    get(apiVersion, kind, name, namespace = "") {
      const def = defFor(apiVersion, kind);
      const obj = store.get(def.storageKey, def.namespaced ? namespace : "", name);
      return obj ? engine.present(def, obj) : undefined;
    },
    list(apiVersion, kind, namespace = "") {
      const def = defFor(apiVersion, kind);
      return store.list(def.storageKey, def.namespaced ? namespace : "").map((o) => engine.present(def, o));
    },
    create: (obj) => createDirect(engine, obj),
    waitFor(apiVersion, kind, name, namespace, predicate, timeoutMs = 10_000) {
      return waitForObject(engine, defFor(apiVersion, kind), name, namespace, predicate, timeoutMs);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      controllers?.stop();
      workloads?.stop();
      for (const t of timers) clearTimeout(t);
      watches.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function createDirect(engine: Engine, obj: KObj): KObj {
  const def = engine.registry.byKind(String(obj.apiVersion), String(obj.kind));
  if (!def) throw new Error(`no resource serves ${obj.kind} in ${obj.apiVersion}`);
  return engine.create(def, def.namespaced ? (obj.metadata?.namespace ?? "default") : "", obj, {
    manager: "tsop-test",
  });
}
