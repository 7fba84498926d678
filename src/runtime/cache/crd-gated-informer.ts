// The informer of an optional kind (`optional: true` on for/owns/watches): it runs only while the
// kind's CRD is served (crd-watch.ts). While the CRD is missing it waits, holding no objects and
// sending no request of its kind (no 404 relists); when the CRD becomes Established it starts a
// fresh informer (whose initial list reaches the handlers as adds, so controllers reconcile); when
// the CRD is gone it stops that informer and drops its objects without telling the handlers (they
// are deleted with the CRD anyway), and waits again for the CRD to return.
import type { Logger } from "../log/logger.js";
import type { ResourceMapping } from "../connect/mapper.js";
import type { CrdWatch, ServedKind } from "./crd-watch.js";
import type { EventHandler, InformerHealth, InformerObject, SharedInformer } from "./informer.js";

export class CrdGatedInformer implements SharedInformer {
  private inner: SharedInformer | undefined;
  private readonly handlers: EventHandler<InformerObject>[] = [];
  private started = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private waiting: string | undefined;
  private lastMapping: ResourceMapping;
  /** A CRD has named the kind: from then on its absence means the kind is gone. */
  private crdKind = false;

  constructor(
    private readonly kind: ServedKind,
    /** The mapping known before the CRD is seen (a @CustomResource class, discovery); else from the CRD. */
    known: ResourceMapping | undefined,
    /**
     * Discovery served the kind when the informer was made: if no CRD names it, it is built in or
     * aggregated (an optional Deployment, metrics.k8s.io), served without a CRD.
     */
    private readonly discovered: boolean,
    private readonly crds: CrdWatch,
    private readonly make: (mapping: ResourceMapping) => SharedInformer,
    private readonly log: Logger,
    /** Told when the kind starts (true) or stops (false) waiting for its CRD. */
    private readonly onWaiting: (waiting: boolean) => void,
  ) {
    this.lastMapping = known ?? { ...kind, plural: "", namespaced: true };
  }

  get mapping(): ResourceMapping {
    return this.inner?.mapping ?? this.lastMapping;
  }

  get resource(): string {
    const m = this.mapping;
    return m.plural
      ? `${m.plural}${m.group ? `.${m.group}` : ""}`
      : `${this.kind.kind} (${this.kind.apiVersion})`;
  }

  get namespaces(): readonly string[] | undefined {
    return this.inner?.namespaces;
  }

  addHandler(handler: EventHandler<InformerObject>): void {
    this.handlers.push(handler);
    this.inner?.addHandler(handler);
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unsubscribe = this.crds.subscribe(() => this.follow());
    this.crds.start();
    void this.crds.waitForSync().then(() => this.follow());
  }

  isStarted(): boolean {
    return this.started;
  }

  /** Starts or stops the inner informer as the kind's CRD comes and goes. */
  private follow(): void {
    if (!this.started || this.stopped || !this.crds.hasSynced()) return;
    let state = this.crds.state(this.kind);
    if (state.crdName) this.crdKind = true;
    else if (!state.served && this.discovered && !this.crdKind) state = { served: true };
    const known = state.mapping ?? this.lastMapping;
    if (state.served && !this.inner && known.plural) {
      this.lastMapping = known;
      const inner = this.make(known);
      for (const h of this.handlers) inner.addHandler(h);
      this.inner = inner;
      inner.start();
      if (this.waiting !== undefined)
        this.log.info("CRD established; watching its kind", {
          crd: state.crdName,
          kind: this.describeKind(),
        });
      this.waiting = undefined;
      this.onWaiting(false);
      return;
    }
    if (state.served && this.inner) return;
    const why = state.served ? "its CRD does not name a plural yet" : (state.why ?? "not served");
    const crd = state.crdName ?? (known.plural ? `${known.plural}.${known.group}` : undefined);
    const waiting = `CRD ${crd ? `${crd} ` : ""}(${this.describeKind()}): ${why}`;
    if (this.inner) {
      const inner = this.inner;
      this.inner = undefined;
      void inner.stop();
      this.log.info("CRD gone; stopped watching its kind and waiting for the CRD again", {
        kind: this.describeKind(),
        why,
      });
    } else if (this.waiting === undefined) {
      this.log.warn("waiting for a CRD: its kind is not served yet", { kind: this.describeKind(), why });
    }
    this.waiting = waiting;
    this.onWaiting(true);
  }

  private describeKind(): string {
    return `${this.kind.apiVersion} ${this.kind.kind}`;
  }

  waitingFor(): string | undefined {
    return this.waiting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    const inner = this.inner;
    this.inner = undefined;
    await inner?.stop();
  }

  hasSynced(): boolean {
    return this.inner?.hasSynced() ?? false;
  }

  /**
   * Resolves once the CRD watch knows whether the kind is served, and then, if it is, once its
   * informer synced: a kind waiting for its CRD holds the manager's start back no longer.
   */
  async waitForSync(): Promise<void> {
    await this.crds.waitForSync();
    this.follow();
    await this.inner?.waitForSync();
  }

  get(key: { namespace?: string; name: string }): InformerObject | undefined {
    return this.inner?.get(key);
  }

  list(): InformerObject[] {
    return this.inner?.list() ?? [];
  }

  health(now?: number): InformerHealth {
    if (this.inner) return this.inner.health(now);
    return {
      resource: this.resource,
      synced: false,
      healthy: true,
      ...(this.waiting ? { detail: `waiting for ${this.waiting}` } : {}),
    };
  }

  lastError(): Error | undefined {
    return this.inner?.lastError();
  }
}
