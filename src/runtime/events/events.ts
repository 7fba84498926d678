// Kubernetes Events about the objects an operator manages. Recording never fails a reconcile:
// errors are logged. Two APIs, as controller-runtime has two recorders: events.k8s.io/v1 (its
// recorder since v0.23; events-v1.ts writes them, event-series.ts decides the writes) and core/v1
// (event-correlator.ts decides the writes, as client-go's legacy recorder). `api: "auto"` (the
// manager's default) asks discovery once whether the server serves events.k8s.io/v1, and falls
// back to core/v1 for good if it refuses the writes (403: RBAC granting only core events). The
// writes go out one at a time, in order, as client-go's do, and as there the backlog is bounded:
// past maxBacklog waiting writes (1000, client-go's maxQueuedEvents) new events are dropped,
// counted and logged (at most once per logEveryMs), so a slow or unreachable API server cannot
// make the recorder hold memory without limit.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Client, KubeObjectLike } from "../client/client.js";
import { isNotFound, isNoMatch } from "../connect/errors.js";
import { type Correlation, EventCorrelator } from "./event-correlator.js";
import { EventSeriesCache, SERIES_FINISH_MS, SERIES_REFRESH_MS } from "./event-series.js";
import { EVENT_V1, makeEventV1, objectReference, writeEventV1 } from "./events-v1.js";
import type { Logger } from "../log/logger.js";
import type { ObjectMeta } from "../schema.js";

export type EventType = "Normal" | "Warning";

/**
 * Which Events API the recorder writes: "auto" (events.k8s.io/v1 where discovery finds it, else
 * core/v1), or one forced.
 */
export type EventsApi = "auto" | "events.k8s.io/v1" | "v1";

/** What else an event may say (events.k8s.io/v1's action and related; core/v1 has both too). */
export interface EventDetails {
  /** What was done (events.k8s.io/v1 requires one, at most 128 characters). Default: the reason. */
  action?: string;
  /** A second object the event is about (events.k8s.io/v1 and core/v1 `related`). */
  related?: KubeObjectLike;
}

