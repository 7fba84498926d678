// Knows, from its own watches on Widgets and ConfigMaps, which Widgets are reconciled: status.observed
// equals the spec.data the benchmark wrote, and the Widget's ConfigMap holds that data under a
// controller reference to it. The benchmark waits on it instead of polling with lists (a list of
// 20,000 objects would cost the apiserver more than what is measured).
import type { BenchApi, WatchEvent } from "./api.js";

interface Seen {
  uid?: string;
  data?: string;
  observed?: string;
  cmData?: string;
  cmOwner?: string;
}

type Obj = {
  metadata?: {
    namespace?: string;
    name?: string;
    uid?: string;
    resourceVersion?: string;
    ownerReferences?: Array<{ uid: string; controller?: boolean }>;
  };
  spec?: { data?: string };
  status?: { observed?: string };
  data?: Record<string, string>;
};

export const WIDGETS = "/apis/bench.tsop.dev/v1/widgets";
export const CONFIGMAPS = "/api/v1/configmaps";

export class ReconcileTracker {
  private readonly seen = new Map<string, Seen>();
  private readonly expected = new Map<string, string>();
  private readonly done = new Set<string>();
  private readonly abort = new AbortController();
  private waiter: (() => void) | undefined;
  private failure: Error | undefined;
  /** performance.now() of the event that made the last key reconciled. */
  private lastDoneAt = 0;
  /** performance.now() of the first key reconciled since the last settle(). */
  private firstDoneAt: number | undefined;

  private constructor(
    private readonly api: BenchApi,
    private readonly namespaces: ReadonlySet<string>,
  ) {}

  /** Lists both kinds, then watches them until stop(). */
  static async start(api: BenchApi, namespaces: readonly string[]): Promise<ReconcileTracker> {
    const tracker = new ReconcileTracker(api, new Set(namespaces));
    for (const [path, apply] of [
      [WIDGETS, tracker.widget],
      [CONFIGMAPS, tracker.configMap],
    ] as const) {
      const listed = await api.list(path);
      for (const item of listed.items) apply.call(tracker, item as Obj);
      void tracker.follow(path, listed.resourceVersion, apply);
    }
    return tracker;
  }

  /** The benchmark is about to write `data` to Widget namespace/name. */
  expect(namespace: string, name: string, data: string): void {
    const key = `${namespace}/${name}`;
    this.expected.set(key, data);
    this.check(key);
  }

  /** Resolves once every expected Widget is reconciled, or after `timeoutMs`. */
  async settle(timeoutMs: number): Promise<{ at: number; first: number; missing: string[] }> {
    if (this.done.size < this.expected.size) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    if (this.failure) throw this.failure;
    const missing = [...this.expected.keys()].filter((k) => !this.done.has(k)).sort();
    const first = this.firstDoneAt ?? this.lastDoneAt;
    this.firstDoneAt = undefined;
    return { at: this.lastDoneAt, first, missing };
  }

  stop(): void {
    this.abort.abort();
  }

  private async follow(path: string, from: string, apply: (o: Obj) => void): Promise<void> {
    let version = from;
    while (!this.abort.signal.aborted) {
      try {
        await this.api.watch(
          path,
          version,
          (event: WatchEvent) => {
            if (event.type === "ERROR") throw new Error(`watch ${path}: ${JSON.stringify(event.object)}`);
            const obj = event.object as Obj;
            version = obj.metadata?.resourceVersion ?? version;
            if (event.type === "ADDED" || event.type === "MODIFIED") apply.call(this, obj);
          },
          this.abort.signal,
        );
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.failure = error instanceof Error ? error : new Error(String(error));
        this.waiter?.();
        return;
      }
    }
  }

  private widget(obj: Obj): void {
    const key = this.keyOf(obj);
    if (!key) return;
    const s = this.entry(key);
    s.uid = obj.metadata?.uid;
    s.data = obj.spec?.data;
    s.observed = obj.status?.observed;
    this.check(key);
  }

  private configMap(obj: Obj): void {
    const key = this.keyOf(obj);
    if (!key) return;
    const s = this.entry(key);
    s.cmData = obj.data?.data;
    s.cmOwner = obj.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
    this.check(key);
  }

  private keyOf(obj: Obj): string | undefined {
    const { namespace, name } = obj.metadata ?? {};
    return namespace && name && this.namespaces.has(namespace) ? `${namespace}/${name}` : undefined;
  }

  private entry(key: string): Seen {
    let s = this.seen.get(key);
    if (!s) this.seen.set(key, (s = {}));
    return s;
  }

  private check(key: string): void {
    const want = this.expected.get(key);
    const s = this.seen.get(key);
    const ok =
      want !== undefined &&
      s !== undefined &&
      s.uid !== undefined &&
      s.data === want &&
      s.observed === want &&
      s.cmData === want &&
      s.cmOwner === s.uid;
    if (!ok) {
      this.done.delete(key);
      return;
    }
    if (this.done.has(key)) return;
    this.done.add(key);
    this.lastDoneAt = performance.now();
    this.firstDoneAt ??= this.lastDoneAt;
    if (this.done.size === this.expected.size) this.waiter?.();
  }
}
