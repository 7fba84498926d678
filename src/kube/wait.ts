// Watch-based waits for a set of objects: one runtime Informer per kind and namespace (list, watch,
// relist on 410 Gone, reconnect, abort a watch that stays quiet too long). Progress is
// reported per object; a timeout or a terminal failure ends with diagnostics for what is pending.
import { setMaxListeners } from "node:events";
import { TimeoutError, TsopError } from "../common/errors.js";
import { formatDuration } from "../common/duration.js";
import { interruptedError } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import { Informer } from "../runtime/cache/informer.js";
import { Logger } from "../runtime/log/logger.js";
import type { KubeClient, ResourceInfo } from "./client.js";
import { diagnose } from "./diagnostics.js";
import { ApiError, isNoMatch, isNotFound } from "./errors.js";
import { describeRef, type KubeObject, type ObjectRef, refKey } from "./objects.js";

export interface CheckResult {
  done: boolean;
  /** Short human status, e.g. "1/2 replicas available" or "phase Installing". */
  status: string;
  /** Set when the object reached a state it will not leave by itself. */
  failed?: string;
}

export interface WaitTarget {
  ref: ObjectRef;
  check(obj: KubeObject | undefined): CheckResult;
}

export interface WaitOptions {
  timeoutMs: number;
  reporter: Reporter;
  /** What is being waited for, for the progress line and errors (e.g. "OLM deployments"). */
  what: string;
  /** The command's whole budget, named in the timeout message when it differs from timeoutMs. */
  totalTimeoutMs?: number;
  /** Relist at least this often even if the watch looks alive (default 10 s). */
  relistIntervalMs?: number;
  signal?: AbortSignal;
}

interface TargetState {
  target: WaitTarget;
  obj: KubeObject | undefined;
  result: CheckResult;
  reported: boolean;
}

export class WaitFailedError extends TsopError {}

export async function waitFor(
  client: KubeClient,
  targets: WaitTarget[],
  options: WaitOptions,
): Promise<Map<string, KubeObject | undefined>> {
  const states = new Map<string, TargetState>();
  for (const target of targets) {
    states.set(refKey(target.ref), {
      target,
      obj: undefined,
      result: { done: false, status: "waiting" },
      reported: false,
    });
  }
  const results = () => new Map([...states].map(([k, s]) => [k, s.obj]));
  if (targets.length === 0) return results();

  const progress = options.reporter.progress(`waiting for ${options.what}`);
  const controller = new AbortController();
  // One listener per watched kind and per watch: more than Node's default warning threshold.
  setMaxListeners(0, controller.signal);
  const stopOnParent = () => controller.abort();
  options.signal?.addEventListener("abort", stopOnParent);
  let settle: (value: "done" | "timeout" | "failed" | "aborted") => void = () => {};
  const settled = new Promise<"done" | "timeout" | "failed" | "aborted">((resolve) => {
    settle = resolve;
  });
  let failure: TargetState | undefined;

  const update = (state: TargetState, obj: KubeObject | undefined) => {
    state.obj = obj;
    const before = state.result.status;
    state.result = state.target.check(obj);
    if (state.result.status !== before || !state.reported) {
      state.reported = true;
      if (state.result.done)
        options.reporter.success(`${describeRef(state.target.ref)}: ${state.result.status}`);
      else progress.update(`${describeRef(state.target.ref)}: ${state.result.status}`);
    }
    if (state.result.failed && !failure) {
      failure = state;
      settle("failed");
    } else if ([...states.values()].every((s) => s.result.done)) {
      settle("done");
    }
  };

  const groups = new Map<string, TargetState[]>();
  for (const state of states.values()) {
    const { apiVersion, kind, namespace } = state.target.ref;
    const key = `${apiVersion}|${kind}|${namespace ?? ""}`;
    groups.set(key, [...(groups.get(key) ?? []), state]);
  }
  const relistMs = options.relistIntervalMs ?? 10_000;
  let loopError: unknown;
  const loops = [...groups.values()].map((group) =>
    watchGroup(client, group, update, controller.signal, relistMs).catch((error) => {
      if (!controller.signal.aborted) {
        loopError = error;
        settle("failed");
      }
    }),
  );
  const timer = setTimeout(() => settle("timeout"), options.timeoutMs);
  options.signal?.addEventListener("abort", () => settle("aborted"));
  const outcome = await settled;
  clearTimeout(timer);
  controller.abort();
  options.signal?.removeEventListener("abort", stopOnParent);
  await Promise.allSettled(loops);

  if (outcome === "done") {
    progress.succeed(`${options.what}: ready`);
    return results();
  }
  if (loopError) {
    progress.fail(`${options.what}: failed`);
    throw loopError;
  }
  if (outcome === "aborted") {
    progress.fail(`${options.what}: interrupted`);
    throw interruptedError(options.signal, `interrupted while waiting for ${options.what}`);
  }
  const pending =
    outcome === "failed" && failure ? [failure] : [...states.values()].filter((s) => !s.result.done);
  const sections: string[] = [];
  for (const state of pending) {
    const details = await diagnose(client, state.target.ref, state.obj);
    sections.push(
      [
        `${describeRef(state.target.ref)}: ${state.result.failed ?? state.result.status}`,
        ...details.map((l) => `    ${l}`),
      ].join("\n  "),
    );
  }
  if (outcome === "failed" && failure) {
    progress.fail(`${describeRef(failure.target.ref)}: ${failure.result.failed}`);
    throw new WaitFailedError(`${options.what} failed:\n  ${sections.join("\n  ")}`, {
      hint: "the conditions and events above say why; fix the cause and retry",
    });
  }
  progress.fail(`${options.what}: timed out`);
  throw new TimeoutError(
    `timed out after ${formatDuration(options.totalTimeoutMs ?? options.timeoutMs)} waiting for ${options.what}:\n  ${sections.join("\n  ")}`,
    {
      hint: "the conditions, events and pod states above show what is stuck; raise --timeout if it is only slow",
    },
  );
}

