// Field indexes over the cache (controller-runtime's FieldIndexer): manager.indexField(kind, name,
// fn) computes values for every cached object of a kind, and client.list(kind, { matchingFields:
// { [name]: value } }) answers from them without scanning. An index is kept from the kind's
// informer's own handler calls, which follow every change of its store (watch events, and the
// diff of a relist after 410 Gone: adds, updates and deletes) in store order, so the index always
// matches the cached objects. An index added after the informer synced is filled from the objects
// already cached (the informer replays them to a new handler).
import type { KubeObjectLike, ListOptions } from "../client/client.js";
import { ConfigError } from "../connect/errors.js";
import type { ResourceMapping } from "../connect/mapper.js";
import type { Logger } from "../log/logger.js";
import { type InformerObject, objectKey, type SharedInformer } from "./informer.js";

/** The values an object is found under (controller-runtime's IndexerFunc). */
export type IndexFunction = (obj: KubeObjectLike) => string[] | string | undefined | null;

/** Whether a list asks for a field index (an empty matchingFields is a plain list). */
export function hasMatchingFields(options: ListOptions): boolean {
  return Object.keys(options.matchingFields ?? {}).length > 0;
}

class Index {
  /** value → keys of the objects with it. */
  private readonly byValue = new Map<string, Set<string>>();
  /** object key → its values (to remove them on update and delete). */
  private readonly byObject = new Map<string, string[]>();

  constructor(
    readonly name: string,
    private readonly fn: IndexFunction,
    private readonly kind: string,
    private readonly log: Logger,
  ) {}

  set(obj: InformerObject): void {
    const key = objectKey(obj);
    this.remove(key);
    let values: string[];
    try {
      const out = this.fn(obj);
      values = out === undefined || out === null ? [] : Array.isArray(out) ? out : [out];
    } catch (err) {
      this.log.error("field index function failed; the object is not indexed", err, {
        kind: this.kind,
        index: this.name,
        object: key,
      });
      return;
    }
    const unique = [...new Set(values.filter((v) => typeof v === "string"))];
    if (unique.length === 0) return;
    this.byObject.set(key, unique);
    for (const v of unique) {
      let keys = this.byValue.get(v);
      if (!keys) this.byValue.set(v, (keys = new Set()));
      keys.add(key);
    }
  }

  remove(key: string): void {
    const values = this.byObject.get(key);
    if (!values) return;
    this.byObject.delete(key);
    for (const v of values) {
      const keys = this.byValue.get(v);
      keys?.delete(key);
      if (keys?.size === 0) this.byValue.delete(v);
    }
  }

  keys(value: string): ReadonlySet<string> {
    return this.byValue.get(value) ?? new Set();
  }
}

interface IndexedKind {
  informer: SharedInformer;
  indexes: Map<string, Index>;
}

function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The field indexes of a cache, per kind ("apiVersion/kind"). */
export class FieldIndexes {
  private readonly kinds = new Map<string, IndexedKind>();

  /** Adds an index on the kind's informer; a second index of the same name on a kind is an error. */
  add(kindKey: string, informer: SharedInformer, name: string, fn: IndexFunction, log: Logger): void {
    if (!name) throw new ConfigError(`a field index of ${kindKey} has no name`, { hint: "name the index" });
    if (typeof fn !== "function")
      throw new ConfigError(`field index "${name}" of ${kindKey} has no index function`, {
        hint: "pass (obj) => string[]: the values the object is found under",
      });
    let kind = this.kinds.get(kindKey);
    if (!kind) this.kinds.set(kindKey, (kind = { informer, indexes: new Map() }));
    if (kind.indexes.has(name))
      throw new ConfigError(`field index "${name}" of ${kindKey} is already registered`, {
        hint: "register each index once (e.g. at setup, before manager.start())",
      });
    const index = new Index(name, fn, kindKey, log);
    kind.indexes.set(name, index);
    informer.addHandler({
      onAdd: (obj) => index.set(obj),
      onUpdate: (old, obj) => {
        if (old !== obj) index.set(obj);
      },
      onDelete: (obj) => index.remove(objectKey(obj)),
    });
  }

  /**
   * The cached objects (copies) whose index values include each of `matchingFields`, in the
   * namespace asked for, passing `match` (the list's label and field selectors), in key order.
   * Throws an error naming the index when it cannot answer: the cache is not started, the kind
   * has no indexes, the index does not exist, or the namespace is not cached.
   */
  async list<T>(
    kindKey: string,
    mapping: ResourceMapping,
    options: ListOptions,
    started: boolean,
    match: ((obj: InformerObject) => boolean) | undefined,
  ): Promise<T[]> {
    const fields = Object.entries(options.matchingFields ?? {});
    const names = fields.map(([n]) => `"${n}"`).join(", ");
    const kind = this.kinds.get(kindKey);
    if (!kind)
      throw new ConfigError(
        `cannot list ${mapping.kind} by field index ${names}: ${kindKey} has no field indexes`,
        { hint: `register it first: manager.indexField(kind, ${names.split(", ")[0]}, (obj) => [...])` },
      );
    for (const [name] of fields)
      if (!kind.indexes.has(name))
        throw new ConfigError(`cannot list ${mapping.kind} by field index "${name}": no such index`, {
          hint: `indexes of ${kindKey}: ${[...kind.indexes.keys()].map((n) => `"${n}"`).join(", ")}; register others with manager.indexField`,
        });
    if (!started)
      throw new ConfigError(`cannot list ${mapping.kind} by field index ${names}: the cache is not started`, {
        hint: "field indexes answer once the manager has started (e.g. inside a reconciler or a watch handler)",
      });
    if (!match)
      throw new ConfigError(
        `cannot list ${mapping.kind} by field index ${names} with fieldSelector "${options.fieldSelector}"`,
        { hint: "the cache evaluates only metadata.name and metadata.namespace field selectors" },
      );
    const namespace = mapping.namespaced ? options.namespace || undefined : undefined;
    const informer = kind.informer;
    if (namespace && informer.namespaces && !informer.namespaces.includes(namespace))
      throw new ConfigError(
        `cannot list ${mapping.kind} by field index ${names} in namespace ${namespace}: the cache does not hold it`,
        { hint: `cached namespaces: ${informer.namespaces.join(", ")}` },
      );
    await informer.waitForSync();
    let keys: string[] | undefined;
    for (const [name, value] of fields) {
      const found = kind.indexes.get(name)!.keys(String(value));
      keys = keys === undefined ? [...found] : keys.filter((k) => found.has(k));
    }
    const out: InformerObject[] = [];
    for (const key of keys ?? []) {
      const obj = informer.get(splitKey(key));
      if (!obj) continue;
      if (namespace && obj.metadata?.namespace !== namespace) continue;
      if (match(obj)) out.push(obj);
    }
    out.sort((a, b) => {
      const ka = objectKey(a);
      const kb = objectKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    return out.map((o) => structuredClone(o) as T);
  }
}
