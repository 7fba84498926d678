// The probe server's handler, as controller-runtime's healthz: /healthz and /readyz run every
// check, /healthz/<name> and /readyz/<name> one (404 for a name not registered), ?exclude=<name>
// (repeatable) leaves checks out, ?verbose lists each check even when all pass.
import type { IncomingMessage, ServerResponse } from "node:http";

export type Check = () => boolean | string | undefined | Promise<boolean | string | undefined>;

export type ProbeKind = "health" | "ready";

const ENDPOINTS: Record<string, ProbeKind> = { healthz: "health", readyz: "ready" };

export async function runChecks(checks: Map<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    let result: boolean | string | undefined;
    try {
      result = await check();
    } catch (err) {
      result = (err as Error).message;
    }
    const passed = result === true || result === undefined;
    ok &&= passed;
    lines.push(
      passed ? `[+]${name} ok` : `[-]${name} failed${typeof result === "string" ? `: ${result}` : ""}`,
    );
  }
  return { ok, lines };
}

/** An http request handler over the checks of each kind (built per request: checks come and go). */
export function probeHandler(checksOf: (kind: ProbeKind) => Map<string, Check>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://probe");
    const [endpoint, name, ...rest] = url.pathname.split("/").filter(Boolean);
    const kind = endpoint === undefined ? undefined : ENDPOINTS[endpoint];
    const text = (status: number, body: string) =>
      res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(body);
    if (!kind || rest.length > 0) return void text(404, "not found\n");
    let checks = checksOf(kind);
    if (name !== undefined) {
      const one = checks.get(name);
      if (!one)
        return void text(
          404,
          `no ${endpoint} check named "${name}"; known: ${[...checks.keys()].join(", ")}\n`,
        );
      checks = new Map([[name, one]]);
    } else {
      for (const excluded of url.searchParams.getAll("exclude")) checks.delete(excluded);
    }
    void runChecks(checks).then(({ ok, lines }) => {
      const verbose = url.searchParams.has("verbose") || !ok;
      text(
        ok ? 200 : 500,
        verbose ? `${lines.join("\n")}\n${endpoint} check ${ok ? "passed" : "failed"}\n` : "ok",
      );
    });
  };
}
