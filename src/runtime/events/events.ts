// Kubernetes Events (core/v1) about the objects an operator manages. Recording never fails a
// reconcile: errors are logged. Which write an event needs (a new Event, a PATCH of a repeated one's
// count, or none when the object's events come too fast) is decided by event-correlator.ts, as
// client-go's recorder decides it; the writes go out one at a time, in order, as client-go's do.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Client, KubeObjectLike } from "../client/client.js";
import { isNotFound } from "../connect/errors.js";
import { type Correlation, EventCorrelator } from "./event-correlator.js";
import type { Logger } from "../log/logger.js";
import type { ObjectMeta } from "../schema.js";

export type EventType = "Normal" | "Warning";

export class EventRecorder {
  private readonly host = hostname();
  private readonly correlator: EventCorrelator;
  /** The last write queued: writes are sent one after another. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Client,
    readonly component: string,
    private readonly log: Logger,
    /** Clock (ms) of the spam filter and aggregation, for tests. */
    now: () => number = Date.now,
  ) {
    this.correlator = new EventCorrelator(`${component}\u0000${this.host}`, now);
  }

  /** Records an event about `obj` (fire and forget; see flush()). */
  event(obj: KubeObjectLike, type: EventType, reason: string, message: string): void {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const namespace = meta.namespace || "default";
    const draft = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace,
      name: meta.name,
      uid: meta.uid,
      type,
      reason,
      message,
    };
    const newName = () =>
      `${meta.name ?? "object"}.${Date.now().toString(16)}${randomBytes(2).toString("hex")}`;
    const correlation = this.correlator.correlate(draft, newName);
    if (correlation.action === "skip") {
      this.log.debug("event dropped by the spam filter", { reason, object: `${namespace}/${meta.name}` });
      return;
    }
    this.tail = this.tail
      .then(() => this.write(obj, type, reason, namespace, correlation))
      .catch((err: unknown) => {
        this.log.warn("could not record event", { err: err as Error, reason });
      });
  }

  normal(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Normal", reason, message);
  }

  warning(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Warning", reason, message);
  }

  /** Waits for events still being written (called on shutdown). */
  async flush(): Promise<void> {
    await this.tail;
  }

  private async write(
    obj: KubeObjectLike,
    type: EventType,
    reason: string,
    namespace: string,
    c: Exclude<Correlation, { action: "skip" }>,
  ): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    if (c.action === "patch") {
      try {
        await this.client.patch(
          { kind: { apiVersion: "v1", kind: "Event" }, key: { namespace, name: c.name } },
          { count: c.count, message: c.message, lastTimestamp: now },
        );
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Expired on the server (Events live an hour): create it again, as client-go does.
      }
    }
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    await this.client.create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: c.name, namespace },
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
      message: c.message,
      count: c.count,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: this.component, host: this.host },
      reportingComponent: this.component,
      reportingInstance: this.host,
    });
  }
}