async function watchGroup(
  client: KubeClient,
  group: TargetState[],
  update: (state: TargetState, obj: KubeObject | undefined) => void,
  signal: AbortSignal,
  relistMs: number,
): Promise<void> {
  const { apiVersion, kind } = group[0]!.target.ref;
  const absent = () => {
    for (const state of group) update(state, undefined);
  };
  let unserved = 0;
  while (!signal.aborted) {
    let mapping: ResourceInfo;
    try {
      mapping = await client.resource(apiVersion, kind);
    } catch (error) {
      if (!isNoMatch(error)) throw error;
      // The kind is not served (yet, or any more): every target of this kind is absent.
      absent();
      await pause(Math.min(250 * 2 ** unserved++, 2000), signal);
      continue;
    }
    unserved = 0;
    if ((await followKind(client, mapping, group, update, signal, relistMs)) === "unserved") {
      absent();
      await pause(250, signal);
    }
  }
}

/**
 * Follows one kind with the runtime's Informer (list, watch from there, relist on 410 Gone, reconnect
 * with backoff, abort a silent watch) and reports the targets' objects. Ends when the signal aborts
 * or the kind stops being served; a failure that retrying will not cure rejects at once, others after
 * a few attempts in a row.
 */
function followKind(
  client: KubeClient,
  mapping: ResourceInfo,
  group: TargetState[],
  update: (state: TargetState, obj: KubeObject | undefined) => void,
  signal: AbortSignal,
  relistMs: number,
): Promise<"stopped" | "unserved"> {
  const { namespace } = group[0]!.target.ref;
  const byName = new Map(group.map((s) => [s.target.ref.name, s]));
  const deliver = (obj: KubeObject, gone = false) => {
    const state = byName.get(obj.metadata?.name ?? "");
    if (state) update(state, gone ? undefined : obj);
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      void informer.stop().then(settle);
    };
    const onAbort = () => finish(() => resolve("stopped"));
    const informer = new Informer<KubeObject>(client.rest, mapping, {
      namespace,
      logger: SILENT,
      resyncPeriodMs: relistMs, // re-runs time-based checks (a grace period) without new events
      watchTimeoutSeconds: Math.max(1, Math.ceil(relistMs / 1000)),
      wedgedGraceMs: relistMs,
      backoffBaseMs: 250,
      backoffMaxMs: 2000,
      onError: (error, failures) => {
        if (isNotFound(error)) finish(() => resolve("unserved"));
        else if (!isTransient(error) || failures > 5)
          finish(() =>
            reject(client.explain(error, { verb: "watch", resource: resourceName(mapping), namespace })),
          );
      },
    });
    informer.addHandler({
      onAdd: (obj) => deliver(obj),
      onUpdate: (_old, obj) => deliver(obj),
      onDelete: (obj) => deliver(obj, true),
    });
    signal.addEventListener("abort", onAbort);
    informer.start();
    void informer.waitForSync().then(() => {
      if (settled) return;
      const present = new Set(informer.list().map((o) => o.metadata?.name));
      for (const [name, state] of byName) if (!present.has(name)) update(state, undefined);
    });
  });
}

