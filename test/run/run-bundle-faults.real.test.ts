// `tsop run bundle` and `tsop cleanup` on the real test bed (real OLM v0.28.0, the real
// kube-apiserver behind the fault proxy) when things go wrong: API 500s and 429s with Retry-After,
// dropped watches, Ctrl-C (SIGINT), a second Ctrl-C, SIGTERM, and kill -9 followed by
// `tsop cleanup`. The fast tier has the same cases against tsop/testing and the OLM model
// (test/run/failures.e2e.test.ts, test/run/interrupt.e2e.test.ts). Only tsop and kubectl go through
// the proxy, so faults hit tsop and never OLM. The oracle for "nothing left" is a kubectl snapshot.
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop, TSOP_BIN } from "../support/cli.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, pushBundle, snapshot, withoutRequiredApis } from "./bed.js";

const NAMESPACES = ["faults", "sigint", "twice", "sigterm", "killed"];
let bed: OlmBed;
let registry: TestRegistry;
let image: string;
let kubeconfig: string[];

beforeAll(async () => {
  registry = await startRegistry();
  bed = await startOlmBed({ namespaces: NAMESPACES });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
  image = await pushBundle(registry, "memcached-faults", "0.0.1", withoutRequiredApis);
}, 600_000);

afterAll(async () => {
  await bed?.stop();
  await registry?.stop();
}, 120_000);

function runArgs(namespace: string): string[] {
  return ["run", "bundle", image, "-n", namespace, "--plain-http", "--timeout", "4m", ...kubeconfig];
}

function cleanupArgs(namespace: string): string[] {
  return [
    "cleanup",
    "memcached-operator",
    "-n",
    namespace,
    "--delete-crds",
    "--timeout",
    "3m",
    ...kubeconfig,
  ];
}

/** What is in the cluster now and was not in `before`, polled until nothing (OLM's GC takes a moment). */
async function leftovers(before: Set<string>): Promise<string[]> {
  let left: string[] = [];
  for (const deadline = Date.now() + 90_000; Date.now() < deadline;) {
    left = added(before, await snapshot(bed.cluster.kubeconfigPath));
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return left;
}

/** The built CLI as a child process, with its stderr collected and a way to wait for a line. */
function start(args: string[]): {
  child: ResultPromise;
  stderr: () => string;
  seen: (text: string) => Promise<void>;
} {
  const child = execa(process.execPath, [TSOP_BIN, ...args], { env: { NO_COLOR: "1" }, reject: false });
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiters.filter((w) => stderr.includes(w.text))) w.resolve();
  });
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (stderr.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void child.then(() => reject(new Error(`tsop ended before printing "${text}":\n${stderr}`)));
    });
  return { child, stderr: () => stderr, seen };
}

// Signalled once tsop has created its objects and OLM is resolving (unpack Job, InstallPlan).
const MID_RUN = "waiting for Subscription";

