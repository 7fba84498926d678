// One informer per namespace cache.namespaceSelector selects, seen as one (as
// namespaced-informer.ts, but the set changes while the manager runs): a namespace that appears or
// gains the labels gets an informer at once (its initial list reaches the handlers as adds, so
// controllers reconcile its objects); one that loses them or is deleted has its informer stopped
// and its objects dropped from the cache without telling the handlers: nothing was done to those
// objects, so nothing is reconciled (no storm of reconciles of objects the operator now ignores).
import type { ResourceMapping } from "../connect/mapper.js";
import type { EventHandler, InformerHealth, InformerObject, SharedInformer } from "./informer.js";
import type { NamespaceWatch } from "./namespace-watch.js";

export class SelectedNamespaceInformers implements SharedInformer {
  readonly resource: string;
  private readonly byNamespace = new Map<string, SharedInformer>();
  private readonly handlers: EventHandler<InformerObject>[] = [];
  private started = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly mapping: ResourceMapping,
    private readonly watch: NamespaceWatch,
    private readonly make: (namespace: string) => SharedInformer,
  ) {
    this.resource = `${mapping.plural}${mapping.group ? `.${mapping.group}` : ""}`;
  }

  get namespaces(): readonly string[] {
    return [...this.byNamespace.keys()].sort();
  }

  private get all(): SharedInformer[] {
    return [...this.byNamespace.values()];
  }

  addHandler(handler: EventHandler<InformerObject>): void {
    this.handlers.push(handler);
    for (const i of this.all) i.addHandler(handler);
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unsubscribe = this.watch.subscribe({
      added: (ns) => this.open(ns),
      removed: (ns) => this.close(ns),
    });
    this.watch.start();
    for (const ns of this.watch.names()) this.open(ns);
  }

  private open(namespace: string): void {
    if (this.stopped || this.byNamespace.has(namespace)) return;
    const informer = this.make(namespace);
    for (const h of this.handlers) informer.addHandler(h);
    this.byNamespace.set(namespace, informer);
    informer.start();
  }

  private close(namespace: string): void {
    const informer = this.byNamespace.get(namespace);
    if (!informer) return;
    this.byNamespace.delete(namespace);
    void informer.stop();
  }

  isStarted(): boolean {
    return this.started;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    const all = this.all;
    this.byNamespace.clear();
    await Promise.all(all.map((i) => i.stop()));
  }

  hasSynced(): boolean {
    return this.watch.hasSynced() && this.all.every((i) => i.hasSynced());
  }

  /** Resolves once the selected namespaces are known and each of their informers has synced. */
  async waitForSync(): Promise<void> {
    await this.watch.waitForSync();
    await Promise.all(this.all.map((i) => i.waitForSync()));
  }

  get(key: { namespace?: string; name: string }): InformerObject | undefined {
    return this.byNamespace.get(key.namespace ?? "")?.get(key);
  }

  list(): InformerObject[] {
    return this.all.flatMap((i) => i.list());
  }

  lastError(): Error | undefined {
    return this.all.map((i) => i.lastError()).find((e) => e !== undefined);
  }

  health(now = Date.now()): InformerHealth {
    const each = [this.watch.health(now), ...this.all.map((i) => i.health(now))];
    const details = each.filter((h) => h.detail).map((h) => h.detail);
    return {
      resource: this.resource,
      synced: this.hasSynced(),
      healthy: each.every((h) => h.healthy),
      ...(details.length > 0 ? { detail: details.join("; ") } : {}),
    };
  }
}