const SILENT = new Logger({ level: "error", sink: { write: () => undefined } });

/** Worth another attempt: throttling, server errors, 410, dropped connections. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 429 || error.status === 410 || error.status >= 500;
}

function resourceName(m: ResourceInfo): string {
  return m.group ? `${m.plural}.${m.group}` : m.plural;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

// ---- common checks -----------------------------------------------------------------------------

/** Deployment rollout: observed generation, updated replicas, Available, no ProgressDeadlineExceeded. */
export function deploymentCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "not created yet" };
  const status = obj.status ?? {};
  const conditions = (status.conditions ?? []) as Array<{
    type: string;
    status: string;
    reason?: string;
    message?: string;
  }>;
  const progressing = conditions.find((c) => c.type === "Progressing");
  if (progressing?.reason === "ProgressDeadlineExceeded") {
    return {
      done: false,
      status: "progress deadline exceeded",
      failed: `rollout failed: ${progressing.message ?? "progress deadline exceeded"}`,
    };
  }
  const want = obj.spec?.replicas ?? 1;
  if ((obj.metadata.generation ?? 0) > (status.observedGeneration ?? 0))
    return { done: false, status: "waiting for the rollout to be observed" };
  const updated = status.updatedReplicas ?? 0;
  if (updated < want) return { done: false, status: `${updated}/${want} replicas updated` };
  if ((status.replicas ?? 0) > updated)
    return { done: false, status: `${status.replicas - updated} old replicas pending termination` };
  const available = status.availableReplicas ?? 0;
  const availableCond = conditions.find((c) => c.type === "Available");
  if (available < updated || availableCond?.status !== "True")
    return { done: false, status: `${available}/${want} replicas available` };
  return { done: true, status: `available (${available}/${want})` };
}

/** CRD registered and served. */
export function crdEstablishedCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: false, status: "not created yet" };
  const conditions = (obj.status?.conditions ?? []) as Array<{
    type: string;
    status: string;
    message?: string;
  }>;
  const names = conditions.find((c) => c.type === "NamesAccepted");
  if (names?.status === "False")
    return {
      done: false,
      status: "names not accepted",
      failed: `names not accepted: ${names.message ?? ""}`,
    };
  const established = conditions.find((c) => c.type === "Established");
  return established?.status === "True"
    ? { done: true, status: "established" }
    : { done: false, status: "not established yet" };
}

/** The object no longer exists. */
export function goneCheck(obj: KubeObject | undefined): CheckResult {
  if (!obj) return { done: true, status: "deleted" };
  const finalizers = obj.metadata.finalizers ?? [];
  return {
    done: false,
    status: obj.metadata.deletionTimestamp
      ? `terminating${finalizers.length ? ` (finalizers: ${finalizers.join(", ")})` : ""}`
      : "still present",
  };
}
