// `tsop olm status`: finds OLM (any namespace, version from the packageserver CSV), then reports
// each object of that version's manifests, plus the packageserver Deployment OLM creates, with its
// health, sorted, and an overall verdict.
import { formatDuration } from "../common/duration.js";
import { errorFrom, TimeoutError, UsageError } from "../common/errors.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "../kube/client.js";
import { connect } from "../kube/connect.js";
import type { ObjectRef } from "../kube/objects.js";
import { detectOlm, type ExistingOlm } from "./detect.js";
import { healthOf } from "./health.js";
import { messages } from "./messages.js";
import { loadRelease, normalizeVersion, type OlmRelease, packageserverCsv } from "./release.js";

export interface OlmClusterOptions {
  kubeconfig?: string;
  context?: string;
  env?: NodeJS.ProcessEnv;
  interactive?: boolean;
  cwd?: string;
  reporter: Reporter;
  /** Overall budget of the command in milliseconds. */
  timeoutMs: number;
  /** Client tuning (tests shorten retries). */
  retry?: { attempts?: number; baseDelayMs?: number; maxDelayMs?: number };
}

export interface OlmManifestOptions {
  version?: string;
  manifests?: string;
  baseUrl?: string;
  cacheDir?: string;
}

export interface StatusRow {
  name: string;
  namespace: string;
  kind: string;
  status: string;
  healthy: boolean;
}

export type Verdict = "healthy" | "degraded" | "absent";

export interface OlmStatus {
  verdict: Verdict;
  version?: string;
  managedBy?: { platform: string; namespace: string };
  rows: StatusRow[];
}

export async function olmStatus(options: OlmClusterOptions & OlmManifestOptions): Promise<OlmStatus> {
  return withDeadline(statusOnce(options), options.timeoutMs, "checking OLM's status");
}

/** Rejects with a TimeoutError when `work` takes longer than `ms` (status has no waits of its own). */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TimeoutError(`${what} did not finish within ${formatDuration(ms)}`, {
            hint: "the API server may be slow or unreachable; raise --timeout",
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function statusOnce(options: OlmClusterOptions & OlmManifestOptions): Promise<OlmStatus> {
  const { client } = await connect(options);
  try {
    const existing = await detectOlm(client);
    if (existing.found.length === 0) return { verdict: "absent", rows: [] };
    // A platform-managed OLM has its own layout: report what was found, not a release's list.
    if (existing.managedBy) return await statusOf(client, existing, undefined);
    const version = reconcileVersion(existing, options.version);
    const release = await tryLoadRelease(options, version);
    return await statusOf(client, existing, release);
  } finally {
    client.close();
  }
}

/** The version to act on: the detected one, checked against --version when both exist. */
export function reconcileVersion(existing: ExistingOlm, flag: string | undefined): string | undefined {
  const wanted = flag ? normalizeVersion(flag) : undefined;
  if (wanted === "latest")
    throw new UsageError('--version "latest" is only meaningful for install', {
      hint: "drop --version; the installed version is detected",
    });
  if (wanted && existing.version && wanted !== existing.version) {
    throw errorFrom(messages.versionMismatch(existing.version, wanted), UsageError);
  }
  return existing.version ?? wanted;
}

/** Loads the manifests of a version; when that fails, falls back to what the cluster shows. */
export async function tryLoadRelease(
  options: OlmClusterOptions & OlmManifestOptions,
  version: string | undefined,
): Promise<OlmRelease | undefined> {
  if (!version && !options.manifests) {
    options.reporter.warn(
      "the installed OLM version is unknown; checking the OLM objects found in the cluster only (pass --version to check a release's full list)",
    );
    return undefined;
  }
  try {
    // Status only reads: shipped or cached manifests, never a download, and no progress lines.
    return await loadRelease({
      ...options,
      version,
      offline: true,
      env: options.env ?? process.env,
      reporter: quiet(options.reporter),
    });
  } catch (error) {
    options.reporter.debug(
      `no manifests for OLM ${version ?? ""} (${(error as Error).message}); checking the OLM objects found in the cluster only`,
    );
    return undefined;
  }
}

/** The refs status looks at: the release's objects plus OLM-created deployments. */
export function statusRefs(existing: ExistingOlm, release: OlmRelease | undefined): ObjectRef[] {
  const refs: ObjectRef[] = [];
  const seen = new Set<string>();
  const add = (ref: ObjectRef) => {
    const key = `${ref.kind}|${ref.namespace ?? ""}|${ref.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    refs.push(ref);
  };
  if (release) {
    for (const o of [...release.crds, ...release.resources]) {
      add({
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: o.metadata.name ?? "",
        namespace: o.metadata.namespace,
      });
    }
  }
  for (const ref of existing.found) add(ref);
  const csv = (release && packageserverCsv(release.resources)) ?? existing.packageserver;
  for (const d of (csv?.spec?.install?.spec?.deployments ?? []) as Array<{ name?: string }>) {
    if (d.name)
      add({ apiVersion: "apps/v1", kind: "Deployment", namespace: csv?.metadata.namespace, name: d.name });
  }
  return refs;
}

export async function statusOf(
  client: KubeClient,
  existing: ExistingOlm,
  release: OlmRelease | undefined,
): Promise<OlmStatus> {
  const rows: StatusRow[] = [];
  for (const ref of statusRefs(existing, release)) {
    const obj = await client.get(ref);
    const health = healthOf(ref.kind, obj);
    rows.push({
      name: ref.name,
      namespace: ref.namespace ?? "",
      kind: ref.kind,
      status: health.status,
      healthy: health.done,
    });
  }
  rows.sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.kind, b.kind) || cmp(a.name, b.name));
  const present = rows.filter((r) => r.status !== "Missing");
  const verdict: Verdict =
    present.length === 0 ? "absent" : rows.every((r) => r.healthy) ? "healthy" : "degraded";
  const status: OlmStatus = { verdict, rows };
  const version = release?.version ?? existing.version;
  if (version) status.version = version;
  if (existing.managedBy) status.managedBy = existing.managedBy;
  return status;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The reporter with info lines demoted to debug (status prints its table, not where manifests came from). */
function quiet(reporter: Reporter): Reporter {
  return {
    info: (m) => reporter.debug(m),
    success: (m) => reporter.debug(m),
    warn: (m) => reporter.warn(m),
    error: (m) => reporter.error(m),
    debug: (m) => reporter.debug(m),
    progress: (t) => reporter.progress(t),
    verbose: reporter.verbose,
    quiet: reporter.quiet,
  };
}