describe("real OLM: run bundle and cleanup under API faults", () => {
  it("500s, 429s with Retry-After and dropped watches: the run and the cleanup retry, re-list and succeed", async () => {
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const { faults } = bed.cluster;
    // Creates tsop makes on every run: its catalog ConfigMaps, the CatalogSource, the Subscription.
    faults.add({ method: "POST", path: /\/catalogsources$/, status: 500, count: 2 });
    faults.add({ method: "POST", path: /\/subscriptions$/, status: 429, count: 2, retryAfterSeconds: 1 });
    faults.add({ method: "POST", path: /\/configmaps$/, status: 503, count: 1 });
    const dropper = setInterval(() => bed.cluster.closeWatches(), 700);
    let run;
    try {
      run = await runTsop(runArgs("faults"), { timeoutMs: 270_000 });
    } finally {
      clearInterval(dropper);
    }
    const injected = faults.injected;
    faults.clear();
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("OLM installed memcached-operator.v0.0.1 in namespace faults");
    // Every fault fired (the proxy answered them; the apiserver never saw those requests).
    expect(injected).toBe(5);
    const csv = await execa(
      "kubectl",
      ["get", "csv", "-n", "faults", "memcached-operator.v0.0.1", "-o", "jsonpath={.status.phase}"],
      { env: { KUBECONFIG: bed.cluster.kubeconfigPath } },
    );
    expect(csv.stdout).toBe("Succeeded");

    faults.add({ method: "DELETE", path: /\/subscriptions\//, status: 500, count: 2 });
    faults.add({ method: "DELETE", path: /\/catalogsources\//, status: 429, count: 1, retryAfterSeconds: 1 });
    faults.add({ method: "GET", path: /\/subscriptions$/, status: 503, count: 1 });
    const dropper2 = setInterval(() => bed.cluster.closeWatches(), 700);
    let cleanup;
    try {
      cleanup = await runTsop(cleanupArgs("faults"), { timeoutMs: 200_000 });
    } finally {
      clearInterval(dropper2);
    }
    const injectedCleanup = faults.injected - injected;
    faults.clear();
    expect(cleanup.exitCode, cleanup.stderr).toBe(0);
    expect(injectedCleanup).toBeGreaterThanOrEqual(3);
    expect(await leftovers(before)).toEqual([]);
  }, 600_000);
});

describe("real OLM: run bundle stopped by signals", () => {
  it("SIGINT mid-run: removes what it created, exit 130, nothing left", async () => {
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = start(runArgs("sigint"));
    await run.seen(MID_RUN);
    run.child.kill("SIGINT");
    const done = await run.child;
    expect(run.stderr()).toContain("interrupted: removing what this run created");
    expect(done.exitCode, run.stderr()).toBe(130);
    expect(await leftovers(before)).toEqual([]);
  }, 300_000);

  it("a second SIGINT during the rollback stops at once, names what is left; cleanup removes it", async () => {
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = start(runArgs("twice"));
    await run.seen(MID_RUN);
    // Deletes are slow now, so the second SIGINT lands while the rollback still runs.
    bed.cluster.faults.latency(5_000, { method: "DELETE" });
    run.child.kill("SIGINT");
    await run.seen("interrupted: removing what this run created");
    run.child.kill("SIGINT");
    const done = await run.child;
    bed.cluster.faults.clear();
    expect(done.exitCode, run.stderr()).toBe(130);
    expect(run.stderr()).toContain("stopped at once; left behind (remove with: tsop cleanup <package>):");
    expect(run.stderr()).toMatch(/ {2}- CatalogSource twice\/memcached-operator-catalog/);
    // Stopped at once: the rollback did not finish, so some of what the run created is still there.
    expect(added(before, await snapshot(bed.cluster.kubeconfigPath))).not.toEqual([]);
    const cleanup = await runTsop(cleanupArgs("twice"), { timeoutMs: 200_000 });
    expect(cleanup.exitCode, cleanup.stderr).toBe(0);
    expect(await leftovers(before)).toEqual([]);
  }, 300_000);

  it("SIGTERM mid-run: treated like Ctrl-C, exit 143, nothing left", async () => {
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = start(runArgs("sigterm"));
    await run.seen(MID_RUN);
    run.child.kill("SIGTERM");
    const done = await run.child;
    expect(run.stderr()).toContain("interrupted: removing what this run created");
    expect(done.exitCode, run.stderr()).toBe(143);
    expect(await leftovers(before)).toEqual([]);
  }, 300_000);

  it("kill -9 mid-run leaves objects; tsop cleanup <package> then leaves none", async () => {
    const before = await snapshot(bed.cluster.kubeconfigPath);
    const run = start(runArgs("killed"));
    await run.seen(MID_RUN);
    run.child.kill("SIGKILL");
    const done = await run.child;
    expect(done.signal).toBe("SIGKILL");
    // Nothing could clean up: tsop's objects are still there.
    const now = await snapshot(bed.cluster.kubeconfigPath);
    expect(added(before, now)).toContain("CatalogSource killed/memcached-operator-catalog");
    expect(added(before, now)).toContain("Subscription killed/memcached-operator-sub");
    const cleanup = await runTsop(cleanupArgs("killed"), { timeoutMs: 200_000 });
    expect(cleanup.exitCode, cleanup.stderr).toBe(0);
    expect(await leftovers(before)).toEqual([]);
  }, 300_000);
});
