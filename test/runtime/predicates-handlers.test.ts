// Predicates (controller-runtime's pkg/predicate) and handlers (pkg/handler) on their own: what each
// predicate lets through, the owner handler's matching (group and kind, any version; controller
// only or every owner; cluster-scoped owners), and the dispatcher that keeps asynchronous map
// results in event order and survives failing map functions.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/runtime/connect/errors.js";
import { ControllerBuilder } from "../../src/runtime/controller/builder.js";
import type { ControllerHost } from "../../src/runtime/controller/controller.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import type { RestClient } from "../../src/runtime/connect/rest.js";
import {
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  isWatchHandler,
  KeyDispatcher,
} from "../../src/runtime/controller/handlers.js";
import {
  and,
  annotationChanged,
  generationChanged,
  labelChanged,
  labelSelectorPredicate,
  not,
  type ObjectEvent,
  or,
  resourceVersionChanged,
} from "../../src/runtime/controller/predicates.js";
import type { ObjectKey } from "../../src/runtime/connect/mapper.js";

const obj = (meta: Record<string, unknown>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: meta });
const update = (old: Record<string, unknown>, now: Record<string, unknown>): ObjectEvent => ({
  type: "update",
  object: obj(now),
  old: obj(old),
});

describe("predicates", () => {
  it("generationChanged, labelChanged, annotationChanged, resourceVersionChanged look at updates only", () => {
    const create: ObjectEvent = { type: "create", object: obj({ name: "a" }) };
    const del: ObjectEvent = { type: "delete", object: obj({ name: "a" }) };
    for (const p of [generationChanged, labelChanged, annotationChanged, resourceVersionChanged]) {
      expect(p(create)).toBe(true);
      expect(p(del)).toBe(true);
      expect(p({ type: "update", object: obj({ name: "a" }) })).toBe(false); // no old object
    }
    expect(generationChanged(update({ generation: 1 }, { generation: 1 }))).toBe(false);
    expect(generationChanged(update({ generation: 1 }, { generation: 2 }))).toBe(true);
    expect(labelChanged(update({ labels: { a: "1" } }, { labels: { a: "1" } }))).toBe(false);
    expect(labelChanged(update({}, { labels: {} }))).toBe(false); // none = empty, as Go's maps.Equal
    expect(labelChanged(update({ labels: { a: "1" } }, { labels: { a: "2" } }))).toBe(true);
    expect(labelChanged(update({ labels: { a: "1" } }, { labels: { b: "1" } }))).toBe(true);
    expect(labelChanged(update({ labels: { a: "1" } }, {}))).toBe(true);
    expect(annotationChanged(update({ annotations: { x: "1" } }, { annotations: { x: "1" } }))).toBe(false);
    expect(annotationChanged(update({ annotations: { x: "1" } }, { annotations: { x: "2" } }))).toBe(true);
    expect(annotationChanged(update({ labels: { a: "1" } }, { labels: { a: "2" } }))).toBe(false);
    expect(resourceVersionChanged(update({ resourceVersion: "5" }, { resourceVersion: "5" }))).toBe(false);
    expect(resourceVersionChanged(update({ resourceVersion: "5" }, { resourceVersion: "6" }))).toBe(true);
  });

  it("labelSelectorPredicate matches the (new) object's labels with the server's syntax or a map", () => {
    const web = labelSelectorPredicate("app=web,tier in (a,b),!legacy");
    expect(web({ type: "create", object: obj({ labels: { app: "web", tier: "a" } }) })).toBe(true);
    expect(web({ type: "create", object: obj({ labels: { app: "web", tier: "c" } }) })).toBe(false);
    expect(web({ type: "delete", object: obj({ labels: { app: "web", tier: "b", legacy: "" } }) })).toBe(
      false,
    );
    expect(web(update({ labels: { app: "db" } }, { labels: { app: "web", tier: "b" } }))).toBe(true);
    expect(web(update({ labels: { app: "web", tier: "b" } }, { labels: { app: "db" } }))).toBe(false);
    const map = labelSelectorPredicate({ app: "web", team: "x" });
    expect(map({ type: "create", object: obj({ labels: { app: "web", team: "x", more: "1" } }) })).toBe(true);
    expect(map({ type: "create", object: obj({ labels: { app: "web" } }) })).toBe(false);
    expect(labelSelectorPredicate("")({ type: "create", object: obj({}) })).toBe(true);
    expect(() => labelSelectorPredicate("app in (a")).toThrow(ConfigError);
  });

  it("and, or, not combine predicates as controller-runtime's (and() passes, or() stops)", () => {
    const yes = () => true;
    const no = () => false;
    const e: ObjectEvent = { type: "create", object: obj({}) };
    expect(and(yes, yes)(e)).toBe(true);
    expect(and(yes, no)(e)).toBe(false);
    expect(and()(e)).toBe(true);
    expect(or(no, yes)(e)).toBe(true);
    expect(or(no, no)(e)).toBe(false);
    expect(or()(e)).toBe(false);
    expect(not(yes)(e)).toBe(false);
    expect(not(or(labelChanged, generationChanged))(update({ generation: 1 }, { generation: 1 }))).toBe(true);
  });
});

