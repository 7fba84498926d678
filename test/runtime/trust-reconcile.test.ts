// Reconcile failure semantics (issue 38), through a Controller on the in-memory API server:
// cancellation (ctx.signal reaches every request; stop() ends a hung request), reconciliationTimeout,
// TerminalError, stop()'s single budget and `drained`, and how conflicts are logged.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { isAborted, RequestAbortedError } from "../../src/runtime/connect/aborted.js";
import { ApiError } from "../../src/runtime/connect/errors.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import {
  Controller,
  type ControllerHost,
  type ControllerOptions,
  type ReconcileFunction,
} from "../../src/runtime/controller/controller.js";
import { isTerminalError, terminalError } from "../../src/runtime/controller/terminal-error.js";
import { EventRecorder } from "../../src/runtime/events/events.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry, runtimeMetrics } from "../../src/runtime/metrics/metrics.js";
import { startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
type Cluster = Awaited<ReturnType<typeof startTestCluster>>;

interface Rig {
  cluster: Cluster;
  client: Client;
  logs: Array<{ level: string; msg: string; [k: string]: unknown }>;
  metrics: MetricsRegistry;
  controller(reconcile: ReconcileFunction, options?: ControllerOptions): Controller;
  close(): Promise<void>;
}

let rig: Rig | undefined;
const controllers: Controller[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(controllers.splice(0).map((c) => c.stop(0)));
  await rig?.close();
  rig = undefined;
});

