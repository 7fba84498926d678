// Writes never lose what a read did not show (issue 38), on the in-memory server: the operator of
// docs/runtime.md keeps kubectl's last-applied-configuration annotation and every field a cache
// transform drops; finalizers are merge patches retried on 409 and done when the object is gone; a
// user's PUT of a transformed cache copy is refused; createOrUpdate says so when its cache cannot
// see the object; a kind watched metadata-only is read whole from the server.
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import {
  createOrUpdate,
  ensureFinalizer,
  removeFinalizer,
} from "../../src/runtime/controllerutil/helpers.js";
import type { Manager, ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import {
  CM,
  installWidgetCrd,
  reconciled,
  type Widget,
  WIDGET,
  WIDGET_FINALIZER,
  widgetController,
} from "./support/trust-writes.js";
import { waitFor } from "./support/wait.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const SECRET = { apiVersion: "v1", kind: "Secret" } as const;
type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
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

async function widgetOperator(options: ManagerOptions = {}): Promise<Manager> {
  const manager = await h!.startManager(options);
  await widgetController(manager);
  return started(manager);
}

/** A Widget as `kubectl apply` leaves it: with the annotation of what was applied. */
function applied(name: string, spec: Widget["spec"]): Widget {
  const manifest = { ...WIDGET, metadata: { name, namespace: "default" }, spec };
  return {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(manifest) } },
  };
}

describe("writes never lose what a read did not show", () => {
  it("the operator of docs/runtime.md keeps kubectl's last-applied-configuration annotation", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    await widgetOperator();
    const sent = applied("w", { size: 2, extra: "x" });
    await h.client.create(sent);
    const key = { namespace: "default", name: "w" };
    const after = await reconciled(h.client, key);
    expect(after.metadata.annotations?.[LAST_APPLIED]).toBe(sent.metadata.annotations![LAST_APPLIED]);
    expect(after.spec).toEqual({ size: 2, extra: "x" });
    // What the operator wrote: only PATCHes of the Widget (its finalizer) and PUTs of its status.
    const widgetWrites = h.cluster.requests.filter(
      (r) => r.path.includes("/widgets/") && ["PUT", "PATCH"].includes(r.method),
    );
    expect(widgetWrites.filter((r) => r.method === "PUT" && !r.path.endsWith("/status"))).toEqual([]);
  });

  it("the helpers never write away a field a user transform dropped (finalizer, createOrUpdate)", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    await widgetOperator({
      cache: {
        byKind: [
          { kind: WIDGET, transform: (w) => ({ ...w, spec: { ...(w as Widget).spec, extra: undefined } }) },
          {
            kind: CM,
            transform: (cm) => ({ ...cm, data: { ...(cm as Obj).data, big: undefined } }) as typeof cm,
          },
        ],
      },
    });
    await h.client.create({
      ...CM,
      metadata: { name: "w-config", namespace: "default" },
      data: { big: "kept" },
    });
    await h.client.create(applied("w", { size: 3, extra: "kept" }));
    const key = { namespace: "default", name: "w" };
    const after = await reconciled(h.client, key);
    expect(after.spec).toEqual({ size: 3, extra: "kept" });
    const cm = await waitFor("the ConfigMap updated", async () => {
      const got = await h!.client.get<Obj>(CM, { namespace: "default", name: "w-config" });
      return got?.data?.size === "3" ? got : undefined;
    });
    expect(cm.data).toEqual({ big: "kept", size: "3" });
  });

  it("refuses a user's PUT of a copy from a user-transformed cache, naming the object and what to do instead", async () => {
    h = await harness();
    await h.client.create({ ...CM, metadata: { name: "t", namespace: "default" }, data: { big: "x" } });
    await h.client.create({ ...SECRET, metadata: { name: "s", namespace: "default" }, data: {} });
    const manager = await h.startManager({
      cache: { byKind: [{ kind: CM, transform: (cm) => ({ ...cm, data: undefined }) }] },
    });
    await manager.informerFor(CM);
    await manager.informerFor(SECRET);
    await started(manager);
    const key = { namespace: "default", name: "t" };
    const copy = (await manager.client.get<Obj>(CM, key))!;
    copy.metadata.labels = { changed: "yes" };
    await expect(manager.client.update(copy)).rejects.toThrow(
      /refusing to update ConfigMap default\/t: .*transform.*client\.patch\(obj, mergeFrom\(base.*client\.apiReader/,
    );
    expect((await h.client.get<Obj>(CM, key))?.data).toEqual({ big: "x" });
    const listed = (await manager.client.list<Obj>(CM, { namespace: "default" })).find(
      (o) => o.metadata.name === "t",
    )!;
    await expect(manager.client.update(listed)).rejects.toThrow(/refusing to update ConfigMap default\/t/);
    // The default transform loses nothing a PUT would write away: those copies update as before.
    const secret = (await manager.client.get<Obj>(SECRET, { namespace: "default", name: "s" }))!;
    secret.metadata.labels = { changed: "yes" };
    expect((await manager.client.update(secret)).metadata.labels).toEqual({ changed: "yes" });
    // The whole object from the server may be updated.
    const whole = (await manager.apiReader.get<Obj>(CM, key))!;
    whole.metadata.labels = { changed: "yes" };
    expect((await manager.client.update(whole)).data).toEqual({ big: "x" });
  });
});

