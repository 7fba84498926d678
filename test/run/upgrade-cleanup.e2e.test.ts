// bundle-upgrade and cleanup end to end (tsop/testing + OLM model + real registry).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/common/errors.js";
import { bundleUpgrade, cleanup, runBundle } from "../../src/olm/run/index.js";
import {
  type BundleRegistry,
  failure,
  names,
  type RunEnv,
  startBundleRegistry,
  startRunEnv,
  tsopObjects,
} from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
const CRD = "apiextensions.k8s.io/v1";
const OWNED_CRD = "memcacheds.cache.example.com";
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

async function installed(e: RunEnv) {
  return runBundle({
    ...e.base,
    image: registry.image("0.0.1"),
    namespace: "demo",
    timeoutMs: 30_000,
    reporter: e.reporter,
  });
}

function upgrade(e: RunEnv, extra: Partial<Parameters<typeof bundleUpgrade>[0]> = {}) {
  return bundleUpgrade({
    ...e.base,
    image: registry.image("0.0.2"),
    namespace: "demo",
    timeoutMs: 30_000,
    reporter: e.reporter,
    ...extra,
  });
}

async function registryPods(e: RunEnv): Promise<string[]> {
  return (await names(e.client, "v1", "Pod", "demo")).filter((n) =>
    n.startsWith("memcached-operator-catalog-"),
  );
}

describe("run bundle-upgrade", () => {
  it("upgrades 0.0.1 → 0.0.2: new CSV Succeeded, old CSV replaced, previous registry pod removed", async () => {
    env = await startRunEnv();
    await installed(env);
    const [oldPod] = await registryPods(env);
    const result = await upgrade(env);
    expect(result).toMatchObject({
      packageName: "memcached-operator",
      from: { csv: "memcached-operator.v0.0.1", version: "0.0.1" },
      to: { csv: "memcached-operator.v0.0.2", version: "0.0.2" },
      subscription: "memcached-operator-sub",
    });
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([
      "memcached-operator.v0.0.2",
    ]);
    const csv = await env.client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: "memcached-operator.v0.0.2",
    });
    expect(csv?.status?.phase).toBe("Succeeded");
    expect(csv?.spec?.replaces).toBe("memcached-operator.v0.0.1");
    const pods = await registryPods(env);
    expect(pods).toHaveLength(1);
    expect(pods[0]).not.toBe(oldPod);
    const cs = await env.client.get({
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    });
    expect(
      JSON.parse(cs?.metadata.annotations?.["tsop.dev/bundles"] ?? "[]").map((b: { csv: string }) => b.csv),
    ).toEqual(["memcached-operator.v0.0.1", "memcached-operator.v0.0.2"]);
    expect(cs?.spec?.address).toBe(`${pods[0]}.demo.svc:50051`);
    // Upgrading to the same bundle again is refused.
    const again = await failure(upgrade(env));
    expect(again.message).toContain("the catalog already serves memcached-operator.v0.0.2");
  }, 90_000);

  it("a failing upgrade says why; --rollback-on-failure points the catalog back", async () => {
    env = await startRunEnv();
    await installed(env);
    const before = await env.client.get({
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    });
    env.model.faults.csvFailure.set("demo/memcached-operator.v0.0.2", {
      reason: "InstallComponentFailedNoRetry",
      message: "install strategy failed: deployment is invalid",
    });
    const error = await failure(upgrade(env, { rollbackOnFailure: true }));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain(
      "run bundle-upgrade failed while waiting for the ClusterServiceVersion to succeed",
    );
    expect(error.message).toContain(
      "phase Failed (InstallComponentFailedNoRetry): install strategy failed: deployment is invalid",
    );
    expect(error.message).toContain(
      "rolled CatalogSource memcached-operator-catalog back to the previous bundle set (memcached-operator.v0.0.1)",
    );
    expect(error.message).toContain("OLM already created memcached-operator.v0.0.2");
    const after = await env.client.get({
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    });
    expect(after?.spec?.address).toBe(before?.spec?.address);
    expect(after?.metadata.annotations?.["tsop.dev/bundles"]).toBe(
      before?.metadata.annotations?.["tsop.dev/bundles"],
    );
    expect(await registryPods(env)).toHaveLength(1);
  }, 90_000);

  it("refuses to upgrade from a Failed CSV without fail-forward (OLM would never replace it), changing nothing", async () => {
    env = await startRunEnv();
    env.model.faults.csvFailure.set("demo/memcached-operator.v0.0.1", {
      reason: "InstallCheckFailed",
      message:
        "install failed: deployment memcached-operator-controller-manager has exceeded its progress deadline",
    });
    await failure(
      runBundle({
        ...env.base,
        image: registry.image("0.0.1"),
        namespace: "demo",
        timeoutMs: 30_000,
        reporter: env.reporter,
        keepOnFailure: true,
        csvFailedGraceMs: 300,
      }),
    );
    const catalog = {
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    };
    const before = await env.client.get(catalog);
    const pods = await registryPods(env);
    const error = await failure(upgrade(env));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain(
      "the installed ClusterServiceVersion demo/memcached-operator.v0.0.1 is Failed (InstallCheckFailed: install failed: deployment memcached-operator-controller-manager has exceeded its progress deadline); OLM does not replace a Failed CSV",
    );
    expect(error.hint).toContain("TechPreviewUnsafeFailForward");
    expect(error.hint).toContain("kubectl patch operatorgroup tsop-operatorgroup -n demo");
    const after = await env.client.get(catalog);
    expect(after?.spec?.address).toBe(before?.spec?.address);
    expect(after?.metadata.annotations).toEqual(before?.metadata.annotations);
    expect(await registryPods(env)).toEqual(pods);
  }, 90_000);

  it("refuses a bundle that is not newer, and a package tsop did not install", async () => {
    env = await startRunEnv();
    const none = await failure(upgrade(env));
    expect(none.message).toContain(
      'no Subscription for package "memcached-operator" created by tsop run bundle in namespace "demo"',
    );
    await runBundle({
      ...env.base,
      image: registry.image("0.0.2"),
      namespace: "demo",
      timeoutMs: 30_000,
      reporter: env.reporter,
    });
    const older = await failure(upgrade(env, { image: registry.image("0.0.1") }));
    expect(older.message).toContain(
      "memcached-operator.v0.0.1 (version 0.0.1) is not newer than the installed memcached-operator.v0.0.2 (version 0.0.2)",
    );
  }, 90_000);
});