async function startRig(): Promise<Rig> {
  const cluster = await startTestCluster();
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  const rest = new RestClient(loaded.server, loaded);
  const client = new Client(rest, new RestMapper(rest));
  const logs: Rig["logs"] = [];
  const logger = new Logger({
    format: "json",
    level: "debug",
    sink: { write: (line: string) => logs.push(JSON.parse(line) as Rig["logs"][number]) },
  });
  const registry = new MetricsRegistry();
  const host: ControllerHost = {
    client,
    events: new EventRecorder(client, "trust-reconcile", logger),
    logger,
    metrics: runtimeMetrics(registry),
    informerFor: () => Promise.reject(new Error("not used")),
    register: () => {},
  };
  return {
    cluster,
    client,
    logs,
    metrics: registry,
    controller(reconcile, options = {}) {
      const c = new Controller("cms", { reconcile }, host, options, CM);
      controllers.push(c);
      return c;
    },
    async close() {
      rest.close();
      await cluster.stop();
    },
  };
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const metric = (r: Rig, series: string) =>
  r.metrics
    .render()
    .split("\n")
    .find((l) => l.startsWith(`${series} `))
    ?.split(" ")[1];

describe("cancellation", () => {
  it("a client with a signal (withSignal, its apiReader, a call's own) ends a hanging request with a clear error", async () => {
    rig = await startRig();
    await rig.client.create({ ...CM, metadata: { name: "slow", namespace: "default" } });
    rig.cluster.faults.latency(60_000, { path: "/api/v1/namespaces/default/configmaps*" });
    const calls = [
      (s: AbortSignal) => rig!.client.withSignal(s).get(CM, { namespace: "default", name: "slow" }),
      (s: AbortSignal) => rig!.client.withSignal(s).apiReader.get(CM, { namespace: "default", name: "slow" }),
      (s: AbortSignal) => rig!.client.list(CM, { namespace: "default", signal: s }),
      (s: AbortSignal) =>
        rig!.client.delete({ kind: CM, key: { namespace: "default", name: "slow" } }, { signal: s }),
    ];
    for (const call of calls) {
      const abort = new AbortController();
      const pending = call(abort.signal);
      setTimeout(() => abort.abort(new Error("the test gave up")), 50);
      const err = (await pending.then(
        () => undefined,
        (e: unknown) => e,
      )) as Error;
      expect(err).toBeInstanceOf(RequestAbortedError);
      expect(isAborted(err)).toBe(true);
      expect(err.message).toMatch(
        /^(GET|DELETE) \/api\/v1\/namespaces\/default\/configmaps.* aborted .*the test gave up/,
      );
    }
  });

  it("stop() aborts ctx.signal: the reconcile's hanging request rejects at once, no worker held, drained", async () => {
    rig = await startRig();
    rig.cluster.faults.latency(60_000, { path: "/api/v1/namespaces/default/configmaps/slow" });
    const started = deferred();
    const failures: unknown[] = [];
    const c = rig.controller(async (req, ctx) => {
      started.resolve();
      try {
        await ctx.client.get(CM, req);
      } catch (err) {
        failures.push(err);
        throw err;
      }
    });
    c.start();
    c.enqueue({ namespace: "default", name: "slow" });
    await started.promise;
    const before = Date.now();
    const { drained } = await c.stop(20_000);
    // The request was delayed 60 s: only the abort can have ended it, long before the budget.
    expect(Date.now() - before).toBeLessThan(10_000);
    expect(drained).toBe(true);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toMatch(
      /GET .*configmaps\/slow: aborted .*controller cms is stopping/,
    );
    expect(metric(rig, 'controller_runtime_active_workers{controller="cms"}')).toBe("0");
  });
});

describe("reconciliationTimeout", () => {
  it("aborts the signal at the deadline, counts an error, frees the worker, holds the key until its code returns", async () => {
    rig = await startRig();
    const hung = deferred();
    const runs: string[] = [];
    let signal: AbortSignal | undefined;
    const c = rig.controller(
      async (req, ctx) => {
        runs.push(req.name);
        if (req.name === "hung" && runs.filter((n) => n === "hung").length === 1) {
          signal = ctx.signal;
          await hung.promise; // ignores its signal
        }
      },
      { reconciliationTimeout: 100 },
    );
    c.start();
    c.enqueue({ namespace: "default", name: "hung" });
    await waitFor("the hung reconcile", () => signal);
    c.enqueue({ namespace: "default", name: "next" });
    // One worker: "next" runs only because the timeout freed it.
    await waitFor("the next key on the freed worker", () => runs.includes("next"));
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error).message).toBe(
      "reconcile of default/hung exceeded the reconciliationTimeout of 100 ms",
    );
    expect(metric(rig, 'controller_runtime_reconcile_timeouts_total{controller="cms"}')).toBe("1");
    expect(metric(rig, 'controller_runtime_reconcile_errors_total{controller="cms"}')).toBe("1");
    expect(metric(rig, 'controller_runtime_reconcile_total{controller="cms",result="error"}')).toBe("1");
    const logged = rig.logs.find((l) => l.level === "error" && l.msg.includes("reconciliationTimeout"));
    expect(logged?.msg).toContain("default/hung");
    expect(logged?.msg).toContain("100 ms");
    // Retried with backoff, but not while the abandoned code still runs.
    expect(runs.filter((n) => n === "hung")).toHaveLength(1);
    hung.resolve();
    await waitFor(
      "the retry once the abandoned code returned",
      () => runs.filter((n) => n === "hung").length === 2,
    );
  });
});

describe("TerminalError", () => {
  it("isTerminalError finds it through a cause chain", () => {
    const inner = terminalError(new Error("spec.size must be positive"));
    expect(inner.message).toBe("terminal error: spec.size must be positive");
    expect(isTerminalError(new Error("outer", { cause: inner }))).toBe(true);
    expect(isTerminalError(new Error("plain"))).toBe(false);
    expect(terminalError(inner)).toBe(inner);
  });

  it("is not retried, is counted, logged at error level and recorded as a Warning event on the object", async () => {
    rig = await startRig();
    await rig.client.create({ ...CM, metadata: { name: "bad", namespace: "default" } });
    let attempts = 0;
    const c = rig.controller(async () => {
      attempts++;
      throw terminalError(new Error("spec.size must be positive"));
    });
    c.start();
    c.enqueue({ namespace: "default", name: "bad" });
    const logged = await waitFor("the terminal error's log line", () =>
      rig!.logs.find((l) => l.msg.includes("terminal error")),
    );
    expect(logged.level).toBe("error");
    expect(logged.name).toBe("bad");
    // Nothing delayed or waiting: no retry was scheduled.
    expect(c.queue.idle()).toBe(true);
    expect(attempts).toBe(1);
    expect(metric(rig, 'controller_runtime_terminal_reconcile_errors_total{controller="cms"}')).toBe("1");
    expect(metric(rig, 'controller_runtime_reconcile_errors_total{controller="cms"}')).toBe("1");
    expect(metric(rig, 'controller_runtime_reconcile_total{controller="cms",result="error"}')).toBe("1");
    expect(metric(rig, 'workqueue_retries_total{controller="cms",name="cms"}')).toBe("0");
    const event = await waitFor("the Warning event", async () =>
      (
        await rig!.client.list<{
          kind?: string;
          type?: string;
          reason?: string;
          message?: string;
          involvedObject?: { name?: string };
        }>({ apiVersion: "v1", kind: "Event" }, { namespace: "default" })
      ).find((e) => e.involvedObject?.name === "bad"),
    );
    expect(event.type).toBe("Warning");
    expect(event.reason).toBe("ReconcileFailed");
    expect(event.message).toContain("spec.size must be positive");
    // The next event on the object reconciles it again.
    c.enqueue({ namespace: "default", name: "bad" });
    await waitFor("a reconcile on the next event", () => attempts === 2);
  });
});