describe("finalizers are merge patches with the resourceVersion as precondition", () => {
  it("adds and removes with PATCH, re-reads and retries on 409, and keeps another writer's finalizer", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const key = { namespace: "default", name: "f" };
    await h.client.create(applied("f", { size: 1 }));
    const stale = (await h.client.get<Widget>(WIDGET, key))!;
    // Another actor adds its finalizer after our read: our patch carries a stale version (409).
    await h.client.patch({ kind: WIDGET, key }, { metadata: { finalizers: ["other.example.com/x"] } });
    const before = h.cluster.requests.length;
    expect(await ensureFinalizer(h.client, stale, WIDGET_FINALIZER)).toBe(true);
    const calls = h.cluster.requests.slice(before).map((r) => `${r.method} ${r.status}`);
    expect(calls).toEqual(["PATCH 409", "GET 200", "PATCH 200"]);
    expect(stale.metadata.finalizers).toEqual(["other.example.com/x", WIDGET_FINALIZER]);
    expect(stale.metadata.annotations?.[LAST_APPLIED]).toBeDefined();
    expect(await ensureFinalizer(h.client, stale, WIDGET_FINALIZER)).toBe(false); // no request
    expect(h.cluster.requests.length - before).toBe(3);
    expect(await removeFinalizer(h.client, stale, WIDGET_FINALIZER)).toBe(true);
    const live = (await h.client.get<Widget>(WIDGET, key))!;
    expect(live.metadata.finalizers).toEqual(["other.example.com/x"]);
    expect(live.metadata.annotations?.[LAST_APPLIED]).toBeDefined();
  });

  it("removeFinalizer of an object already gone is done, not an error", async () => {
    h = await harness();
    await installWidgetCrd(h.client);
    const key = { namespace: "default", name: "gone" };
    await h.client.create({ ...WIDGET, metadata: { ...key, finalizers: [WIDGET_FINALIZER] } });
    const copy = (await h.client.get<Widget>(WIDGET, key))!;
    await h.client.patch({ kind: WIDGET, key }, { metadata: { finalizers: null } });
    await h.client.delete({ kind: WIDGET, key });
    expect(await h.client.get(WIDGET, key)).toBeUndefined();
    expect(await removeFinalizer(h.client, copy, WIDGET_FINALIZER)).toBe(false);
  });
});

describe("createOrUpdate when the cache cannot see the object", () => {
  it("throws naming the object and the cache's selector instead of retrying create → AlreadyExists forever", async () => {
    h = await harness();
    await h.client.create({ ...CM, metadata: { name: "hidden", namespace: "default" }, data: { a: "1" } });
    const manager = await h.startManager({
      cache: { byKind: [{ kind: CM, labelSelector: "app.kubernetes.io/managed-by=me" }] },
    });
    await manager.informerFor(CM);
    await started(manager);
    const before = h.cluster.requests.length;
    const attempt = createOrUpdate(
      manager.client,
      { ...CM, metadata: { name: "hidden", namespace: "default" } },
      (cm: Obj) => {
        cm.data = { a: "2" };
      },
    );
    await expect(attempt).rejects.toThrow(
      /ConfigMap default\/hidden: it exists on the API server, but the cache .* cannot see it \(excluded by cache\.byKind labelSelector "app\.kubernetes\.io\/managed-by=me"\).*cache\.disableFor/,
    );
    const posts = h.cluster.requests
      .slice(before)
      .filter((r) => r.method === "POST" && r.path.includes("/configmaps"));
    expect(posts).toHaveLength(1); // told at once, not after five conflicts
    // An object the cache will see is created as before.
    const made = await createOrUpdate(
      manager.client,
      {
        ...CM,
        metadata: { name: "seen", namespace: "default", labels: { "app.kubernetes.io/managed-by": "me" } },
      },
      () => {},
    );
    expect(made.operation).toBe("created");
  });
});

