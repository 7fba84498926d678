// `tsop cleanup --delete-crds` when a custom resource carries the operator's finalizer: custom
// resources go first, while the operator still runs to release them; if one is never released,
// cleanup stops before removing the operator and the CRD, names the resource and how to release
// it, and a second run says the same (never "nothing to clean up"). -o json always prints a result.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBundle } from "../../src/olm/run/index.js";
import { runTsop } from "../support/cli.js";
import { type BundleRegistry, names, type RunEnv, startBundleRegistry, startRunEnv } from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
const CRD_REF = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "memcacheds.cache.example.com",
};
const CR = { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached", namespace: "demo", name: "sample" };
const FINALIZER = "cache.example.com/finalizer";
let registry: BundleRegistry;
let env: RunEnv | undefined;
let stopOperator: (() => void) | undefined;

beforeAll(async () => {
  registry = await startBundleRegistry();
}, 60_000);
afterAll(async () => {
  await registry?.stop();
});
afterEach(async () => {
  stopOperator?.();
  await env?.stop();
  env = undefined;
});

async function installWithResource(e: RunEnv): Promise<void> {
  await runBundle({
    ...e.base,
    image: registry.image("0.0.1"),
    namespace: "demo",
    timeoutMs: 30_000,
    reporter: e.reporter,
  });
  await e.client.create({
    apiVersion: CR.apiVersion,
    kind: CR.kind,
    metadata: { name: CR.name, namespace: CR.namespace, finalizers: [FINALIZER] },
    spec: { size: 1 },
  });
}

/** The operator's part, played by the test: release the finalizer of a deleted CR while its CSV exists. */
function runOperator(e: RunEnv): () => void {
  const timer = setInterval(() => {
    void (async () => {
      const csvs = await names(e.client, OLM, "ClusterServiceVersion", "demo");
      if (csvs.length === 0) return;
      const cr = await e.client.get(CR).catch(() => undefined);
      if (cr?.metadata.deletionTimestamp && cr.metadata.finalizers?.includes(FINALIZER)) {
        await e.client.mergePatch(CR, { metadata: { finalizers: null } }).catch(() => undefined);
      }
    })();
  }, 100);
  return () => clearInterval(timer);
}

const cleanupArgs = (e: RunEnv, extra: string[] = []) => [
  "cleanup",
  "memcached-operator",
  "--delete-crds",
  "--kubeconfig",
  e.cluster.kubeconfigPath,
  "-n",
  "demo",
  ...extra,
];

describe("cleanup --delete-crds with a custom resource holding the operator's finalizer", () => {
  it("deletes the custom resources while the operator runs, then the operator and the CRD", async () => {
    env = await startRunEnv();
    await installWithResource(env);
    stopOperator = runOperator(env);
    const r = await runTsop(cleanupArgs(env, ["--timeout", "30s"]));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Memcached\s+demo\s+sample\s+deleted/);
    expect(await env.client.get(CR).catch(() => undefined)).toBeUndefined();
    expect(await env.client.get(CRD_REF)).toBeUndefined();
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
  }, 90_000);

  it("names the blocking resource and how to release it, keeps the operator, and says it again", async () => {
    env = await startRunEnv();
    await installWithResource(env);
    const first = await runTsop(cleanupArgs(env, ["--timeout", "3s", "-o", "json"]));
    expect(first.exitCode).toBe(3);
    expect(first.stderr).toContain(
      "Memcached demo/sample: waiting for finalizer(s) cache.example.com/finalizer",
    );
    expect(first.stderr).toContain(
      `release: kubectl patch memcacheds.cache.example.com sample -n demo --type=merge -p '{"metadata":{"finalizers":null}}'`,
    );
    // A result on stdout even though it failed.
    expect(JSON.parse(first.stdout)).toMatchObject({
      packageName: "memcached-operator",
      failed: true,
      exitCode: 3,
    });
    // The operator and its CRD are still there (not Terminating), so a second run finds them.
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([
      "memcached-operator.v0.0.1",
    ]);
    expect((await env.client.get(CRD_REF))?.metadata.deletionTimestamp).toBeUndefined();
    const second = await runTsop(cleanupArgs(env, ["--timeout", "3s"]));
    expect(second.exitCode).toBe(3);
    expect(second.stderr).not.toContain("nothing to clean up");
    expect(second.stderr).toContain("Memcached demo/sample");
  }, 90_000);
});
