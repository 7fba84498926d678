// Which write an events.k8s.io/v1 Event needs, decided as client-go's new recorder decides it
// (tools/events/event_broadcaster.go, controller-runtime's recorder since v0.23), so that an operator
// sends the requests a controller-runtime operator sends:
// - events with the same type, action, reason, reporting controller and instance, regarding and
//   related objects are one Event (the note of later ones is not written: it is not part of the key);
// - the first is created; the second turns it into a series (a PATCH of series.count 2 and
//   series.lastObservedTime); later ones only count, written by sweep(): a series not observed for
//   6 minutes gets its final count and is forgotten, and every 30 minutes every live series gets
//   its count (the TTL refresh); a single Event is forgotten 6 minutes after it was made.
// Pure (the recorder does the requests); bounded at 4096 Events, oldest forgotten first.
import { BoundedMap } from "./event-correlator.js";

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface EventSeries {
  count: number;
  /** MicroTime: RFC 3339 with microseconds. */
  lastObservedTime: string;
}

/** An events.k8s.io/v1 Event as the recorder writes it. */
export interface EventV1 {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: EventSeries;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note: string;
  type: string;
}

export type SeriesWrite = { action: "create"; event: EventV1 } | { action: "patch"; event: EventV1 };

/** client-go's finishTime and refreshTime. */
export const SERIES_FINISH_MS = 6 * 60_000;
export const SERIES_REFRESH_MS = 30 * 60_000;

/** An Event's time as the API wants it (metav1.MicroTime). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

interface Cached {
  event: EventV1;
  /** When the Event was made, or its series last observed (ms). */
  at: number;
  /** series.count last written (0 for a single Event). */
  written: number;
}

function ref(r: ObjectReference | undefined): unknown[] {
  return r ? [r.apiVersion, r.kind, r.namespace, r.name, r.uid, r.resourceVersion] : [];
}

export class EventSeriesCache {
  private readonly cache = new BoundedMap<Cached>();

  /** Events remembered (single ones and series). */
  get size(): number {
    return this.cache.size;
  }

  /** The write an event needs, or undefined when it only counts in its series. */
  observe(event: EventV1, now: number): SeriesWrite | undefined {
    const key = JSON.stringify([
      event.type,
      event.action,
      event.reason,
      event.reportingController,
      event.reportingInstance,
      ref(event.regarding),
      ref(event.related),
    ]);
    const cached = this.cache.get(key);
    if (!cached) {
      this.cache.set(key, { event: structuredClone(event), at: now, written: 0 });
      return { action: "create", event: structuredClone(event) };
    }
    cached.at = now;
    if (cached.event.series) {
      cached.event.series = { count: cached.event.series.count + 1, lastObservedTime: microTime(now) };
      return undefined;
    }
    cached.event.series = { count: 2, lastObservedTime: microTime(now) };
    cached.written = 2;
    return { action: "patch", event: structuredClone(cached.event) };
  }

  /**
   * The series writes due at `now` (client-go's finishSeries, and with `refresh` its
   * refreshExistingEventSeries); forgets finished series and single Events past 6 minutes.
   */
  sweep(now: number, refresh: boolean): EventV1[] {
    const due: EventV1[] = [];
    for (const [key, cached] of this.cache) {
      const finished = now - cached.at > SERIES_FINISH_MS;
      if (!cached.event.series) {
        if (finished) this.cache.delete(key);
        continue;
      }
      if (finished) this.cache.delete(key);
      if (finished || refresh) due.push(this.written(cached));
    }
    return due;
  }

  /** Series whose latest count is not written yet (the recorder writes them when it flushes). */
  unwritten(): EventV1[] {
    const due: EventV1[] = [];
    for (const cached of this.cache.values())
      if (cached.event.series && cached.event.series.count !== cached.written) due.push(this.written(cached));
    return due;
  }

  private written(cached: Cached): EventV1 {
    cached.written = cached.event.series?.count ?? 0;
    return structuredClone(cached.event);
  }
}