describe("createOrUpdate racing another creator while the cache lags", () => {
  it("keeps treating AlreadyExists as a conflict (retried), not as an object the cache cannot see", async () => {
    h = await harness();
    const manager = await h.startManager({
      cache: { byKind: [{ kind: CM, labelSelector: "app.kubernetes.io/managed-by=me" }] },
    });
    await manager.informerFor(CM);
    await started(manager);
    // The cache stops following the server: the re-watch is held back.
    h.cluster.faults.latency(5000, { watch: true });
    h.cluster.closeWatches();
    const labels = { "app.kubernetes.io/managed-by": "me" };
    await h.client.create({ ...CM, metadata: { name: "raced", namespace: "default", labels } });
    const attempt = createOrUpdate(
      manager.client,
      { ...CM, metadata: { name: "raced", namespace: "default", labels } },
      (cm: Obj) => {
        cm.data = { a: "1" };
      },
    );
    await expect(attempt).rejects.toMatchObject({ status: 409, reason: "Conflict" });
    h.cluster.faults.clear();
  });
});

describe("a kind watched metadata-only", () => {
  it("is read whole from the server by get and list; { metadataOnly: true } reads the metadata from the informer", async () => {
    h = await harness();
    await h.client.create({
      ...SECRET,
      metadata: { name: "token", namespace: "default" },
      stringData: { p: "q" },
    });
    const manager = await h.startManager();
    await manager
      .controller(CM)
      .watches(SECRET, () => undefined, { metadataOnly: true })
      .complete(async () => {});
    await started(manager);
    const key = { namespace: "default", name: "token" };
    await waitFor("the Secret cached", async () =>
      (await manager.informerFor(SECRET, { metadataOnly: true })).get(key),
    );
    const secretGets = () =>
      h!.cluster.requests.filter(
        (r) => r.method === "GET" && r.path.startsWith("/api/v1/namespaces/default/secrets"),
      );
    const whole = await manager.client.get<Obj>(SECRET, key);
    expect(whole).toMatchObject({ apiVersion: "v1", kind: "Secret", data: { p: "cQ==" } });
    const listed = await manager.client.list<Obj>(SECRET, { namespace: "default" });
    expect(listed.map((s) => [s.kind, s.data])).toEqual([["Secret", { p: "cQ==" }]]);
    expect(secretGets()).toHaveLength(2); // both live
    const meta = await manager.client.get(SECRET, key, { metadataOnly: true });
    expect(meta).toMatchObject({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: { name: "token" },
    });
    const metas = await manager.client.list(SECRET, { namespace: "default", metadataOnly: true });
    expect(metas.map((m) => [m.kind, m.metadata.name])).toEqual([["PartialObjectMetadata", "token"]]);
    expect(secretGets()).toHaveLength(2); // from the informer
  });

  it("{ metadataOnly: true } of a fully watched kind answers from that informer, of an unwatched kind from the server", async () => {
    h = await harness();
    await h.client.create({
      ...CM,
      metadata: { name: "c", namespace: "default", labels: { a: "b" } },
      data: { x: "y" },
    });
    await h.client.create({ ...SECRET, metadata: { name: "s", namespace: "default" }, data: {} });
    const manager = await h.startManager();
    await manager.informerFor(CM);
    await started(manager);
    const before = h.cluster.requests.length;
    const cm = await manager.client.get(CM, { namespace: "default", name: "c" }, { metadataOnly: true });
    expect(cm).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: expect.objectContaining({ labels: { a: "b" } }),
    });
    expect(h.cluster.requests.length).toBe(before);
    const secret = await manager.client.get(
      SECRET,
      { namespace: "default", name: "s" },
      { metadataOnly: true },
    );
    expect(secret).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "s" } });
    expect(Object.keys(secret!)).toEqual(["apiVersion", "kind", "metadata"]);
    const secrets = await manager.client.list(SECRET, { namespace: "default", metadataOnly: true });
    expect(secrets.map((s) => [s.kind, s.metadata.name, Object.keys(s)])).toEqual([
      ["PartialObjectMetadata", "s", ["apiVersion", "kind", "metadata"]],
    ]);
    expect(
      await manager.client.get(SECRET, { namespace: "default", name: "nope" }, { metadataOnly: true }),
    ).toBeUndefined();
  });
});
