// The manager's cache, as a reconciler sees it: reads of watched kinds come from the shared
// informers (copies), writes go to the server, a write based on a stale read conflicts and is
// retried until it converges, apiReader reads the server, the cache keeps lean copies, lists from
// the cache answer as the server does, unwatched kinds are read live (or get an informer on first
// read), and the request count of an operator is only its writes (the regression guard for
// issue 26: 4 GETs per object before).
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObjectLike, ListOptions } from "../../src/runtime/client/client.js";
import type { Manager, ManagerOptions } from "../../src/runtime/manager/manager.js";
import type { RequestRecord } from "../../src/testing/index.js";
import { FINALIZER, Memcached, MemcachedReconciler } from "./fixtures/memcached.js";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;
const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" } as const;
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: unknown[];
    finalizers?: string[];
  };
  data?: Record<string, string>;
  spec?: unknown;
  status?: { conditions?: Array<{ type: string }> };
};

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function started(manager: Manager): Promise<Manager> {
  manager.start().catch(() => {});
  await waitFor(
    "manager ready",
    async () => manager.healthProbeUrl && (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200,
  );
  return manager;
}

/** GETs of single objects of `resource` (not lists, not watches). */
function objectGets(requests: RequestRecord[], resource: string): RequestRecord[] {
  const single = new RegExp(`/${resource}/[^/?]+(\\?|$)`);
  return requests.filter((r) => r.method === "GET" && !/[?&]watch=/.test(r.path) && single.test(r.path));
}

const configMap = (name: string, namespace: string, labels: Record<string, string> = {}) => ({
  ...CM,
  metadata: { name, namespace, labels },
  data: { name },
});

describe("the manager's cache", () => {
  it("reads watched kinds from the cache; a stale write conflicts, is retried quietly and converges; apiReader reads the server", async () => {
    h = await harness();
    const manager = await h.startManager();
    const key = { namespace: "default", name: "target" };
    // Copies source.data.input into the Secret "target" (read from the cache, written with update).
    await manager
      .controller(CM)
      .watches(SECRET, () => ({ namespace: "default", name: "source" }))
      .complete(async (req, { client }) => {
        if (req.name !== "source") return;
        const source = await client.get<Obj>(CM, req);
        const target = await client.get<Obj>(SECRET, key);
        if (!source || !target) return;
        const want = Buffer.from(source.data?.input ?? "").toString("base64");
        if (target.data?.value === want) return;
        target.data = { value: want };
        await client.update(target);
      });
    await h.client.create({ ...SECRET, metadata: key, data: {} });
    await h.client.create({
      ...CM,
      metadata: { name: "source", namespace: "default" },
      data: { input: "a" },
    });
    await started(manager);
    // The server's own view, read without HTTP (the request log is the manager's alone).
    const value = () =>
      (h!.cluster.get("v1", "Secret", key.name, key.namespace) as Obj | undefined)?.data?.value;
    await waitFor("the target to follow input a", () => value() === "YQ==");
    await waitFor(
      "the cache to see it",
      async () => (await manager.client.get<Obj>(SECRET, key))?.data?.value === "YQ==",
    );
    expect(objectGets(h.cluster.requests, "configmaps")).toEqual([]);
    expect(objectGets(h.cluster.requests, "secrets")).toEqual([]);

    // Freeze the Secret cache: its watch is cut and cannot come back.
    h.cluster.faults.add({ path: "/api/v1/secrets", watch: true, status: 500, count: Infinity });
    h.cluster.closeWatches();
    await h.client.patch({ kind: SECRET, key }, { metadata: { annotations: { touched: "yes" } } });
    expect((await manager.apiReader.get<Obj>(SECRET, key))?.metadata.annotations).toEqual({ touched: "yes" });
    expect((await manager.client.get<Obj>(SECRET, key))?.metadata.annotations).toBeUndefined(); // stale

    // The reconcile writes from its stale copy: 409, retried with backoff while the cache is stale.
    await h.client.patch(
      { kind: CM, key: { namespace: "default", name: "source" } },
      { data: { input: "b" } },
    );
    const conflicts = () => h!.cluster.requests.filter((r) => r.method === "PUT" && r.status === 409);
    await waitFor("a conflicting update", () => conflicts().length > 0);
    h.cluster.faults.clear();
    await waitFor("the target to follow input b", () => value() === "Yg==");
    const final = h.cluster.get("v1", "Secret", key.name, key.namespace) as Obj | undefined;
    expect(final?.metadata.annotations).toEqual({ touched: "yes" }); // nothing lost
    const logs = h.logs.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(logs.filter((l) => l.msg === "reconcile hit a conflict; retrying")[0]?.level).toBe("debug");
    expect(logs.filter((l) => l.msg === "reconcile failed")).toEqual([]);
    expect(objectGets(h.cluster.requests, "secrets")).toHaveLength(1); // the apiReader's, none from the reconciles
  });

  it("hands out copies: changing what get() or list() returned leaves the cache as it was", async () => {
    h = await harness();
    const manager = await h.startManager();
    const informer = await manager.informerFor(CM);
    await h.client.create(configMap("a", "default"));
    await started(manager);
    const key = { namespace: "default", name: "a" };
    await waitFor("cached", () => informer.get(key));
    const got = await manager.client.get<Obj>(CM, key);
    got!.data!.name = "changed";
    got!.metadata.labels = { changed: "yes" };
    const [listed] = await manager.client.list<Obj>(CM, {
      namespace: "default",
      fieldSelector: "metadata.name=a",
    });
    listed!.data!.name = "changed too";
    expect((informer.get(key) as Obj).data).toEqual({ name: "a" });
    expect((await manager.client.get<Obj>(CM, key))?.data).toEqual({ name: "a" });
    expect((await manager.client.get<Obj>(CM, key))?.metadata.labels).toEqual({});
  });

  it("caches lean objects: no managedFields (annotations kept, last-applied too), and the user's transforms applied", async () => {
    h = await harness();
    const manager = await h.startManager({
      cache: {
        transform: (o) => {
          const a = (o.metadata ??= {}).annotations;
          if (a) delete a["example.com/big"];
          return o;
        },
        byKind: [{ kind: CM, transform: (o) => ({ ...o, data: { trimmed: "yes" } }) }],
      },
    });
    const informer = await manager.informerFor(CM);
    await h.client.create({
      ...CM,
      metadata: {
        name: "lean",
        namespace: "default",
        annotations: { [LAST_APPLIED]: '{"kind":"ConfigMap"}', "example.com/big": "x", keep: "me" },
      },
      data: { large: "yes" },
    });
    const live = await h.client.get<Obj>(CM, { namespace: "default", name: "lean" });
    expect(live?.metadata.managedFields?.length).toBeGreaterThan(0); // the server keeps them
    await started(manager);
    const key = { namespace: "default", name: "lean" };
    const cached = (await waitFor("cached", () => informer.get(key))) as Obj;
    expect(cached.metadata.managedFields).toBeUndefined();
    const kept = { [LAST_APPLIED]: '{"kind":"ConfigMap"}', keep: "me" };
    expect(cached.metadata.annotations).toEqual(kept);
    expect(cached.data).toEqual({ trimmed: "yes" });
    expect((await manager.client.get<Obj>(CM, key))?.metadata.annotations).toEqual(kept);
    expect((await manager.apiReader.get<Obj>(CM, key))?.metadata.annotations?.[LAST_APPLIED]).toBeDefined();
  });

  it("lists from the cache as the server lists: namespace, set-based label selectors, name/namespace field selectors, sorted", async () => {
    h = await harness({ namespaces: ["team-a", "team-b"] });
    const manager = await h.startManager();
    await manager.informerFor(CM);
    const objects = [
      configMap("zeta", "team-a", { app: "web", tier: "front" }),
      configMap("alpha", "team-b", { app: "web", tier: "back" }),
      configMap("mid", "team-a", { app: "db" }),
      configMap("beta", "team-a", { legacy: "true" }),
    ];
    for (const o of objects) await h.client.create(o);
    await started(manager);
    // Created after the first list: the informer holds it last, the lists must still sort it first.
    await h.client.create(configMap("aardvark", "team-a", { app: "db", tier: "back" }));
    await waitFor(
      "all cached",
      async () => (await manager.client.list(CM, { labelSelector: "app" })).length === 4,
    );
    const [A, B, M, Z, AL] = ["team-a/aardvark", "team-a/beta", "team-a/mid", "team-a/zeta", "team-b/alpha"];
    const cases: Array<[ListOptions, string[]]> = [
      [{}, [A, B, M, Z, AL]],
      [{ namespace: "team-a" }, [A, B, M, Z]],
      [{ labelSelector: { app: "web" } }, [Z, AL]],
      [{ labelSelector: "app=web" }, [Z, AL]],
      [{ labelSelector: "app==web,tier!=front" }, [AL]],
      [{ labelSelector: "tier!=front" }, [A, B, M, AL]],
      [{ labelSelector: "app in (web,db)" }, [A, M, Z, AL]],
      [{ labelSelector: "app notin (web)" }, [A, B, M]],
      [{ labelSelector: "tier" }, [A, Z, AL]],
      [{ labelSelector: "!tier,!legacy" }, [M]],
      [{ namespace: "team-a", labelSelector: "app" }, [A, M, Z]],
      [{ fieldSelector: "metadata.name=alpha" }, [AL]],
      [{ fieldSelector: "metadata.namespace==team-b" }, [AL]],
      [{ fieldSelector: "metadata.name!=zeta,metadata.namespace=team-a" }, [A, B, M]],
    ];
    const names = (items: Obj[]) => items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    const listsBefore = h.cluster.requests.filter(
      (r) => r.method === "GET" && r.path.startsWith("/api/v1/"),
    ).length;
    for (const [options, want] of cases) {
      const cached = names(await manager.client.list<Obj>(CM, options));
      const live = names(await manager.apiReader.list<Obj>(CM, options)); // the server agrees
      expect({ options, cached, live }).toEqual({ options, cached: want, live: want });
    }
    const gets = h.cluster.requests.filter((r) => r.method === "GET" && r.path.startsWith("/api/v1/"));
    expect(gets.length - listsBefore).toBe(cases.length); // only the apiReader's lists reached the server
    // Other field selectors only the server can evaluate: the list goes live.
    const sizeBefore = h.cluster.requests.length;
    await manager.client.list(SECRET, { fieldSelector: "type=Opaque" });
    expect(h.cluster.requests.slice(sizeBefore).map((r) => r.path)).toEqual([
      "/api/v1/secrets?fieldSelector=type%3DOpaque&limit=500",
    ]);
    await expect(manager.client.list(CM, { labelSelector: "a b c" })).rejects.toThrow(
      /invalid labelSelector "a b c"/,
    );
  });

  it("reads unwatched kinds live by default, starts an informer on first read when asked, and disableFor keeps a watched kind live", async () => {
    h = await harness();
    await h.client.create({ ...SECRET, metadata: { name: "s", namespace: "default" }, data: {} });
    const key = { namespace: "default", name: "s" };

    const live = await started(await h.startManager({ cache: { disableFor: [CM] } }));
    await live.informerFor(CM);
    await live.client.get(SECRET, key);
    await live.client.get(CM, { namespace: "default", name: "missing" });
    expect(objectGets(h.cluster.requests, "secrets")).toHaveLength(1);
    expect(objectGets(h.cluster.requests, "configmaps")).toHaveLength(1);
    expect(h.cluster.requests.filter((r) => r.path.startsWith("/api/v1/secrets?"))).toEqual([]); // no informer
    await live.stop();

    const lazy = await started(
      await h.startManager({ cache: { byKind: [{ kind: SECRET, unwatched: "informer" }] } }),
    );
    expect((await lazy.client.get<Obj>(SECRET, key))?.metadata.name).toBe("s");
    expect((await lazy.client.get<Obj>(SECRET, key))?.metadata.name).toBe("s");
    expect(objectGets(h.cluster.requests, "secrets")).toHaveLength(1); // still only the first manager's
    const secretsInformer = () => h!.cluster.requests.filter((r) => r.path.startsWith("/api/v1/secrets?"));
    await waitFor("the informer's watch", () => secretsInformer().some((r) => r.path.includes("watch=true")));
    expect(secretsInformer()).toHaveLength(2); // one list, one watch
  });

  it("caches only the namespaces asked for, one informer each, and reads other namespaces live", async () => {
    h = await harness({ namespaces: ["a", "b", "c"] });
    for (const ns of ["a", "b", "c"]) await h.client.create(configMap("x", ns));
    const manager = await h.startManager({ cache: { namespaces: ["b", "a"] } });
    const informer = await manager.informerFor(CM);
    await started(manager);
    expect(informer.namespaces).toEqual(["a", "b"]);
    const paths = h.cluster.requests
      .filter((r) => r.path.includes("configmaps?"))
      .map((r) => r.path.split("?")[0]);
    expect([...new Set(paths)].sort()).toEqual([
      "/api/v1/namespaces/a/configmaps",
      "/api/v1/namespaces/b/configmaps",
    ]);
    const names = (await manager.client.list<Obj>(CM)).map((o) => o.metadata.namespace);
    expect(names).toEqual(["a", "b"]);
    expect(await manager.client.get<Obj>(CM, { namespace: "c", name: "x" })).toBeDefined();
    expect(objectGets(h.cluster.requests, "configmaps").map((r) => r.path)).toEqual([
      "/api/v1/namespaces/c/configmaps/x",
    ]);
    // WATCH_NAMESPACE=a,b (operator-sdk's multi-namespace form) means the same.
    const fromFlag = await h.startManager({ namespace: "b, a" });
    expect((await fromFlag.informerFor(CM)).namespaces).toEqual(["a", "b"]);
  });

  it("byKind selectors restrict what is cached; cache.watchList streams the initial state", async () => {
    h = await harness();
    await h.client.create({
      ...SECRET,
      metadata: { name: "mine", namespace: "default", labels: { managed: "yes" } },
    });
    await h.client.create({ ...SECRET, metadata: { name: "other", namespace: "default" } });
    const manager = await h.startManager({
      cache: { watchList: true, byKind: [{ kind: SECRET, labelSelector: { managed: "yes" } }] },
    });
    const informer = await manager.informerFor(SECRET);
    await started(manager);
    expect((await manager.client.list<Obj>(SECRET)).map((o) => o.metadata.name)).toEqual(["mine"]);
    expect(await manager.client.get(SECRET, { namespace: "default", name: "other" })).toBeUndefined();
    expect(await manager.apiReader.get(SECRET, { namespace: "default", name: "other" })).toBeDefined();
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(["mine"]);
    const reads = h.cluster.requests.filter((r) => r.path.startsWith("/api/v1/secrets?"));
    expect(reads.map((r) => Object.fromEntries(new URLSearchParams(r.path.split("?")[1])))).toEqual([
      expect.objectContaining({ watch: "true", sendInitialEvents: "true", labelSelector: "managed=yes" }),
    ]);
  });

  it("metadataOnly watches cache objects without spec or data; get() reads whole objects live, get(…, { metadataOnly }) reads that metadata, which cannot be written back", async () => {
    h = await harness();
    const manager = await h.startManager();
    const seen: string[] = [];
    await manager
      .controller(CM)
      .watches(SECRET, (s) => ({ namespace: "default", name: `for-${(s as Obj).metadata.name}` }), {
        metadataOnly: true,
      })
      .complete(async (req) => {
        seen.push(req.name);
      });
    await h.client.create({
      ...SECRET,
      metadata: { name: "token", namespace: "default", labels: { kind: "token" } },
      stringData: { password: "hunter2" },
    });
    await started(manager);
    await waitFor("the Secret event mapped", () => seen.includes("for-token"));
    const informer = await manager.informerFor(SECRET, { metadataOnly: true });
    const key = { namespace: "default", name: "token" };
    const cached = informer.get(key) as Obj & { data?: unknown; type?: unknown };
    expect(cached.kind).toBe("PartialObjectMetadata");
    expect(cached.data).toBeUndefined();
    expect(cached.type).toBeUndefined();
    expect(cached.metadata.labels).toEqual({ kind: "token" });
    const got = await manager.client.get(SECRET, key, { metadataOnly: true });
    expect(got).toEqual(
      expect.objectContaining({ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata" }),
    );
    expect(Object.keys(got!)).toEqual(["apiVersion", "kind", "metadata"]);
    expect(objectGets(h.cluster.requests, "secrets")).toHaveLength(0); // from the informer
    await expect(manager.client.update(got!)).rejects.toThrow(/metadata-only copy/);
    // The whole Secret: never from the metadata-only informer (trust-writes-reads.test.ts).
    expect((await manager.client.get<Obj>(SECRET, key))?.data).toEqual({ password: "aHVudGVyMg==" });
    expect((await manager.apiReader.get<Obj>(SECRET, key))?.data).toEqual({ password: "aHVudGVyMg==" });
    expect(objectGets(h.cluster.requests, "secrets")).toHaveLength(2); // the client's and the apiReader's
  });
});

describe("request count of an operator (issue 26)", () => {
  const N = 12;

  /** Runs the Memcached operator over N objects until it is idle; the requests it made, by phase. */
  async function run(options: ManagerOptions) {
    h = await harness();
    for (let i = 0; i < N; i++)
      await h.client.create({
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name: `mc-${String(i).padStart(2, "0")}`, namespace: "default" },
        spec: { size: 1 },
      });
    const first = h.cluster.requests.length;
    const manager = await h.startManager(options);
    const reconciler = new MemcachedReconciler();
    const controller = await manager.controller(Memcached).owns(DEPLOYMENT).complete(reconciler);
    await started(manager);
    await waitFor(`${N} Memcacheds reconciled`, async () => {
      const all = (await h!.client.list(Memcached)) as Obj[];
      return (
        all.every((m) => m.metadata.finalizers?.includes(FINALIZER) && m.status?.conditions?.length) &&
        (await h!.client.list(DEPLOYMENT)).length === N
      );
    });
    // The cache holds what the server holds (a late watch event could otherwise start a reconcile
    // from an older copy during the steady round), and nothing is left to do.
    const cached = [await manager.informerFor(Memcached), await manager.informerFor(DEPLOYMENT)];
    await waitFor("the cache to catch up", async () => {
      const live = [(await h!.client.list(Memcached)) as Obj[], await h!.client.list<Obj>(DEPLOYMENT)];
      return live.every((objects, i) =>
        objects.every(
          (o) => cached[i]!.get(o.metadata)?.metadata?.resourceVersion === o.metadata.resourceVersion,
        ),
      );
    });
    await waitFor("the queue idle", () => controller.queue.idle());
    const converged = h.cluster.requests.slice(first);

    // Steady state: every object reconciled once more with nothing to change.
    const calls = reconciler.calls.length;
    const before = h.cluster.requests.length;
    for (let i = 0; i < N; i++)
      controller.enqueue({ namespace: "default", name: `mc-${String(i).padStart(2, "0")}` });
    await waitFor("a second round", () => reconciler.calls.length >= calls + N && controller.queue.idle());
    const steady = h.cluster.requests.slice(before);
    return { converged, steady };
  }

  const writes = (rs: RequestRecord[]) =>
    rs.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method) && !r.path.includes("/events"));

  it("reads Memcacheds and Deployments from the cache: no GET of a single object, a steady-state round makes no request", async () => {
    const { converged, steady } = await run({});
    expect(objectGets(converged, "memcacheds")).toEqual([]);
    expect(objectGets(converged, "deployments")).toEqual([]);
    expect(steady).toEqual([]);
    // Per object: finalizer update, Deployment create, status update (plus any conflict retries).
    expect(writes(converged).length).toBeGreaterThanOrEqual(3 * N);
  });

  it("reads everything live when the cache is disabled for those kinds (the old behaviour, for comparison)", async () => {
    const { converged, steady } = await run({ cache: { disableFor: [Memcached, DEPLOYMENT] } });
    expect(objectGets(converged, "memcacheds").length).toBeGreaterThanOrEqual(N);
    expect(objectGets(converged, "deployments").length).toBeGreaterThanOrEqual(N);
    expect(objectGets(steady, "memcacheds").length).toBeGreaterThanOrEqual(N);
    expect(objectGets(steady, "deployments").length).toBeGreaterThanOrEqual(N);
    expect(writes(steady)).toEqual([]);
  });
});