describe("cleanup", () => {
  it("after success: removes everything tsop created and OLM made for it; shared catalogs stay", async () => {
    env = await startRunEnv();
    await env.client.create({
      apiVersion: OLM,
      kind: "CatalogSource",
      metadata: { name: "shared-catalog", namespace: "demo" },
      spec: { sourceType: "grpc", image: "example.com/catalog:latest" },
    });
    await installed(env);
    const dry = await cleanup({
      ...env.base,
      namespace: "demo",
      packageName: "memcached-operator",
      timeoutMs: 20_000,
      reporter: env.reporter,
      dryRun: true,
    });
    expect(dry.items.filter((i) => i.action === "would delete").map((i) => i.kind)).toEqual([
      "Subscription",
      "InstallPlan",
      "ClusterServiceVersion",
      "CatalogSource",
      "Service",
      "Pod",
      "ConfigMap",
      "OperatorGroup",
    ]);
    expect(dry.items.find((i) => i.name === OWNED_CRD)).toMatchObject({
      action: "kept",
      reason: expect.stringContaining("--delete-crds"),
    });
    expect(await tsopObjects(env.client, "demo")).toHaveLength(6);

    const result = await cleanup({
      ...env.base,
      namespace: "demo",
      packageName: "memcached-operator",
      timeoutMs: 20_000,
      reporter: env.reporter,
      deleteCrds: true,
    });
    expect(result.items.filter((i) => i.action === "deleted").map((i) => i.kind)).toContain(
      "CustomResourceDefinition",
    );
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
    expect(await names(env.client, OLM, "InstallPlan", "demo")).toEqual([]);
    expect(await names(env.client, OLM, "CatalogSource", "demo")).toEqual(["shared-catalog"]);
    const crds = await names(env.client, CRD, "CustomResourceDefinition");
    expect(crds).not.toContain(OWNED_CRD);
    // Nothing of it is left: a second run says the package is not found (and may be cleaned up
    // already) rather than "nothing to clean up", which a misspelt name got too (issue 42).
    const again = await failure(
      cleanup({
        ...env.base,
        namespace: "demo",
        packageName: "memcached-operator",
        timeoutMs: 20_000,
        reporter: env.reporter,
      }),
    );
    expect(again.message).toContain('package "memcached-operator" not found in namespace "demo"');
    expect(again.hint).toContain("cleaned up already");
  }, 90_000);

  it("after a failed run kept with --keep-on-failure, and keeps an OperatorGroup another Subscription uses", async () => {
    env = await startRunEnv();
    await failure(
      runBundle({
        ...env.base,
        image: registry.requires,
        namespace: "demo",
        timeoutMs: 20_000,
        reporter: env.reporter,
        keepOnFailure: true,
      }),
    );
    expect((await tsopObjects(env.client, "demo")).length).toBe(6);
    await env.client.create({
      apiVersion: OLM,
      kind: "Subscription",
      metadata: { name: "other-operator", namespace: "demo" },
      spec: { name: "other-operator", source: "shared", sourceNamespace: "demo", channel: "stable" },
    });
    const result = await cleanup({
      ...env.base,
      namespace: "demo",
      packageName: "memcached-operator",
      timeoutMs: 20_000,
      reporter: env.reporter,
    });
    expect(result.items.find((i) => i.kind === "OperatorGroup")).toMatchObject({
      action: "kept",
      reason: "still used by Subscription(s) other-operator",
    });
    expect(await tsopObjects(env.client, "demo")).toEqual(["OperatorGroup/tsop-operatorgroup"]);
    expect(await names(env.client, OLM, "Subscription", "demo")).toEqual(["other-operator"]);
  }, 90_000);

  it("waits for finalizers with progress and times out naming what is stuck", async () => {
    env = await startRunEnv();
    await installed(env);
    const csvRef = {
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: "memcached-operator.v0.0.1",
    };
    const csv = await env.client.get(csvRef);
    await env.client.mergePatch(csvRef, {
      metadata: { finalizers: [...(csv?.metadata.finalizers ?? []), "example.com/hold"] },
    });
    const error = await failure(
      cleanup({
        ...env.base,
        namespace: "demo",
        packageName: "memcached-operator",
        timeoutMs: 1500,
        reporter: env.reporter,
      }),
    );
    expect(error.exitCode).toBe(ExitCode.timeout);
    expect(error.message).toContain("cleanup of package memcached-operator did not finish");
    expect(error.message).toContain(
      "ClusterServiceVersion demo/memcached-operator.v0.0.1: terminating (finalizers: example.com/hold)",
    );
    expect(env.reporter.text()).toContain(
      "waiting for the objects of package memcached-operator to be deleted",
    );
    await env.client.mergePatch(csvRef, { metadata: { finalizers: [] } });
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
  }, 90_000);

  it("finds the package's CSV after a partial cleanup removed its Subscription and catalog", async () => {
    env = await startRunEnv();
    await installed(env);
    await env.client.delete({
      apiVersion: OLM,
      kind: "Subscription",
      namespace: "demo",
      name: "memcached-operator-sub",
    });
    await env.client.delete({
      apiVersion: OLM,
      kind: "CatalogSource",
      namespace: "demo",
      name: "memcached-operator-catalog",
    });
    const result = await cleanup({
      ...env.base,
      namespace: "demo",
      packageName: "memcached-operator",
      timeoutMs: 20_000,
      reporter: env.reporter,
    });
    expect(result.items.find((i) => i.kind === "ClusterServiceVersion")).toMatchObject({
      name: "memcached-operator.v0.0.1",
      action: "deleted",
    });
    expect(await names(env.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
    expect(await tsopObjects(env.client, "demo")).toEqual([]);
  }, 90_000);
});
