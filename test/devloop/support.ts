// Helpers of the dev-loop tests: a client on the test cluster, `tsop run local` in the background
// (stderr collected, waits on its lines), waits on cluster state, and a snapshot of every object
// the API server lists (to prove deploy + undeploy leave the cluster as it was).
import { execa, type ResultPromise } from "execa";
import { KubeClient } from "../../src/kube/client.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { TSOP_BIN } from "../support/cli.js";

export async function clientFor(kubeconfigPath: string): Promise<KubeClient> {
  return KubeClient.connect({ kubeconfig: kubeconfigPath, env: {} });
}

export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Background {
  process: ResultPromise;
  stderr(): string;
  stdout(): string;
  /** Resolves once stderr has matched `pattern` `count` times. */
  waitFor(pattern: RegExp, count?: number, timeoutMs?: number): Promise<void>;
}

/** `tsop <args>` started in the background in `cwd`. */
export function startTsop(args: string[], cwd: string, env: Record<string, string> = {}): Background {
  let err = "";
  let out = "";
  const child = execa(process.execPath, [TSOP_BIN, ...args], {
    cwd,
    env: { NO_COLOR: "1", LOG_FORMAT: "json", ...env },
    reject: false,
  });
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return {
    process: child,
    stderr: () => err,
    stdout: () => out,
    waitFor: (pattern, count = 1, timeoutMs = 120_000) =>
      eventually(
        `${pattern} in tsop's stderr:\n${err}`,
        async () => ([...err.matchAll(new RegExp(pattern.source, "g"))].length >= count ? true : undefined),
        timeoutMs,
      ).then(() => undefined),
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kinds whose objects change on their own in a live cluster (heartbeats): compared by name only. */
const VOLATILE = new Set(["Lease", "EndpointSlice", "Endpoints", "Node"]);
/** Records, not state: left out. */
const RECORDS = new Set(["Event"]);

/** An object without what the server rewrites on any write (resourceVersion, managedFields, status). */
function canonical(obj: KubeObject): string {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  const { status: _status, ...rest } = obj;
  return JSON.stringify({ ...rest, metadata }, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Every listable object, as "apiVersion kind ns/name" → its content (compare two to see any change). */
export async function snapshot(client: KubeClient): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { apiVersion, kind } of await listableKinds(client)) {
    if (RECORDS.has(kind)) continue;
    const { items } = await client.list(apiVersion, kind, { namespace: "" }).catch(async (error: unknown) => {
      // A kind can leave discovery between the listing of kinds and its get (a CRD deleted): then
      // it has no objects. Any other failure is the test's to see.
      const still = await listableKinds(client);
      if (still.some((k) => k.apiVersion === apiVersion && k.kind === kind)) throw error;
      return { items: [] as KubeObject[] };
    });
    for (const item of items) {
      const key = `${apiVersion} ${kind} ${item.metadata.namespace ?? ""}/${item.metadata.name ?? ""}`;
      out.set(key, VOLATILE.has(kind) ? "" : canonical(item));
    }
  }
  return out;
}

async function listableKinds(client: KubeClient): Promise<Array<{ apiVersion: string; kind: string }>> {
  const get = async (path: string) =>
    (await client.callWithStatus({ method: "GET", path, verb: "get", resource: "discovery" })).body as Record<
      string,
      unknown
    >;
  const versions = ["v1"];
  const groups = (await get("/apis")).groups as Array<{ preferredVersion: { groupVersion: string } }>;
  versions.push(...groups.map((g) => g.preferredVersion.groupVersion));
  const kinds: Array<{ apiVersion: string; kind: string }> = [];
  for (const gv of versions) {
    const doc = await get(gv === "v1" ? "/api/v1" : `/apis/${gv}`);
    for (const r of (doc.resources ?? []) as Array<{ name: string; kind: string; verbs: string[] }>) {
      if (!r.name.includes("/") && r.verbs.includes("list")) kinds.push({ apiVersion: gv, kind: r.kind });
    }
  }
  return kinds;
}
