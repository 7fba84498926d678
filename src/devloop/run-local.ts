// `tsop run local`: the operator's manager as a process on this machine against the current
// cluster, like `make install run`. Builds when sources are newer than the entry point, installs
// the CRDs, gives the process the manager container's environment from config/manager (expanded as
// the kubelet would, env.ts), streams its logs and stops it like the kubelet on Ctrl-C. With
// --watch, a source change rebuilds and restarts it; a failed build keeps the running manager.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorFrom, TsopError } from "../common/errors.js";
import { interruptedError } from "../common/interrupt.js";
import type { KubeClient } from "../kube/client.js";
import type { Project } from "../project/types.js";
import { isStale, runBuild } from "./build.js";
import { type ClusterOptions, openCluster } from "./cluster.js";
import { applyCrds } from "./crds.js";
import { containerEnv, type LocalPod, type SourceReader } from "./env.js";
import { messages } from "./messages.js";
import { type ManagerExit, type ManagerProcess, startManager } from "./process.js";
import { loadCrds, loadManager, type ManagerSpec, openProject } from "./project.js";
import { WATCHED_SOURCES, watchSources } from "./watch.js";

export interface RunLocalOptions extends ClusterOptions {
  cwd: string;
  /** The compiled entry point, relative to the project root (default dist/main.js). */
  entry?: string;
  watch?: boolean;
  leaderElect?: boolean;
  skipBuild?: boolean;
  skipInstall?: boolean;
  /** Passed to the manager after tsop's own (everything after `--`). */
  managerArgs?: string[];
  /** Budget for the CRDs to become Established. */
  timeoutMs: number;
  /** Stops the manager gracefully (Ctrl-C); tsop's exit kills it at once. */
  signal?: AbortSignal;
}

export interface RunLocalResult {
  restarts: number;
  exit: ManagerExit;
}

interface Launch {
  process: ManagerProcess;
  graceMs: number;
}

export async function runLocal(options: RunLocalOptions): Promise<RunLocalResult> {
  try {
    return await buildInstallAndRun(options);
  } catch (error) {
    // Ctrl-C before the manager runs (during the build or the CRD wait) ends with 130 (143 for SIGTERM).
    if (options.signal?.aborted) throw interruptedError(options.signal);
    throw error;
  }
}

async function buildInstallAndRun(options: RunLocalOptions): Promise<RunLocalResult> {
  const project = await openProject(options.cwd);
  const entry = options.entry ?? join("dist", "main.js");
  if (!options.skipBuild && (await isStale(project.root, entry))) await build(project, options);
  const session = await openCluster(options, true);
  try {
    const launch = () => launchManager(project, session.client, entry, options);
    return await supervise(project, await launch(), launch, options);
  } finally {
    session.close();
  }
}

async function build(project: Project, options: RunLocalOptions): Promise<void> {
  const progress = options.reporter.progress("building the operator (npm run build)");
  try {
    await runBuild(project.root, options.signal);
    progress.succeed("built the operator");
  } catch (error) {
    progress.fail("build failed");
    throw error;
  }
}

/** Installs the CRDs, computes the manager's environment and starts it. */
async function launchManager(
  project: Project,
  client: KubeClient,
  entry: string,
  options: RunLocalOptions,
): Promise<Launch> {
  if (!options.skipInstall) await applyCrds(client, await loadCrds(project), options);
  const manager = await loadManager(project);
  const namespace = client.namespace;
  const env = await containerEnv({
    container: manager.container,
    pod: localPod(manager, namespace),
    read: sourceReader(client, namespace),
    where: manager.where,
  });
  if (!existsSync(join(project.root, entry))) {
    throw errorFrom(messages.noEntry(entry));
  }
  const managerArgs = options.managerArgs ?? [];
  const args = [
    ...(options.context ? ["--context", options.context] : []),
    ...(options.leaderElect ? ["--leader-elect", "--leader-election-namespace", namespace] : []),
    ...(metricsChosen(managerArgs) ? [] : ["--metrics-bind-address", "0"]),
    ...managerArgs,
  ];
  const source = client.connection.source;
  const childEnv: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    ...Object.fromEntries(env),
    ...(source.includes("in-cluster") ? {} : { KUBECONFIG: source }),
  };
  options.reporter.info(`manager env from ${manager.where}: ${[...env.keys()].join(", ") || "(none)"}`);
  options.reporter.info(
    `starting node ${[entry, ...args].join(" ")} (leader election ${options.leaderElect ? "on" : "off"}); Ctrl-C stops it`,
  );
  if (!metricsChosen(managerArgs)) options.reporter.info(messages.metricsOff());
  const graceSeconds = manager.deployment.spec?.template?.spec?.terminationGracePeriodSeconds;
  const child = startManager({ cwd: project.root, entry, args, env: childEnv });
  options.reporter.info(`manager running (pid ${child.pid ?? "?"})`);
  return { process: child, graceMs: (typeof graceSeconds === "number" ? graceSeconds : 30) * 1000 };
}

