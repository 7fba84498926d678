// Kubernetes Events (core/v1) about the objects an operator manages. Recording never fails a
// reconcile: errors are logged. Which write an event needs (a new Event, a PATCH of a repeated one's
// count, or none when the object's events come too fast) is decided by event-correlator.ts, as
// client-go's recorder decides it; the writes go out one at a time, in order, as client-go's do, and
// as there, the backlog is bounded: past maxBacklog waiting writes (1000, client-go's
// maxQueuedEvents) new events are dropped, counted and logged (at most once per logEveryMs), so a
// slow or unreachable API server cannot make the recorder hold memory without limit.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Client, KubeObjectLike } from "../client/client.js";
import { isNotFound } from "../connect/errors.js";
import { type Correlation, EventCorrelator } from "./event-correlator.js";
import type { Logger } from "../log/logger.js";
import type { ObjectMeta } from "../schema.js";

export type EventType = "Normal" | "Warning";

export interface EventRecorderOptions {
  /** Clock (ms) of the spam filter and aggregation, for tests. */
  now?: () => number;
  /** Writes waiting at most; events past it are dropped. Default 1000 (client-go's maxQueuedEvents). */
  maxBacklog?: number;
  /** Called for every event dropped because the backlog was full (the manager counts them). */
  onDrop?: () => void;
  /** At most one warning per this many ms about dropped events. Default 10 000. */
  logEveryMs?: number;
}

export class EventRecorder {
  private readonly host = hostname();
  private readonly correlator: EventCorrelator;
  /** The last write queued: writes are sent one after another. */
  private tail: Promise<void> = Promise.resolve();
  /** Writes queued and not finished yet. */
  private backlog = 0;
  private droppedSinceLog = 0;
  private lastDropLog = Number.NEGATIVE_INFINITY;
  private readonly options: EventRecorderOptions;

  constructor(
    private readonly client: Client,
    readonly component: string,
    private readonly log: Logger,
    /** The clock alone (tests), or the options. */
    options: (() => number) | EventRecorderOptions = {},
  ) {
    this.options = typeof options === "function" ? { now: options } : options;
    this.correlator = new EventCorrelator(`${component}\u0000${this.host}`, this.options.now ?? Date.now);
  }

  /** Writes queued and not finished yet. */
  get pending(): number {
    return this.backlog;
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
    if (this.backlog >= (this.options.maxBacklog ?? 1000)) {
      this.dropped(reason, `${namespace}/${meta.name}`);
      return;
    }
    const correlation = this.correlator.correlate(draft, newName);
    if (correlation.action === "skip") {
      this.log.debug("event dropped by the spam filter", { reason, object: `${namespace}/${meta.name}` });
      return;
    }
    this.backlog += 1;
    this.tail = this.tail
      .then(() => this.write(obj, type, reason, namespace, correlation))
      .catch((err: unknown) => {
        this.log.warn("could not record event", { err: err as Error, reason });
      })
      .finally(() => {
        this.backlog -= 1;
      });
  }

  /** Counts a dropped event; warns at most once per logEveryMs, with how many were dropped since. */
  private dropped(reason: string, object: string): void {
    this.options.onDrop?.();
    this.droppedSinceLog += 1;
    const now = Date.now();
    if (now - this.lastDropLog < (this.options.logEveryMs ?? 10_000)) return;
    this.log.warn("event backlog full; dropping events (is the API server slow or unreachable?)", {
      dropped: this.droppedSinceLog,
      backlog: this.backlog,
      reason,
      object,
    });
    this.lastDropLog = now;
    this.droppedSinceLog = 0;
  }

  normal(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Normal", reason, message);
  }

  warning(obj: KubeObjectLike, reason: string, message: string): void {
    this.event(obj, "Warning", reason, message);
  }

  /**
   * Waits for events still being written (called on shutdown), at most timeoutMs: resolves whether
   * all were written. Those left are abandoned with the process.
   */
  async flush(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if (this.backlog === 0) return true;
    if (!Number.isFinite(timeoutMs)) {
      await this.tail;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
      timer.unref?.();
    });
    const done = await Promise.race([this.tail.then(() => true), timedOut]);
    clearTimeout(timer);
    return done;
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
