// The field index on its own, fed through the handler it adds to an informer: adds, updates and
// deletes (a relist's diff is the same calls) move objects between values; resyncs change nothing;
// a throwing index function skips that object; an index added to a synced informer is filled from
// the objects it replays. The stub informer answers get() for every object ever seen, so the
// answers below come from the index's own bookkeeping.
import { describe, expect, it } from "vitest";
import { FieldIndexes } from "../../src/runtime/cache/field-index.js";
import type { EventHandler, InformerObject, SharedInformer } from "../../src/runtime/cache/informer.js";
import type { ResourceMapping } from "../../src/runtime/connect/mapper.js";
import { Logger } from "../../src/runtime/log/logger.js";

const MAPPING: ResourceMapping = {
  apiVersion: "v1",
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  namespaced: true,
};

function stubInformer() {
  const everSeen = new Map<string, InformerObject>();
  const handlers: EventHandler<InformerObject>[] = [];
  const synced: InformerObject[] = [];
  const key = (o: { namespace?: string; name: string }) => `${o.namespace ?? ""}/${o.name}`;
  const informer = {
    mapping: MAPPING,
    resource: "configmaps",
    namespaces: undefined,
    addHandler: (h: EventHandler<InformerObject>) => {
      handlers.push(h);
      for (const o of synced) h.onAdd?.(o);
    },
    hasSynced: () => true,
    waitForSync: () => Promise.resolve(),
    get: (k: { namespace?: string; name: string }) => everSeen.get(key(k)),
    list: () => [...everSeen.values()],
  } as unknown as SharedInformer;
  const remember = (o: InformerObject) =>
    everSeen.set(key({ namespace: o.metadata?.namespace, name: o.metadata!.name! }), o);
  return {
    informer,
    /** Objects the informer holds before the index is added (replayed to new handlers). */
    preload(o: InformerObject) {
      remember(o);
      synced.push(o);
    },
    add: (o: InformerObject) => (remember(o), handlers.forEach((h) => h.onAdd?.(o))),
    update: (old: InformerObject, o: InformerObject) => (
      remember(o),
      handlers.forEach((h) => h.onUpdate?.(old, o))
    ),
    remove: (o: InformerObject) => handlers.forEach((h) => h.onDelete?.(o)),
  };
}

const cm = (name: string, secret?: string, namespace = "default") =>
  ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace },
    data: secret ? { secret } : {},
  }) as InformerObject;
const secretOf = (o: object) => (o as { data?: { secret?: string } }).data?.secret;
const quiet = new Logger({ level: "error", sink: { write: () => {} } });

describe("FieldIndexes", () => {
  it("follows adds, updates and deletes, ignores resyncs, and skips objects whose function throws", async () => {
    const s = stubInformer();
    const indexes = new FieldIndexes();
    const logs: string[] = [];
    indexes.add(
      "v1/ConfigMap",
      s.informer,
      "secret",
      (o) => {
        if ((o.metadata as { name: string }).name === "bad") throw new Error("boom");
        return secretOf(o);
      },
      new Logger({ level: "error", format: "json", sink: { write: (l) => logs.push(l) } }),
    );
    const list = async (value: string, namespace?: string) =>
      (
        await indexes.list<InformerObject>(
          "v1/ConfigMap",
          MAPPING,
          { namespace, matchingFields: { secret: value } },
          true,
          () => true,
        )
      ).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
    const c1 = cm("c1", "s");
    const c2 = cm("c2", "s");
    s.add(c1);
    s.add(c2);
    s.add(cm("c3", "s", "other"));
    s.add(cm("none"));
    s.add(cm("bad", "s"));
    expect(await list("s")).toEqual(["default/c1", "default/c2", "other/c3"]);
    expect(await list("s", "default")).toEqual(["default/c1", "default/c2"]);
    const c2t = cm("c2", "t");
    s.update(c2, c2t);
    s.update(c2t, c2t); // a resync: nothing changes
    s.remove(c1);
    expect(await list("s")).toEqual(["other/c3"]);
    expect(await list("t")).toEqual(["default/c2"]);
    expect(logs.some((l) => l.includes("field index function failed") && l.includes("default/bad"))).toBe(
      true,
    );
  });

  it("fills an index added to a synced informer from the objects it replays; names the index in errors", async () => {
    const s = stubInformer();
    s.preload(cm("early", "s"));
    const indexes = new FieldIndexes();
    indexes.add("v1/ConfigMap", s.informer, "secret", secretOf, quiet);
    const found = await indexes.list<InformerObject>(
      "v1/ConfigMap",
      MAPPING,
      { matchingFields: { secret: "s" } },
      true,
      () => true,
    );
    expect(found.map((o) => o.metadata?.name)).toEqual(["early"]);
    expect(() => indexes.add("v1/ConfigMap", s.informer, "secret", secretOf, quiet)).toThrow(
      /field index "secret" of v1\/ConfigMap is already registered/,
    );
    await expect(
      indexes.list("v1/ConfigMap", MAPPING, { matchingFields: { other: "x" } }, true, () => true),
    ).rejects.toThrow(/field index "other": no such index/);
    await expect(
      indexes.list("v1/ConfigMap", MAPPING, { matchingFields: { secret: "x" } }, false, () => true),
    ).rejects.toThrow(/field index "secret": the cache is not started/);
    await expect(
      indexes.list(
        "v1/Secret",
        { ...MAPPING, kind: "Secret" },
        { matchingFields: { secret: "x" } },
        true,
        () => true,
      ),
    ).rejects.toThrow(/field index "secret": v1\/Secret has no field indexes/);
  });
});