export interface EventRecorderOptions {
  /** The Events API to write. Default "v1" (core); the manager passes its `eventsApi`, default "auto". */
  api?: EventsApi;
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
  private readonly series = new EventSeriesCache();
  /** The API chosen: set at once when forced, after discovery for "auto". */
  private chosen: Promise<"events.k8s.io/v1" | "v1"> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeps = 0;
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
    const api = this.options.api ?? "v1";
    if (api !== "auto") this.chosen = Promise.resolve(api);
  }

  /** The API events are written to: forced, or found by discovery (asked once, again after a failure). */
  api(): Promise<"events.k8s.io/v1" | "v1"> {
    this.chosen ??= this.client.mapper.mapping(EVENT_V1).then(
      () => "events.k8s.io/v1" as const,
      (err: unknown) => {
        if (isNoMatch(err)) return "v1" as const;
        this.chosen = undefined; // the server did not answer: ask again for the next event
        this.log.debug("discovery of events.k8s.io/v1 failed; recording a core/v1 Event", {
          err: err as Error,
        });
        return "v1" as const;
      },
    );
    return this.chosen;
  }

  /** Writes queued and not finished yet. */
  get pending(): number {
    return this.backlog;
  }

  /** Records an event about `obj` (fire and forget; see flush()). */
  event(
    obj: KubeObjectLike,
    type: EventType,
    reason: string,
    message: string,
    details: EventDetails = {},
  ): void {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const namespace = meta.namespace || "default";
    if (this.backlog >= (this.options.maxBacklog ?? 1000)) {
      this.dropped(reason, `${namespace}/${meta.name}`);
      return;
    }
    const at = (this.options.now ?? Date.now)();
    this.enqueue(reason, async () => {
      if ((await this.api()) === "events.k8s.io/v1") {
        const written = await this.recordV1(obj, type, reason, message, details, at);
        if (written) return;
      }
      await this.recordCore(obj, type, reason, message, details);
    });
  }

  /** Queues a write after the ones before it; its failure is logged. */
  private enqueue(reason: string, write: () => Promise<void>): void {
    this.backlog += 1;
    this.tail = this.tail
      .then(write)
      .catch((err: unknown) => {
        this.log.warn("could not record event", { err: err as Error, reason });
      })
      .finally(() => {
        this.backlog -= 1;
      });
  }

  /** An events.k8s.io/v1 Event; false when the server refused it (403) and core/v1 is used from now on. */
  private async recordV1(
    obj: KubeObjectLike,
    type: EventType,
    reason: string,
    message: string,
    details: EventDetails,
    at: number,
  ): Promise<boolean> {
    const meta = (obj.metadata ?? {}) as ObjectMeta;
    const event = makeEventV1({
      name: eventName(meta.name),
      regarding: obj,
      related: details.related,
      type,
      reason,
      action: details.action ?? reason,
      note: message,
      // client-go's NewRecorder: the instance is the controller's name and the host's.
      reportingController: this.component,
      reportingInstance: `${this.component}-${this.host}`,
      now: at,
    });
    const write = this.series.observe(event, at);
    this.startSweeping();
    if (!write) return true; // counted in its series; written when the series is swept or flushed
    try {
      await writeEventV1(this.client, write.event);
      return true;
    } catch (err) {
      if ((err as { status?: number }).status !== 403 || this.options.api !== "auto") throw err;
      this.chosen = Promise.resolve("v1");
      this.log.warn(
        "the API server refused an events.k8s.io/v1 Event (403); recording core/v1 Events from now on. Grant create and patch on events in the events.k8s.io group to record the new API",
        { err: err as Error },
      );
      return false;
    }
  }

  /** A core/v1 Event, as client-go's legacy recorder decides and writes it. */
  private async recordCore(
    obj: KubeObjectLike,
    type: EventType,
    reason: string,
    message: string,
    details: EventDetails,
  ): Promise<void> {
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
    const correlation = this.correlator.correlate(draft, () => eventName(meta.name));
    if (correlation.action === "skip") {
      this.log.debug("event dropped by the spam filter", { reason, object: `${namespace}/${meta.name}` });
      return;
    }
    await this.write(obj, type, reason, namespace, correlation, details);
  }

  /** Writes the counts of series due (every 6 minutes; all live series every 30 minutes). */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      this.sweeps += 1;
      const refresh = this.sweeps % Math.round(SERIES_REFRESH_MS / SERIES_FINISH_MS) === 0;
      for (const event of this.series.sweep((this.options.now ?? Date.now)(), refresh))
        this.enqueue(event.reason, () => writeEventV1(this.client, event));
    }, SERIES_FINISH_MS);
    this.sweeper.unref?.();
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

  normal(obj: KubeObjectLike, reason: string, message: string, details?: EventDetails): void {
    this.event(obj, "Normal", reason, message, details);
  }

  warning(obj: KubeObjectLike, reason: string, message: string, details?: EventDetails): void {
    this.event(obj, "Warning", reason, message, details);
  }

  /**
   * Writes the counts of events.k8s.io/v1 series not written yet, then waits for events still
   * being written (called on shutdown), at most timeoutMs: resolves whether all were written.
   * Those left are abandoned with the process.
   */
  async flush(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    // After the events queued before it have been counted in their series.
    if (this.series.size > 0)
      this.enqueue("series counts", async () => {
        for (const event of this.series.unwritten()) await writeEventV1(this.client, event);
      });
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
    details: EventDetails,
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
      ...(details.action ? { action: details.action } : {}),
      ...(details.related ? { related: objectReference(details.related) } : {}),
    });
  }
}

/** client-go's GenerateEventName, with random bytes against two events in one millisecond. */
function eventName(objectName: string | undefined): string {
  return `${objectName ?? "object"}.${Date.now().toString(16)}${randomBytes(2).toString("hex")}`;
}