describe("stop()", () => {
  it("waits one budget in all (not queue drain then workers), and says it did not drain", async () => {
    vi.useFakeTimers();
    const logger = new Logger({ sink: { write: () => {} } });
    const host = {
      client: { withSignal: () => host.client },
      logger,
      metrics: runtimeMetrics(new MetricsRegistry()),
    } as unknown as ControllerHost;
    const started = deferred();
    const never = deferred();
    let ended = false;
    const c = new Controller(
      "ignores-signal",
      {
        reconcile: async () => {
          started.resolve();
          await never.promise; // ignores its signal
          ended = true;
        },
      },
      host,
      {},
    );
    c.start();
    c.enqueue({ namespace: "default", name: "x" });
    await started.promise;
    let resolved = false;
    let result: { drained: boolean } | undefined;
    void c.stop(1000).then((r) => {
      resolved = true;
      result = r;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(resolved).toBe(false);
    await vi.advanceTimersByTimeAsync(1); // before: the queue drain took this budget, the workers another
    expect(resolved).toBe(true);
    expect(result).toEqual({ drained: false });
    expect(ended).toBe(false); // the reconcile is still pending
    never.resolve();
  });

  it("resolves drained at once when the reconcile honours its signal", async () => {
    const logger = new Logger({ sink: { write: () => {} } });
    const host = {
      client: { withSignal: () => host.client },
      logger,
      metrics: runtimeMetrics(new MetricsRegistry()),
    } as unknown as ControllerHost;
    const started = deferred();
    const c = new Controller(
      "honours-signal",
      {
        reconcile: async (_req, ctx) => {
          started.resolve();
          await new Promise((_, reject) =>
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
          );
        },
      },
      host,
      {},
    );
    c.start();
    c.enqueue({ namespace: "default", name: "x" });
    await started.promise;
    expect(await c.stop(60_000)).toEqual({ drained: true });
  });
});

describe("conflicts", () => {
  it("stay at debug level while they are the usual catch-up, then are logged as errors with a hint", async () => {
    rig = await startRig();
    let attempts = 0;
    const c = rig.controller(async (req) => {
      attempts++;
      if (attempts <= 6)
        throw new ApiError("PUT", `/api/v1/namespaces/default/configmaps/${req.name}`, 409, {
          reason: "Conflict",
          message: "the object has been modified; please apply your changes to the latest version",
        });
    });
    c.start();
    c.enqueue({ namespace: "default", name: "fought-over" });
    await waitFor(
      "a success after the conflicts",
      () => metric(rig!, 'controller_runtime_reconcile_total{controller="cms",result="success"}') === "1",
    );
    const quiet = rig.logs.filter((l) => l.msg === "reconcile hit a conflict; retrying");
    const loud = rig.logs.filter((l) => l.level === "error" && l.msg.includes("409 Conflict"));
    expect(quiet.map((l) => l.level)).toEqual(["debug", "debug", "debug", "debug"]);
    expect(loud).toHaveLength(2);
    expect(loud[0]?.msg).toContain("default/fought-over");
    expect(String(loud[0]?.hint)).toContain("apiReader");
    expect(metric(rig, 'controller_runtime_reconcile_errors_total{controller="cms"}')).toBe("6");
  });
});
