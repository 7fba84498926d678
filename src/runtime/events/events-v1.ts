// An events.k8s.io/v1 Event from what a reconciler records, with the field mapping of client-go's
// new recorder (tools/events/event_recorder.go makeEvent): regarding and related are object
// references, reportingController is the recorder's component and reportingInstance
// "<component>-<hostname>", action says what was done (the reason when not given), note is the
// message, eventTime is a MicroTime; an Event about a cluster-scoped object lives in "default".
// Its write: a new Event is a POST; a series' count a PATCH of `series` (a POST again when the
// Event expired on the server, as client-go's recordEvent).
import type { Client, KubeObjectLike } from "../client/client.js";
import { isNotFound } from "../connect/errors.js";
import type { ObjectMeta } from "../schema.js";
import { type EventV1, microTime, type ObjectReference } from "./event-series.js";

export const EVENT_V1 = { apiVersion: "events.k8s.io/v1", kind: "Event" } as const;

/** The API's limits (k8s.io/kubernetes pkg/apis/core/validation/events.go). */
const NOTE_MAX_BYTES = 1024;
const FIELD_MAX = 128;

export function objectReference(obj: KubeObjectLike): ObjectReference {
  const meta = (obj.metadata ?? {}) as ObjectMeta;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
  };
}

/** At most `max` bytes of UTF-8, cut at a character boundary, "..." marking a cut. */
function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = "";
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > max - 3) break;
    out += ch;
  }
  return `${out}...`;
}

export interface EventV1Input {
  name: string;
  regarding: KubeObjectLike;
  related?: KubeObjectLike;
  type: string;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  reportingInstance: string;
  now: number;
}

export function makeEventV1(input: EventV1Input): EventV1 {
  const regarding = objectReference(input.regarding);
  const event: EventV1 = {
    ...EVENT_V1,
    metadata: { name: input.name, namespace: regarding.namespace || "default" },
    eventTime: microTime(input.now),
    reportingController: input.reportingController,
    reportingInstance: input.reportingInstance.slice(0, FIELD_MAX),
    action: input.action.slice(0, FIELD_MAX),
    reason: input.reason.slice(0, FIELD_MAX),
    regarding,
    note: truncateBytes(input.note, NOTE_MAX_BYTES),
    type: input.type,
  };
  if (input.related) event.related = objectReference(input.related);
  return event;
}

/** Writes an Event: POST when new, PATCH of its series otherwise (POST if it expired). */
export async function writeEventV1(client: Client, event: EventV1): Promise<void> {
  if (event.series) {
    try {
      await client.patch(
        { kind: EVENT_V1, key: { namespace: event.metadata.namespace, name: event.metadata.name } },
        { series: event.series },
      );
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  await client.create(event);
}
