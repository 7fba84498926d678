// Watch streams: newline-delimited JSON events replayed from the store's bounded history, live
// events filtered by namespace and selectors (selector transitions become ADDED/DELETED), BOOKMARKs,
// 410 Gone as an ERROR event, timeoutSeconds; every line passes through the fault gate (held,
// delayed, cut), as on the real control plane's fault proxy.
import type { ServerResponse } from "node:http";
import type { Faults, MatchedRequest } from "../faults.js";
import type { Engine } from "./engine.js";
import { groupVersion } from "./engine.js";
import type { Matcher } from "./selectors.js";
import { statusBody } from "./status.js";
import type { StoreEvent } from "./store.js";
import type { KObj, ResourceDef } from "./types.js";

export interface WatchRequest {
  def: ResourceDef;
  namespace: string;
  matcher: Matcher;
  resourceVersion: string | null;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutSeconds: number | undefined;
  /** What the client gets of each object (e.g. only its metadata); default the whole object. */
  shape?: (obj: KObj) => KObj;
  /** The request as fault rules see it. */
  client: MatchedRequest;
}

export class WatchHub {
  private open = new Set<() => void>();

  constructor(
    private readonly engine: Engine,
    private readonly bookmarkIntervalMs: number,
    private readonly faults: Faults,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Ends every open watch stream (clients see the connection close and re-watch). */
  closeAll(): void {
    for (const close of [...this.open]) close();
  }

  serve(res: ServerResponse, req: WatchRequest): void {
    const { def, engine } = { def: req.def, engine: this.engine };
    const store = engine.store;
    let unsubscribe = () => {};
    const timers: NodeJS.Timeout[] = [];
    const close = () => {
      gate.dispose();
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      this.open.delete(close);
      if (!res.writableEnded) res.end();
    };
    const shape = req.shape ?? ((o: KObj) => o);
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private" });
    res.flushHeaders();
    const gate = this.faults.watchStream(
      req.client,
      {
        write: (line) => {
          if (!res.writableEnded) res.write(line);
        },
        end: () => close(),
      },
      () => close(),
    );
    this.open.add(close);
    res.on("close", close);
    const write = (type: string, object: KObj) => gate.push(`${JSON.stringify({ type, object })}\n`);

    const rvParam = req.resourceVersion;
    const fromRv = rvParam && rvParam !== "0" ? Number(rvParam) : undefined;
    if (fromRv !== undefined && !Number.isInteger(fromRv)) {
      write("ERROR", statusBody(400, `invalid resource version: ${rvParam}`, "BadRequest"));
      gate.end();
      return;
    }
    const inScope = (e: StoreEvent) =>
      e.storageKey === def.storageKey &&
      (!def.namespaced || req.namespace === "" || e.namespace === req.namespace);

    const emit = (e: StoreEvent) => {
      if (!inScope(e)) return;
      const now = req.matcher(e.object);
      const before = e.previous !== undefined && req.matcher(e.previous);
      let type: string | undefined;
      if (e.type === "ADDED") type = now ? "ADDED" : undefined;
      else if (e.type === "DELETED") type = before || now ? "DELETED" : undefined;
      else if (now && before) type = "MODIFIED";
      else if (now) type = "ADDED";
      else if (before) type = "DELETED";
      if (type) write(type, shape(engine.present(def, e.object)));
    };

    let replay: StoreEvent[] = [];
    if (fromRv !== undefined && !req.sendInitialEvents) {
      const events = store.eventsSince(fromRv);
      if (!events) {
        write(
          "ERROR",
          statusBody(410, `too old resource version: ${fromRv} (${store.oldestWatchableRv()})`, "Expired"),
        );
        gate.end();
        return;
      }
      replay = events;
    } else {
      for (const obj of store.list(def.storageKey, def.namespaced ? req.namespace : "")) {
        if (req.matcher(obj)) write("ADDED", shape(engine.present(def, obj)));
      }
      if (req.sendInitialEvents && req.allowBookmarks) {
        write("BOOKMARK", this.bookmark(def, { "k8s.io/initial-events-end": "true" }));
      }
    }
    for (const e of replay) emit(e);
    unsubscribe = store.subscribe(emit);

    if (req.allowBookmarks) {
      timers.push(setInterval(() => write("BOOKMARK", this.bookmark(def)), this.bookmarkIntervalMs));
    }
    if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
      // The server's own end: it waits behind held or delayed events, as on the fault proxy.
      timers.push(setTimeout(() => gate.end(), req.timeoutSeconds * 1000));
    }
  }

  private bookmark(def: ResourceDef, annotations?: Record<string, string>): KObj {
    const metadata: KObj = { resourceVersion: String(this.engine.store.currentRv()) };
    if (annotations) metadata.annotations = annotations;
    return { kind: def.kind, apiVersion: groupVersion(def), metadata };
  }
}
