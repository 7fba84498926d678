// Watch-based waits for a set of objects: one list+watch loop per kind and namespace, relisting
// when a watch drops, answers 410 Gone or stays quiet too long (the relist fallback). Progress is
// reported per object; a timeout or a terminal failure ends with diagnostics for what is pending.
import { setMaxListeners } from "node:events";
import { TimeoutError, TsopError } from "../common/errors.js";
import { formatDuration } from "../common/duration.js";
import { interruptedError } from "../common/interrupt.js";
import type { Reporter } from "../common/reporter.js";
import type { KubeClient } from "./client.js";
import { diagnose } from "./diagnostics.js";
import { NoKindMatchError, NotFoundError } from "./errors.js";
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
  const { apiVersion, kind, namespace } = group[0]!.target.ref;
  const byName = new Map(group.map((s) => [s.target.ref.name, s]));
  let failures = 0;
  while (!signal.aborted) {
    let resourceVersion: string;
    try {
      const list = await client.list(apiVersion, kind, { namespace: namespace ?? "" });
      resourceVersion = list.resourceVersion;
      for (const [name, state] of byName)
        update(
          state,
          list.items.find((o) => o.metadata.name === name),
        );
      failures = 0;
    } catch (error) {
      if (!(error instanceof NoKindMatchError) && !(error instanceof NotFoundError)) throw error;
      // The kind is not served (yet, or any more): every target of this kind is absent.
      for (const state of byName.values()) update(state, undefined);
      await pause(Math.min(250 * 2 ** failures++, 2000), signal);
      continue;
    }
    if (signal.aborted) return;
    // Watch until the stream ends, then relist; a bounded lifetime is the fallback for a silent watch.
    const local = new AbortController();
    const abort = () => local.abort();
    signal.addEventListener("abort", abort);
    const timer = setTimeout(abort, relistMs);
    try {
      let rv = resourceVersion;
      while (!local.signal.aborted) {
        const result = await client.watch(
          apiVersion,
          kind,
          {
            namespace: namespace ?? "",
            resourceVersion: rv,
            timeoutSeconds: Math.ceil(relistMs / 1000),
            signal: local.signal,
          },
          (event) => {
            const state = byName.get(event.object.metadata.name ?? "");
            if (state) update(state, event.type === "DELETED" ? undefined : event.object);
          },
        );
        if (result.gone || !result.resourceVersion || result.resourceVersion === rv) break;
        rv = result.resourceVersion;
      }
    } catch (error) {
      if (!(error instanceof NoKindMatchError) && !signal.aborted) {
        if (++failures > 5) throw error;
        await pause(Math.min(250 * 2 ** failures, 2000), signal);
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", abort);
    }
  }
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
