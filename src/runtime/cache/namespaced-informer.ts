// One informer per namespace, seen as one: for a cache restricted to several namespaces (a list
// and watch per namespace needs only namespaced RBAC, where an all-namespaces watch needs a
// ClusterRole). Handlers, reads, sync and health span all of them.
import type { EventHandler, InformerHealth, InformerObject, SharedInformer } from "./informer.js";
import type { ResourceMapping } from "../connect/mapper.js";

export class NamespacedInformers<T extends InformerObject = InformerObject> implements SharedInformer<T> {
  readonly mapping: ResourceMapping;
  readonly resource: string;

  constructor(private readonly byNamespace: ReadonlyMap<string, SharedInformer<T>>) {
    const first = [...byNamespace.values()][0];
    if (!first) throw new Error("NamespacedInformers needs at least one namespace");
    this.mapping = first.mapping;
    this.resource = first.resource;
  }

  get namespaces(): readonly string[] {
    return [...this.byNamespace.keys()];
  }

  private get all(): SharedInformer<T>[] {
    return [...this.byNamespace.values()];
  }

  addHandler(handler: EventHandler<T>): void {
    for (const i of this.all) i.addHandler(handler);
  }

  start(): void {
    for (const i of this.all) i.start();
  }

  isStarted(): boolean {
    return this.all.every((i) => i.isStarted());
  }

  async stop(): Promise<void> {
    await Promise.all(this.all.map((i) => i.stop()));
  }

  hasSynced(): boolean {
    return this.all.every((i) => i.hasSynced());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.all.map((i) => i.waitForSync()));
  }

  get(key: { namespace?: string; name: string }): T | undefined {
    return this.byNamespace.get(key.namespace ?? "")?.get(key);
  }

  list(): T[] {
    return this.all.flatMap((i) => i.list());
  }

  lastError(): Error | undefined {
    return this.all.map((i) => i.lastError()).find((e) => e !== undefined);
  }

  health(now = Date.now()): InformerHealth {
    const each = this.all.map((i) => i.health(now));
    const details = each.filter((h) => h.detail).map((h) => h.detail);
    return {
      resource: this.resource,
      synced: each.every((h) => h.synced),
      healthy: each.every((h) => h.healthy),
      ...(details.length > 0 ? { detail: details.join("; ") } : {}),
    };
  }
}
