// The metrics filter's cache, against a recording stand-in for the API server's review endpoints
// and a hand-driven clock: answers are reused for controller-runtime's TTLs (token reviews 1 min,
// allowing access reviews 5 min, denying ones 30 s), a failed call is not kept, and concurrent
// scrapes with one token share one review.
import { describe, expect, it } from "vitest";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsAuthorizer } from "../../src/runtime/metrics/metrics-auth.js";
import type { RestClient } from "../../src/runtime/connect/rest.js";

interface Call {
  path: string;
  body: { spec: Record<string, unknown> };
}

function fakeServer(decide: { token: (t: string) => string | undefined; allow: (user: string) => boolean }) {
  const calls: Call[] = [];
  let failNext = false;
  const rest = {
    async request(_method: string, path: string, options: { body: Call["body"] }) {
      calls.push({ path, body: options.body });
      if (failNext) {
        failNext = false;
        throw new Error("connection refused");
      }
      if (path.endsWith("/tokenreviews")) {
        const user = decide.token(String(options.body.spec.token));
        return { status: user ? { authenticated: true, user: { username: user, groups: ["g"] } } : {} };
      }
      return { status: { allowed: decide.allow(String(options.body.spec.user)) } };
    },
  } as unknown as RestClient;
  return { rest, calls, failNext: () => (failNext = true) };
}

const quiet = new Logger({ sink: { write: () => {} } });

describe("MetricsAuthorizer", () => {
  it("reuses reviews for their TTLs and asks again after", async () => {
    let now = 0;
    const server = fakeServer({
      token: (t) => ({ good: "reader", denied: "nobody" })[t],
      allow: (user) => user === "reader",
    });
    const auth = new MetricsAuthorizer(server.rest, quiet, { now: () => now });
    const count = (resource: string) => server.calls.filter((c) => c.path.endsWith(resource)).length;

    expect(await auth.check("Bearer good", "GET", "/metrics")).toEqual({ allowed: true, user: "reader" });
    expect(server.calls[1]!.body.spec).toEqual({
      user: "reader",
      groups: ["g", "system:authenticated"],
      nonResourceAttributes: { path: "/metrics", verb: "get" },
    });
    expect((await auth.check("Bearer denied", "GET", "/metrics")).allowed).toBe(false);
    expect([count("tokenreviews"), count("subjectaccessreviews")]).toEqual([2, 2]);

    now = 29_000; // every answer still fresh
    await auth.check("Bearer good", "GET", "/metrics");
    await auth.check("Bearer denied", "GET", "/metrics");
    expect([count("tokenreviews"), count("subjectaccessreviews")]).toEqual([2, 2]);

    now = 31_000; // the denial expired, nothing else
    await auth.check("Bearer denied", "GET", "/metrics");
    expect([count("tokenreviews"), count("subjectaccessreviews")]).toEqual([2, 3]);

    now = 61_000; // the token reviews expired; the allowing access review did not
    await auth.check("Bearer good", "GET", "/metrics");
    expect([count("tokenreviews"), count("subjectaccessreviews")]).toEqual([3, 3]);

    now = 301_000; // the allowing access review expired too
    await auth.check("Bearer good", "GET", "/metrics");
    expect([count("tokenreviews"), count("subjectaccessreviews")]).toEqual([4, 4]);
  });

  it("does not keep a failed review, and shares one review between concurrent scrapes", async () => {
    const server = fakeServer({ token: () => "reader", allow: () => true });
    const auth = new MetricsAuthorizer(server.rest, quiet);
    server.failNext();
    expect(await auth.check("Bearer t", "GET", "/metrics")).toEqual({
      allowed: false,
      status: 500,
      message: "Authentication failed",
    });
    const answers = await Promise.all([1, 2, 3].map(() => auth.check("Bearer t", "GET", "/metrics")));
    expect(answers.every((a) => a.allowed)).toBe(true);
    expect(server.calls.map((c) => c.path.split("/").pop())).toEqual([
      "tokenreviews",
      "tokenreviews",
      "subjectaccessreviews",
    ]);
  });
});
