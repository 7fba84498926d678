// "No error left unreported": a reconcile error counts as reported when, as the reconcile
// returned, a condition of the object named it (checked in operator.ts), or when a Warning Event
// about the object (core/v1 or events.k8s.io/v1, recorded by the time the manager stopped) names
// it. Either names it when its message contains the error message's first 60 characters.
import type { Client } from "../../runtime/index.js";
import { mentions } from "./operator.js";
import type { ReconcileError } from "./types.js";

interface EventLike {
  type?: string;
  message?: string;
  note?: string;
  reason?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  regarding?: { kind?: string; name?: string; namespace?: string };
}

/** The errors neither a condition nor a Warning Event surfaced (each once per message and object). */
export async function uncoveredErrors(admin: Client, errors: ReconcileError[]): Promise<ReconcileError[]> {
  const open = errors.filter((e) => !e.reportedAs);
  if (open.length === 0) return [];
  const events = [
    ...(await admin.list<EventLike & { apiVersion: string; kind: string }>({
      apiVersion: "v1",
      kind: "Event",
    })),
    ...(await admin
      .list<EventLike & { apiVersion: string; kind: string }>({
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
      })
      .catch(() => [])),
  ];
  const seen = new Set<string>();
  const left: ReconcileError[] = [];
  for (const error of open) {
    const about = events.filter((e) => {
      const ref = e.regarding ?? e.involvedObject;
      const key = `${ref?.kind} ${ref?.namespace ? `${ref.namespace}/` : ""}${ref?.name}`;
      return e.type === "Warning" && key === error.key;
    });
    const event = about.find((e) => mentions(e.note ?? e.message, error.message));
    if (event) {
      error.reportedAs = `event ${event.reason ?? ""}`.trim();
      continue;
    }
    const id = `${error.key}\n${error.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    left.push(error);
  }
  return left;
}