/** A RestMapper that knows a namespaced and a cluster-scoped owner kind without a server. */
function mapper(): RestMapper {
  const m = new RestMapper({} as RestClient);
  const known: Record<string, boolean> = { "apps/v1/Deployment": true, "example.com/v1/Cluster": false };
  m.mapping = async (ref) => {
    const { apiVersion, kind } = ref as { apiVersion: string; kind: string };
    const namespaced = known[`${apiVersion}/${kind}`];
    if (namespaced === undefined) throw new Error(`no mapping for ${apiVersion}/${kind}`);
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    return {
      apiVersion,
      group: group!,
      version: version!,
      kind,
      plural: kind.toLowerCase() + "s",
      namespaced,
    };
  };
  return m;
}

const owned = (refs: Array<Record<string, unknown>>, namespace = "ns") =>
  obj({ name: "child", namespace, ownerReferences: refs });

describe("handlers", () => {
  it("enqueueRequestForOwner: owners of that group and kind (any version), every owner or the controller only", async () => {
    const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
    const all = await enqueueRequestForOwner(DEPLOYMENT).bind({ mapper: mapper() });
    const controllerOnly = await enqueueRequestForOwner(DEPLOYMENT, { onlyController: true }).bind({
      mapper: mapper(),
    });
    const child = owned([
      { apiVersion: "apps/v1", kind: "Deployment", name: "d1", controller: true },
      { apiVersion: "apps/v1beta2", kind: "Deployment", name: "d2" },
      { apiVersion: "extensions/v1beta1", kind: "Deployment", name: "other-group" },
      { apiVersion: "v1", kind: "ConfigMap", name: "other-kind" },
    ]);
    expect(await all({ type: "create", object: child })).toEqual([
      { namespace: "ns", name: "d1" },
      { namespace: "ns", name: "d2" },
    ]);
    expect(await controllerOnly({ type: "create", object: child })).toEqual([
      { namespace: "ns", name: "d1" },
    ]);
    // An update enqueues the owners of the old object too (an owner reference was removed).
    const old = owned([{ apiVersion: "apps/v1", kind: "Deployment", name: "before", controller: true }]);
    expect(await controllerOnly({ type: "update", object: child, old })).toEqual([
      { namespace: "ns", name: "d1" },
      { namespace: "ns", name: "before" },
    ]);
    const cluster = await enqueueRequestForOwner({ apiVersion: "example.com/v1", kind: "Cluster" }).bind({
      mapper: mapper(),
    });
    expect(
      await cluster({
        type: "delete",
        object: owned([{ apiVersion: "example.com/v1", kind: "Cluster", name: "c" }]),
      }),
    ).toEqual([{ namespace: "", name: "c" }]);
  });

  it("factories' handlers are told apart from map functions by a brand; watches() refuses anything else", () => {
    const builder = new ControllerBuilder({} as ControllerHost, { apiVersion: "v1", kind: "ConfigMap" });
    expect(() => builder.watches({ apiVersion: "v1", kind: "Secret" }, { map: () => [] } as never)).toThrow(
      /watches\(Secret, …\) needs a handler or a map function/,
    );
    expect(isWatchHandler(enqueueRequestsFromMapFunc(() => []))).toBe(true);
    expect(isWatchHandler(enqueueRequestForOwner({ apiVersion: "apps/v1", kind: "Deployment" }))).toBe(true);
    expect(isWatchHandler(() => [])).toBe(false);
    expect(isWatchHandler({ bind: () => {} })).toBe(false);
    expect(isWatchHandler(null)).toBe(false);
  });

  it("the dispatcher enqueues in event order although async answers resolve out of order, and survives failures", async () => {
    const enqueued: string[] = [];
    const errors: string[] = [];
    const resolvers = new Map<string, (keys: ObjectKey[]) => void>();
    const dispatcher = new KeyDispatcher(
      ({ object }) => {
        const name = (object.metadata as { name: string }).name;
        if (name.startsWith("sync")) return { name: `${name}-key` };
        if (name === "throws") throw new Error("map failed");
        if (name === "rejects") return Promise.reject(new Error("lookup failed"));
        return new Promise<ObjectKey[]>((resolve) => resolvers.set(name, resolve));
      },
      (key, priority) => enqueued.push(`${key.name}@${priority ?? 0}`),
      (err) => errors.push((err as Error).message),
    );
    const ev = (name: string): ObjectEvent => ({ type: "create", object: obj({ name }) });
    dispatcher.dispatch(ev("sync-0"));
    expect(enqueued).toEqual(["sync-0-key@0"]); // nothing pending: at once
    dispatcher.dispatch(ev("slow"), -100);
    dispatcher.dispatch(ev("fast"));
    dispatcher.dispatch(ev("throws"));
    dispatcher.dispatch(ev("rejects"));
    dispatcher.dispatch(ev("sync-1")); // waits behind the pending ones
    resolvers.get("fast")!([{ name: "f" }, { name: "f" }, { name: "f2", namespace: "x" }]);
    await new Promise((r) => setTimeout(r, 10));
    expect(enqueued).toEqual(["sync-0-key@0"]);
    resolvers.get("slow")!([{ name: "s" }]);
    await dispatcher.settled();
    expect(enqueued).toEqual(["sync-0-key@0", "s@-100", "f@0", "f2@0", "sync-1-key@0"]);
    expect(errors).toEqual(["map failed", "lookup failed"]);
    // Once settled, synchronous answers go straight through again.
    dispatcher.dispatch(ev("sync-2"));
    expect(enqueued.at(-1)).toBe("sync-2-key@0");
  });
});
