// On-demand profiles, as Go's net/http/pprof: /debug/pprof/profile?seconds=N answers a CPU profile
// (.cpuprofile JSON, for Chrome DevTools or speedscope), /debug/pprof/heap a heap snapshot
// (.heapsnapshot). node:inspector is loaded on the first request only, so the library stays light.
import type { ServerResponse } from "node:http";

export const PROFILE_PATH = "/debug/pprof/profile";
export const HEAP_PATH = "/debug/pprof/heap";
const MAX_SECONDS = 300;

type Session = import("node:inspector").Session;

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))),
  );
}

async function withSession<T>(run: (session: Session) => Promise<T>): Promise<T> {
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  try {
    return await run(session);
  } finally {
    session.disconnect();
  }
}

/** Serves a profiling path; false when `path` is not one. */
export async function serveProfile(
  path: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<boolean> {
  if (path === PROFILE_PATH) {
    const seconds = Number(query.get("seconds") ?? "30");
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_SECONDS) {
      res
        .writeHead(400, { "Content-Type": "text/plain; charset=utf-8" })
        .end(`seconds must be a number above 0 and at most ${MAX_SECONDS}, got "${query.get("seconds")}"\n`);
      return true;
    }
    const profile = await withSession(async (session) => {
      await post(session, "Profiler.enable");
      await post(session, "Profiler.start");
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const { profile } = await post<{ profile: unknown }>(session, "Profiler.stop");
      return profile;
    });
    res
      .writeHead(200, {
        "Content-Type": "application/json",
        "Content-Disposition": 'attachment; filename="profile.cpuprofile"',
      })
      .end(JSON.stringify(profile));
    return true;
  }
  if (path === HEAP_PATH) {
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Content-Disposition": 'attachment; filename="heap.heapsnapshot"',
    });
    await withSession(async (session) => {
      session.on("HeapProfiler.addHeapSnapshotChunk", (m: { params: { chunk: string } }) =>
        res.write(m.params.chunk),
      );
      await post(session, "HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    });
    res.end();
    return true;
  }
  return false;
}
