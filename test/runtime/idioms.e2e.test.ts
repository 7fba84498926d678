// controller-runtime's idioms through a Manager on the in-memory API server: predicates on every
// watch (withEventFilter) and per watch, handlers (enqueueRequestForOwner of a non-primary owner,
// async enqueueRequestsFromMapFunc seeing the event type and old object), a failing map function
// (logged and counted; the informer goes on), field indexes (client.list matchingFields, kept
// through updates and deletes, clear errors, an index added after start), and the priority queue
// (an edit after a restart is reconciled before the initial list's backlog).
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import type { Request } from "../../src/runtime/controller/controller.js";
import { enqueueRequestForOwner, enqueueRequestsFromMapFunc } from "../../src/runtime/controller/handlers.js";
import {
  labelChanged,
  labelSelectorPredicate,
  not,
  type ObjectEvent,
} from "../../src/runtime/controller/predicates.js";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { type Harness, harness, httpGet, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;
const MEMCACHED = { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached" } as const;

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function ready(m: Manager) {
  const running = m.start();
  running.catch(() => {});
  await waitFor(
    "ready",
    async () => m.healthProbeUrl && (await httpGet(`${m.healthProbeUrl}/readyz`)).status === 200,
  );
}

const names = (reqs: Request[]) => reqs.map((r) => r.name);
const meta = (o: KubeObjectLike) =>
  o.metadata as {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    resourceVersion?: string;
  };

describe("predicates", () => {
  it("withEventFilter filters every watch; manager.controller(kind, { predicates }) the primary; owns/watches their own", async () => {
    h = await harness();
    const m = await h.startManager();
    const seen: Request[] = [];
    await m
      .controller(CM, { predicates: [not(labelSelectorPredicate("skip"))] })
      .named("filtered")
      .watches(SECRET, (s) => ({ namespace: meta(s).namespace, name: `from-${meta(s).name}` }))
      .watches(MEMCACHED, (mc) => ({ namespace: meta(mc).namespace, name: `mc-${meta(mc).name}` }), {
        predicates: [labelChanged],
      })
      .withEventFilter(labelSelectorPredicate({ team: "a" }))
      .complete(async (req) => {
        seen.push(req);
      });
    await ready(m);
    const cm = (name: string, labels: Record<string, string>) =>
      h!.client.create({ ...CM, metadata: { name, namespace: "default", labels } });
    await cm("a1", { team: "a" });
    await cm("b1", { team: "b" });
    await cm("a-skipped", { team: "a", skip: "" });
    await h.client.create({
      ...SECRET,
      metadata: { name: "sa", namespace: "default", labels: { team: "a" } },
    });
    await h.client.create({
      ...SECRET,
      metadata: { name: "sb", namespace: "default", labels: { team: "b" } },
    });
    await h.client.create({
      ...MEMCACHED,
      metadata: { name: "m", namespace: "default", labels: { team: "a" } },
      spec: { size: 1 },
    });
    await waitFor("a1, the team-a Secret and Memcached", () =>
      ["a1", "from-sa", "mc-m"].every((n) => names(seen).includes(n)),
    );
    // A spec change of the Memcached keeps its labels: its own predicate (labelChanged) drops it.
    const count = seen.length;
    const mc = (await h.client.get(MEMCACHED, { namespace: "default", name: "m" }))!;
    await h.client.update({ ...mc, spec: { size: 2 } });
    await h.client.update({
      ...(await h.client.get(CM, { namespace: "default", name: "a1" }))!,
      data: { x: "1" },
    });
    await waitFor("the a1 update", () => seen.length > count);
    await new Promise((r) => setTimeout(r, 200));
    expect(names(seen.slice(count))).toEqual(["a1"]);
    expect(names(seen)).not.toContain("b1");
    expect(names(seen)).not.toContain("a-skipped");
    expect(names(seen)).not.toContain("from-sb");
  });
});

describe("handlers", () => {
  it("enqueueRequestForOwner of a non-primary kind, and an async map function that sees the event type and old object", async () => {
    h = await harness();
    const m = await h.startManager();
    const byOwner: Request[] = [];
    const events: string[] = [];
    const mapped: Request[] = [];
    await m
      .controller(CM)
      .named("owners")
      .watches(SECRET, enqueueRequestForOwner(MEMCACHED))
      .complete(async (req) => {
        byOwner.push(req);
      });
    let deleteMapped!: () => void;
    const deleteSeen = new Promise<void>((resolve) => (deleteMapped = resolve));
    const mappedController = await m
      .controller(MEMCACHED)
      .named("mapped")
      .watches(
        CM,
        enqueueRequestsFromMapFunc(async ({ type, object, old }: ObjectEvent) => {
          events.push(
            `${type}:${meta(object).name}:${old ? (old as { data?: { v?: string } }).data?.v : "-"}`,
          );
          // A slow lookup: the create's answer comes only after the delete has been mapped.
          if (type === "create") await deleteSeen;
          if (type === "delete") deleteMapped();
          return { namespace: meta(object).namespace, name: `${type}-${meta(object).name}` };
        }),
      )
      .complete(async (req) => {
        mapped.push(req);
      });
    const enqueued: string[] = [];
    const enqueue = mappedController.enqueue.bind(mappedController);
    mappedController.enqueue = (request, priority) => {
      enqueued.push(request.name);
      enqueue(request, priority);
    };
    await ready(m);
    const owner = (name: string, controller?: boolean) => ({
      apiVersion: MEMCACHED.apiVersion,
      kind: MEMCACHED.kind,
      name,
      uid: `uid-${name}`,
      ...(controller ? { controller: true } : {}),
    });
    await h.client.create({
      ...SECRET,
      metadata: { name: "s", namespace: "default", ownerReferences: [owner("one", true), owner("two")] },
    });
    await waitFor("both owners", () => ["one", "two"].every((n) => names(byOwner).includes(n)));
    expect(byOwner.every((r) => r.namespace === "default")).toBe(true);

    await h.client.create({ ...CM, metadata: { name: "c", namespace: "default" }, data: { v: "1" } });
    const created = (await h.client.get(CM, { namespace: "default", name: "c" }))!;
    await h.client.update({ ...created, data: { v: "2" } });
    await h.client.delete({ kind: CM, key: { namespace: "default", name: "c" } });
    await waitFor("three events mapped", () => enqueued.length >= 3);
    expect(events).toEqual(["create:c:-", "update:c:1", "delete:c:-"]);
    // The create's answer came last, yet its key was enqueued first (event order).
    expect(enqueued).toEqual(["create-c", "update-c", "delete-c"]);
    await waitFor("the mapped requests", () => names(mapped).includes("delete-c"));
  });

  it("a failing map function is logged with its kind and counted; later events still enqueue", async () => {
    h = await harness();
    const m = await h.startManager();
    const seen: Request[] = [];
    await m
      .controller(CM)
      .named("fragile")
      .watches(
        SECRET,
        enqueueRequestsFromMapFunc(async ({ object }) => {
          if (meta(object).name === "bad") throw new Error("lookup exploded");
          return { namespace: "default", name: `ok-${meta(object).name}` };
        }),
      )
      .watches(CM, () => {
        throw new Error("sync map exploded");
      })
      .complete(async (req) => {
        seen.push(req);
      });
    await ready(m);
    await h.client.create({ ...SECRET, metadata: { name: "bad", namespace: "default" } });
    await h.client.create({ ...SECRET, metadata: { name: "good", namespace: "default" } });
    await h.client.create({ ...CM, metadata: { name: "cm", namespace: "default" } });
    await waitFor("the good Secret", () => names(seen).includes("ok-good"));
    const text = await waitFor("the error metrics", async () => {
      const body = (await httpGet(`${m.metricsUrl}/metrics`)).body;
      return sample(
        body,
        'tsop_controller_watch_handler_errors_total{controller="fragile",kind="Secret"}',
      ) === 1 &&
        sample(body, 'tsop_controller_watch_handler_errors_total{controller="fragile",kind="ConfigMap"}') ===
          1
        ? body
        : undefined;
    });
    expect(text).toBeDefined();
    const failures = h.logs.filter((l) => l.includes("watch handler failed"));
    expect(failures.some((l) => l.includes('"kind":"Secret"') && l.includes("lookup exploded"))).toBe(true);
    expect(failures.some((l) => l.includes('"kind":"ConfigMap"') && l.includes("sync map exploded"))).toBe(
      true,
    );
    expect(names(seen)).toContain("cm"); // the primary watch of the same informer is unaffected
  });
});

describe("field indexes", () => {
  it("client.list matchingFields answers from the index, kept through updates and deletes; clear errors", async () => {
    h = await harness();
    const m = await h.startManager();
    const secretOf = (o: KubeObjectLike) => {
      const s = (o as { data?: { secret?: string } }).data?.secret;
      return s ? [s] : [];
    };
    await m.indexField(CM, "data.secret", secretOf);
    const reconciled: Request[] = [];
    await m
      .controller(CM)
      .named("refs")
      .watches(
        SECRET,
        enqueueRequestsFromMapFunc(async ({ object }) =>
          (
            await m.client.list(CM, {
              namespace: meta(object).namespace,
              matchingFields: { "data.secret": meta(object).name },
            })
          ).map((c) => ({ namespace: meta(c).namespace, name: meta(c).name })),
        ),
      )
      .complete(async (req) => {
        reconciled.push(req);
      });
    const cm = (name: string, secret: string, namespace = "default") =>
      h!.client.create({ ...CM, metadata: { name, namespace }, data: { secret } });
    await cm("c1", "s");
    await cm("c2", "s");
    await cm("c3", "t");
    await cm("other-ns", "s", "kube-system");
    await ready(m);
    const listed = async (value: string, namespace?: string) =>
      (await m.client.list(CM, { matchingFields: { "data.secret": value }, namespace })).map(
        (o) => meta(o).name,
      );
    expect(await listed("s", "default")).toEqual(["c1", "c2"]);
    expect((await listed("s")).sort()).toEqual(["c1", "c2", "other-ns"]);
    expect(await listed("nothing")).toEqual([]);
    // An empty matchingFields is a plain (cached) list.
    expect((await m.client.list(CM, { namespace: "default", matchingFields: {} })).length).toBe(3);

    // A Secret event reaches the ConfigMaps that reference it, through the index.
    reconciled.length = 0;
    await h.client.create({ ...SECRET, metadata: { name: "s", namespace: "default" } });
    await waitFor("c1 and c2", () => ["c1", "c2"].every((n) => names(reconciled).includes(n)));
    expect(names(reconciled)).not.toContain("c3");

    const c2 = (await h.client.get(CM, { namespace: "default", name: "c2" }))!;
    await h.client.update({ ...c2, data: { secret: "t" } });
    await h.client.delete({ kind: CM, key: { namespace: "default", name: "c1" } });
    await waitFor("the index to follow", async () => (await listed("s", "default")).length === 0);
    expect(await listed("t", "default")).toEqual(["c2", "c3"]);
    // Copies: changing a listed object does not change the cache.
    const [copy] = await m.client.list(CM, { namespace: "default", matchingFields: { "data.secret": "t" } });
    (copy as { data: { secret: string } }).data.secret = "changed";
    expect(await listed("t", "default")).toEqual(["c2", "c3"]);
    // Label selectors still apply on top of the index.
    expect(
      await m.client.list(CM, { matchingFields: { "data.secret": "t" }, labelSelector: "missing" }),
    ).toEqual([]);

    await expect(m.client.list(CM, { matchingFields: { "spec.nope": "x" } })).rejects.toThrow(
      /field index "spec.nope": no such index/,
    );
    await expect(m.client.list(SECRET, { matchingFields: { "data.secret": "x" } })).rejects.toThrow(
      /field index "data.secret": v1\/Secret has no field indexes/,
    );
    await expect(m.apiReader.list(CM, { matchingFields: { "data.secret": "x" } })).rejects.toThrow(
      /by field index: this client has no cache/,
    );
    await expect(m.indexField(CM, "data.secret", secretOf)).rejects.toThrow(/already registered/);

    // An index added after the informer synced is filled from the cached objects.
    await m.indexField(CM, "name-length", (o) => String(meta(o).name.length));
    expect(
      (await m.client.list(CM, { namespace: "default", matchingFields: { "name-length": "2" } })).map(
        (o) => meta(o).name,
      ),
    ).toEqual(["c2", "c3"]);
  });
});

describe("the priority queue", () => {
  /**
   * N objects exist when the manager starts; the first reconcile waits until a user's edit of the
   * last one ("zz-edited") has been enqueued. Returns the position of the edit's reconcile.
   */
  async function editAfterRestart(usePriorityQueue: boolean): Promise<{ position: number; total: number }> {
    h = await harness();
    const N = 150;
    for (let i = 0; i < N; i++)
      await h.client.create({
        ...CM,
        metadata: { name: `obj-${String(i).padStart(3, "0")}`, namespace: "default" },
      });
    await h.client.create({ ...CM, metadata: { name: "zz-edited", namespace: "default" }, data: { v: "0" } });
    const m = await h.startManager();
    const order: string[] = [];
    let editEnqueued = false;
    let position: number | undefined;
    await m
      .controller(CM)
      .named("backlog")
      .withOptions({ usePriorityQueue })
      .complete(async (req) => {
        order.push(req.name);
        if (order.length === 1) await waitFor("the edit enqueued", () => editEnqueued);
        else if (req.name === "zz-edited" && position === undefined) position = order.length;
      });
    // Added after the controller's handler: when it sees the edit, the controller has enqueued it.
    (await m.informerFor(CM)).addHandler({
      onUpdate: (old, obj) => {
        if (old !== obj && obj.metadata?.name === "zz-edited") editEnqueued = true;
      },
    });
    void m.start().catch(() => {});
    await waitFor("the first reconcile", () => order.length >= 1);
    const obj = (await h.client.get(CM, { namespace: "default", name: "zz-edited" }))!;
    await h.client.update({ ...obj, data: { v: "1" } });
    await waitFor("the edit reconciled", () => position !== undefined, 30_000);
    return { position: position!, total: N + 1 };
  }

  it("reconciles an edit made after a restart before most of the initial list", async () => {
    const { position } = await editAfterRestart(true);
    expect(position).toBe(2); // right after the reconcile that was running
  });

  it("(with usePriorityQueue: false the edit waits behind the whole initial list)", async () => {
    const { position, total } = await editAfterRestart(false);
    expect(position).toBe(total); // its place in the initial list: last
  });
});