/**
 * Whether the user's manager flags set the metrics address. Otherwise metrics are off, as in
 * kubebuilder's `make run`: the default :8080 is taken on many dev clusters (OLM's operators hold it).
 */
function metricsChosen(managerArgs: readonly string[]): boolean {
  return managerArgs.some(
    (arg) => arg === "--metrics-bind-address" || arg.startsWith("--metrics-bind-address="),
  );
}

function localPod(manager: ManagerSpec, namespace: string): LocalPod {
  const template = manager.deployment.spec?.template ?? {};
  return {
    name: `${manager.deployment.metadata.name ?? "manager"}-local`,
    namespace,
    serviceAccountName: template.spec?.serviceAccountName ?? "default",
    labels: template.metadata?.labels ?? {},
    annotations: template.metadata?.annotations ?? {},
  };
}

/** ConfigMap data and decoded Secret data from the run's namespace, as the kubelet reads them. */
function sourceReader(client: KubeClient, namespace: string): SourceReader {
  return async (kind, name) => {
    const obj = await client.get({ apiVersion: "v1", kind, namespace, name });
    if (!obj) return undefined;
    const data = (obj.data ?? {}) as Record<string, string>;
    if (kind === "ConfigMap") return data;
    return Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
    );
  };
}

type Event = { type: "exit"; exit: ManagerExit } | { type: "stop" } | { type: "change"; path: string };

function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Runs until Ctrl-C (or, without --watch, until the manager exits); restarts on changes. */
async function supervise(
  project: Project,
  first: Launch,
  launch: () => Promise<Launch>,
  options: RunLocalOptions,
): Promise<RunLocalResult> {
  let current: Launch | undefined = first;
  let restarts = 0;
  const watcher = options.watch ? watchSources(project.root) : undefined;
  if (watcher) options.reporter.info(`watching ${WATCHED_SOURCES} for changes`);
  const stop = aborted(options.signal).then((): Event => ({ type: "stop" }));
  let change = watcher?.next().then((path): Event => ({ type: "change", path }));
  let exit: Promise<Event> | undefined;
  try {
    for (;;) {
      exit = current ? current.process.exited.then((e): Event => ({ type: "exit", exit: e })) : undefined;
      const event = await Promise.race([stop, ...(change ? [change] : []), ...(exit ? [exit] : [])]);
      if (event.type === "stop") {
        const result = current ? await current.process.stop(current.graceMs) : { code: 0, signal: null };
        return { restarts, exit: result };
      }
      if (event.type === "exit") {
        current = undefined;
        const m = messages.managerExited(event.exit.code, event.exit.signal);
        if (!watcher) {
          if (event.exit.code === 0) return { restarts, exit: event.exit };
          throw new TsopError(m.message, { hint: m.hint });
        }
        options.reporter.warn(`${m.message}; waiting for a source change to restart it`);
        continue;
      }
      change = watcher?.next().then((path): Event => ({ type: "change", path }));
      options.reporter.info(`${event.path} changed: rebuilding`);
      try {
        await build(project, options);
        if (current) await current.process.stop(current.graceMs);
        current = undefined;
        current = await launch();
        restarts++;
      } catch (error) {
        options.reporter.error(
          `${(error as Error).message}\n(the manager keeps its last state; waiting for the next change)`,
        );
      }
    }
  } finally {
    watcher?.close();
    current?.process.kill();
  }
}
