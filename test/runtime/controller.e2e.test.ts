// Controller behaviour through a Manager: watches with a mapping function, requeue / requeueAfter /
// error results, bounded concurrency without same-key overlap, namespace-restricted caches, and the
// liveness probe failing while an informer makes no progress.
import { afterEach, describe, expect, it } from "vitest";
import type { Request } from "../../src/runtime/controller/controller.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const cm = (name: string, namespace = "default", data: Record<string, string> = {}) => ({
  ...CM,
  metadata: { name, namespace },
  data,
});

async function ready(m: Awaited<ReturnType<Harness["startManager"]>>) {
  const running = m.start();
  running.catch(() => {});
  await waitFor(
    "ready",
    async () => m.healthProbeUrl && (await httpGet(`${m.healthProbeUrl}/readyz`)).status === 200,
  );
}

describe("controllers", () => {
  it("watches() maps events on another kind to requests", async () => {
    h = await harness();
    const m = await h.startManager();
    const seen: Request[] = [];
    await m
      .controller(CM)
      .named("cm")
      .watches(SECRET, (s) => {
        const target = (s.metadata as { annotations?: Record<string, string> })?.annotations?.[
          "example.com/for"
        ];
        return target
          ? { namespace: (s.metadata as { namespace?: string }).namespace, name: target }
          : undefined;
      })
      .complete(async (req) => {
        seen.push(req);
      });
    await ready(m);
    await h.client.create({
      ...SECRET,
      metadata: { name: "s", namespace: "default", annotations: { "example.com/for": "target" } },
      data: {},
    });
    await h.client.create({ ...SECRET, metadata: { name: "unrelated", namespace: "default" } });
    await waitFor("mapped request", () => seen.some((r) => r.name === "target" && r.namespace === "default"));
    expect(seen.filter((r) => r.name === "unrelated")).toEqual([]);
  });

  it("honours requeueAfter, requeue and errors, with backoff and metrics", async () => {
    h = await harness();
    const m = await h.startManager();
    const counts = new Map<string, number>();
    const times = new Map<string, number[]>();
    await m
      .controller(CM)
      .named("results")
      .complete(async (req) => {
        const n = (counts.get(req.name) ?? 0) + 1;
        counts.set(req.name, n);
        times.set(req.name, [...(times.get(req.name) ?? []), Date.now()]);
        if (req.name === "after" && n < 3) return { requeueAfter: 150 };
        if (req.name === "again" && n < 3) return { requeue: true };
        if (req.name === "fails" && n < 4) throw new Error(`attempt ${n} failed`);
        return;
      });
    await ready(m);
    for (const name of ["after", "again", "fails"]) await h.client.create(cm(name));
    await waitFor(
      "all settled",
      () => counts.get("after") === 3 && counts.get("again") === 3 && counts.get("fails") === 4,
    );
    const after = times.get("after") as number[];
    expect((after[1] as number) - (after[0] as number)).toBeGreaterThanOrEqual(140);
    // Error backoff grows: 5 ms, 10 ms, 20 ms between the failing attempts.
    const metrics = (await httpGet(`${m.metricsUrl}/metrics`)).body;
    expect(sample(metrics, 'controller_runtime_reconcile_errors_total{controller="results"}')).toBe(3);
    expect(
      sample(metrics, 'controller_runtime_reconcile_total{controller="results",result="requeue_after"}'),
    ).toBe(2);
    expect(sample(metrics, 'controller_runtime_reconcile_total{controller="results",result="requeue"}')).toBe(
      2,
    );
    // Every delayed add is a retry, as controller-runtime counts them: 3 errors, 2 requeues and 2
    // requeueAfters (before: only the 5 rate-limited ones).
    expect(sample(metrics, 'workqueue_retries_total{controller="results",name="results"}')).toBe(7);
    expect(h.logs.some((l) => l.includes('"msg":"reconcile failed"') && l.includes("attempt 1 failed"))).toBe(
      true,
    );
  });

  it("runs up to maxConcurrentReconciles keys in parallel, never one key twice at once", async () => {
    h = await harness();
    const m = await h.startManager();
    const active = new Set<string>();
    let peak = 0;
    let overlap = false;
    const done = new Set<string>();
    await m
      .controller(CM)
      .named("parallel")
      .withOptions({ maxConcurrentReconciles: 3 })
      .complete(async (req) => {
        if (active.has(req.name)) overlap = true;
        active.add(req.name);
        peak = Math.max(peak, active.size);
        await new Promise((r) => setTimeout(r, 40));
        active.delete(req.name);
        done.add(req.name);
      });
    await ready(m);
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    await Promise.all(names.map((n) => h?.client.create(cm(n))));
    // Changes while in flight re-queue the key for afterwards instead of running it concurrently.
    await Promise.all(
      names.map((n) =>
        h?.client.patch({ kind: CM, key: { namespace: "default", name: n } }, { data: { x: "1" } }),
      ),
    );
    await waitFor("all reconciled", () => names.every((n) => done.has(n)));
    expect(overlap).toBe(false);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(3);
  });

  it("owns() maps children to a cluster-scoped owner without a namespace", async () => {
    h = await harness();
    const m = await h.startManager();
    const seen: Request[] = [];
    await m
      .controller({ apiVersion: "v1", kind: "Namespace" })
      .named("namespaces")
      .owns(CM)
      .withEventFilter(({ type }) => type !== "update") // only the child can trigger the second reconcile
      .complete(async (req) => {
        seen.push(req);
      });
    await ready(m);
    const ns = await h.client.create<{
      apiVersion: string;
      kind: string;
      metadata: { name: string; uid?: string };
    }>({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team-b" },
    });
    await waitFor("namespace reconciled", () => seen.some((r) => r.name === "team-b" && r.namespace === ""));
    const before = seen.length;
    await h.client.create({
      ...cm("child", "team-b"),
      metadata: {
        name: "child",
        namespace: "team-b",
        ownerReferences: [
          { apiVersion: "v1", kind: "Namespace", name: "team-b", uid: ns.metadata.uid, controller: true },
        ],
      },
    });
    await waitFor("owner reconciled for its child", () => seen.length > before);
    expect(seen.slice(before).every((r) => r.name === "team-b" && r.namespace === "")).toBe(true);
  });

  it("restricts caches to the manager's namespace", async () => {
    h = await harness();
    await h.client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } });
    const m = await h.startManager({ namespace: "team-a" });
    const seen: Request[] = [];
    await m
      .controller(CM)
      .named("ns")
      .complete(async (req) => {
        seen.push(req);
      });
    await ready(m);
    await h.client.create(cm("outside", "default"));
    await h.client.create(cm("inside", "team-a"));
    await waitFor("inside reconciled", () =>
      seen.some((r) => r.name === "inside" && r.namespace === "team-a"),
    );
    expect(seen.filter((r) => r.namespace !== "team-a")).toEqual([]);
  });

  it("fails /healthz while an informer makes no progress, and recovers", async () => {
    h = await harness();
    const m = await h.startManager({ watchStaleAfterMs: 300 });
    await m
      .controller(CM)
      .named("live")
      .complete(async () => {});
    await ready(m);
    expect((await httpGet(`${m.healthProbeUrl}/healthz`)).status).toBe(200);
    // Every list and watch now hangs for 2.5 s: the informer is stuck.
    h.cluster.faults.latency(2500, { path: "/api/v1/configmaps" });
    h.cluster.closeWatches();
    const failing = await waitFor("liveness failure", async () => {
      const r = await httpGet(`${m.healthProbeUrl}/healthz`);
      return r.status === 500 ? r : undefined;
    });
    expect(failing.body).toMatch(/\[-\]informers failed: configmaps: no list\/watch progress/);
    h.cluster.faults.clear();
    await waitFor(
      "liveness recovers",
      async () => (await httpGet(`${m.healthProbeUrl}/healthz`)).status === 200,
      10_000,
    );
  });
});

describe("manager configuration errors", () => {
  it("refuses leader election without a namespace outside a cluster, and bad bind addresses", async () => {
    h = await harness();
    const noNs = await h.startManager({ leaderElection: { id: "x" } });
    await expect(noNs.start()).rejects.toThrow(/leader election needs a namespace/);
    const badAddress = await h.startManager({ metricsBindAddress: "localhost:http" });
    await expect(badAddress.start()).rejects.toThrow(/invalid bind address "localhost:http"/);
  });

  it("a manager stopped before it started does not start", async () => {
    h = await harness();
    const m = await h.startManager();
    await m.controller(CM).complete(async () => {});
    await m.stop();
    await m.start();
    expect(m.healthProbeUrl).toBeUndefined();
    expect(m.isLeader()).toBe(false);
  });
});
