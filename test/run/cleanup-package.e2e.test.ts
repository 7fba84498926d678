// `tsop cleanup` as the first hour met it (issue 42): a misspelt package is an error naming it, with
// "did you mean" from what is installed, not "nothing to clean up" with an OperatorGroup row; after
// a plain cleanup, the advice it prints (--delete-crds) works; and --delete-crds deletes custom
// resources in the foreground, so what they own is gone before the CRD goes (else the garbage
// collector cannot resolve the owner once its kind is gone, and the Deployments stay for good).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBundle } from "../../src/olm/run/index.js";
import { runTsop } from "../support/cli.js";
import { type BundleRegistry, type RunEnv, startBundleRegistry, startRunEnv } from "./harness.js";

const CRD_REF = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "memcacheds.cache.example.com",
};
const CR = { apiVersion: "cache.example.com/v1alpha1", kind: "Memcached", namespace: "demo", name: "sample" };
const OWNED = { apiVersion: "apps/v1", kind: "Deployment", namespace: "demo", name: "sample-memcached" };
let registry: BundleRegistry;
let env: RunEnv | undefined;

beforeAll(async () => {
  registry = await startBundleRegistry();
}, 60_000);
afterAll(async () => {
  await registry?.stop();
});
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

async function install(e: RunEnv): Promise<void> {
  await runBundle({
    ...e.base,
    image: registry.image("0.0.1"),
    namespace: "demo",
    timeoutMs: 30_000,
    reporter: e.reporter,
  });
}

const cleanup = (e: RunEnv, pkg: string, ...extra: string[]) =>
  runTsop([
    "cleanup",
    pkg,
    "--kubeconfig",
    e.cluster.kubeconfigPath,
    "-n",
    "demo",
    "--timeout",
    "30s",
    ...extra,
  ]);

describe("tsop cleanup names the package", () => {
  it("a misspelt package: exit 1 naming it, did you mean the installed one, nothing deleted", async () => {
    env = await startRunEnv();
    await install(env);
    const typo = await cleanup(env, "memcached-operatr");
    expect(typo.exitCode).toBe(1);
    expect(typo.stderr).toContain('package "memcached-operatr" not found in namespace "demo"');
    expect(typo.stderr).toContain('did you mean "memcached-operator"?');
    expect(typo.stderr).not.toContain("nothing to clean up");
    expect(typo.stdout).not.toContain("OperatorGroup");
    // The installed one is untouched.
    const csv = {
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "ClusterServiceVersion",
      namespace: "demo",
    };
    expect((await env.client.list(csv.apiVersion, csv.kind, { namespace: "demo" })).items).toHaveLength(1);
  }, 90_000);

  it("after a plain cleanup, the advice it printed (--delete-crds) deletes the CRD it kept", async () => {
    env = await startRunEnv();
    await install(env);
    const plain = await cleanup(env, "memcached-operator");
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(
      /CustomResourceDefinition\s+memcacheds.cache.example.com\s+kept \(.*--delete-crds/,
    );
    expect(await env.client.get(CRD_REF)).toBeDefined();

    const crds = await cleanup(env, "memcached-operator", "--delete-crds");
    expect(crds.exitCode, crds.stderr).toBe(0);
    expect(crds.stderr).not.toContain("nothing to clean up");
    expect(crds.stdout).toMatch(/CustomResourceDefinition\s+memcacheds.cache.example.com\s+deleted/);
    expect(await env.client.get(CRD_REF)).toBeUndefined();

    // Nothing of it is left now: the package is not found, and the error says it may be gone already.
    const again = await cleanup(env, "memcached-operator");
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('package "memcached-operator" not found in namespace "demo"');
    expect(again.stderr).toContain("cleaned up already");
  }, 120_000);
});

describe("tsop cleanup --delete-crds deletes custom resources in the foreground", () => {
  it("each custom resource goes after what it owns, and before its CRD", async () => {
    env = await startRunEnv();
    await install(env);
    const cr = await env.client.create({
      ...CR,
      metadata: { name: CR.name, namespace: CR.namespace },
      spec: { size: 1 },
    });
    // What the operator made for it, held a moment by a finalizer of its own (released below).
    await env.client.create({
      apiVersion: OWNED.apiVersion,
      kind: OWNED.kind,
      metadata: {
        name: OWNED.name,
        namespace: OWNED.namespace,
        finalizers: ["test.tsop.dev/hold"],
        ownerReferences: [
          {
            apiVersion: CR.apiVersion,
            kind: CR.kind,
            name: CR.name,
            uid: cr.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "m" } },
        template: {
          metadata: { labels: { app: "m" } },
          spec: { containers: [{ name: "m", image: "memcached:1.6" }] },
        },
      },
    });
    const seen: string[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const live = await env!.client.get(CR).catch(() => undefined);
        for (const f of live?.metadata.finalizers ?? []) if (!seen.includes(f)) seen.push(f);
        const owned = await env!.client.get(OWNED).catch(() => undefined);
        // The operator's part: once the garbage collector deletes it, release it.
        if (owned?.metadata.deletionTimestamp)
          await env!.client.mergePatch(OWNED, { metadata: { finalizers: null } }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      const result = await cleanup(env, "memcached-operator", "--delete-crds");
      expect(result.exitCode, result.stderr).toBe(0);
    } finally {
      watching = false;
      await watch;
    }
    // Foreground: the API server held the custom resource with foregroundDeletion until its
    // Deployment was gone.
    expect(seen).toContain("foregroundDeletion");
    expect(await env.client.get(OWNED).catch(() => undefined)).toBeUndefined();
    expect(await env.client.get(CR).catch(() => undefined)).toBeUndefined();
    expect(await env.client.get(CRD_REF)).toBeUndefined();
  }, 120_000);
});
