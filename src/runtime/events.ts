// Kubernetes Events (core/v1) about the objects an operator manages. Recording never fails a
// reconcile: errors are logged. Repeats of the same event within ten minutes bump the count of the
// existing Event instead of creating a new one, as client-go's recorder does.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Client, KubeObjectLike } from "./client.js";
import { isNotFound } from "./errors.js";
import type { Logger } from "./logger.js";
import type { ObjectMeta } from "./schema.js";

export type EventType = "Normal" | "Warning";

interface Seen {
  name: string;
  namespace: string;
  count: number;
  first: string;
  at: number;
}

const AGGREGATE_MS = 10 * 60_000;

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly pending = new Set<Promise<void>>();
  private readonly host = hostname();

  constructor(
    private readonly client: Client,
    readonly component: string,
    private readonly log: Logger,
  ) {}

  /** Records an event about `obj` (fire and forget; see flush()). */
  event(obj: KubeObjectLike, type: EventType, reason: string, message: string): void {
    const p = this.record(obj, type, reason, message).catch((err: unknown) => {
      this.log.warn("could not record event", { err: err as Error, reason });
    });
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  normal(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Normal", reason, message);
  }

  warning(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Warning", reason, message);
  }

  /** Waits for events still being written (called on shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private async record(obj: KubeObjectLike, type: EventType, reason: string, message: string): Promise<void> {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const namespace = meta.namespace || "default";
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const key = [obj.apiVersion, obj.kind, namespace, meta.name, meta.uid, type, reason, message].join(
      "\u0000",
    );
    const previous = this.seen.get(key);
    if (previous && Date.now() - previous.at < AGGREGATE_MS) {
      previous.count += 1;
      previous.at = Date.now();
      try {
        await this.client.patch(
          {
            kind: { apiVersion: "v1", kind: "Event" },
            key: { namespace: previous.namespace, name: previous.name },
          },
          { count: previous.count, lastTimestamp: now },
        );
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const name = `${meta.name ?? "object"}.${Date.now().toString(16)}${randomBytes(2).toString("hex")}`;
    await this.client.create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.component, host: this.host },
      reportingComponent: this.component,
      reportingInstance: this.host,
    });
    this.seen.set(key, { name, namespace, count: 1, first: now, at: Date.now() });
    if (this.seen.size > 4096) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}
