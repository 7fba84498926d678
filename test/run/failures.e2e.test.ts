// run bundle failures: each asserts the phase and OLM's diagnostics in the message, the exit code,
// and that nothing tsop created is left behind.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/common/errors.js";
import { OPM_IMAGE } from "../../src/common/pins.js";
import { runBundle } from "../../src/olm/run/index.js";
import type { RunBundleOptions } from "../../src/olm/run/run-bundle.js";
import {
  type BundleRegistry,
  failure,
  runOptions,
  names,
  type RunEnv,
  startBundleRegistry,
  startRunEnv,
  tsopObjects,
} from "./harness.js";

const OLM = "operators.coreos.com/v1alpha1";
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

function options(e: RunEnv, extra: Partial<RunBundleOptions> = {}): RunBundleOptions {
  return runOptions(e, registry.image("0.0.1"), { timeoutMs: 20_000, ...extra });
}

/** Nothing tsop created, and nothing OLM made for it, is left in the namespace. */
async function expectClean(e: RunEnv): Promise<void> {
  expect(await tsopObjects(e.client, "demo")).toEqual([]);
  expect(await names(e.client, OLM, "ClusterServiceVersion", "demo")).toEqual([]);
  expect(await names(e.client, OLM, "InstallPlan", "demo")).toEqual([]);
  expect(await names(e.client, "apiextensions.k8s.io/v1", "CustomResourceDefinition")).not.toContain(
    "memcacheds.cache.example.com",
  );
}

describe("run bundle failures", () => {
  it("registry pod ImagePullBackOff: fails fast naming the container, removes the catalog", async () => {
    env = await startRunEnv();
    env.cluster.markImageUnpullable(OPM_IMAGE);
    const error = await failure(runBundle(options(env)));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain("run bundle failed while waiting for the registry pod");
    expect(error.message).toMatch(/container registry-grpc is waiting: (ErrImagePull|ImagePullBackOff)/);
    expect(error.hint).toContain("--index-image");
    expect(error.message).toContain("removed the");
    await expectClean(env);
  }, 60_000);

  it("bundle image not pullable by the cluster: fails on OLM's unpack pod state with a pull-secret hint", async () => {
    env = await startRunEnv();
    env.cluster.markImageUnpullable(registry.image("0.0.1"));
    const error = await failure(runBundle(options(env)));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain("run bundle failed while waiting for the Subscription to resolve");
    expect(error.message).toMatch(/unpacking the bundle: .*container\(pull\).*ImagePullBackOff/);
    expect(error.hint).toContain("--pull-secret-name");
    await expectClean(env);
  }, 60_000);

  it("catalog never READY: times out with the CatalogSource state and the registry pod", async () => {
    env = await startRunEnv();
    env.model.faults.catalogState.set("demo/memcached-operator-catalog", "TRANSIENT_FAILURE");
    const error = await failure(runBundle(options(env, { timeoutMs: 3000 })));
    expect(error.exitCode).toBe(ExitCode.timeout);
    expect(error.message).toContain("run bundle failed while waiting for the CatalogSource to be READY");
    expect(error.message).toContain("connection TRANSIENT_FAILURE");
    expect(error.message).toMatch(
      /event Warning ConnectionStateChanged: catalog memcached-operator-catalog is TRANSIENT_FAILURE/,
    );
    expect(error.message).toMatch(/Pod demo\/memcached-operator-catalog-\w+:\n/);
    expect(error.message).toMatch(/pod memcached-operator-catalog-\w+: Running/);
    await expectClean(env);
  }, 60_000);

  it("a required API no catalog provides: OLM's ConstraintsNotSatisfiable message, exit 4", async () => {
    env = await startRunEnv();
    const error = await failure(runBundle(runOptions(env, registry.requires, { timeoutMs: 20_000 })));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain("run bundle failed while waiting for the Subscription to resolve");
    expect(error.message).toContain("resolution failed (ConstraintsNotSatisfiable)");
    // The words real OLM uses (test/run/run-bundle.real.test.ts asserts the same on the real bed).
    expect(error.message).toContain(
      "bundle memcached-operator.v0.0.1 requires an operator providing an API with group: cert.example.com, version: v1, kind: Certificate",
    );
    await expectClean(env);
  }, 60_000);

  it("CSV Failed (RequirementsNotMet): waits out OLM's retries, then fails with the reason", async () => {
    env = await startRunEnv();
    env.model.faults.csvFailure.set("demo/memcached-operator.v0.0.1", {
      reason: "RequirementsNotMet",
      message: "one or more requirements couldn't be found",
    });
    const error = await failure(runBundle(options(env, { csvFailedGraceMs: 600 })));
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(error.message).toContain(
      "run bundle failed while waiting for the ClusterServiceVersion to succeed",
    );
    expect(error.message).toContain(
      "phase Failed (RequirementsNotMet): one or more requirements couldn't be found (still Failed after 600ms)",
    );
    expect(env.reporter.text()).toContain("OLM may retry");
    await expectClean(env);
  }, 60_000);

  it("the rollback also removes the ClusterRoles OLM made for the OperatorGroup the run created", async () => {
    // Real OLM makes admin/edit/view ClusterRoles for each OperatorGroup and deletes them on the
    // group's delete event, missing one it made just before (a real-tier run was left with one).
    // The model makes none: here they are made as OLM would once the run's group appears, beside
    // one of another namespace's group of the same name, which must stay.
    env = await startRunEnv();
    const e = env;
    e.model.faults.csvFailure.set("demo/memcached-operator.v0.0.1", {
      reason: "RequirementsNotMet",
      message: "one or more requirements couldn't be found",
    });
    const role = (name: string, namespace: string) => ({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name,
        labels: {
          "olm.owner": "tsop-operatorgroup",
          "olm.owner.kind": "OperatorGroup",
          "olm.owner.namespace": namespace,
        },
      },
      rules: [],
    });
    await e.client.create(role("olm.og.tsop-operatorgroup.view-other", "other"));
    const group = {
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      namespace: "demo",
      name: "tsop-operatorgroup",
    };
    const run = failure(runBundle(options(e, { csvFailedGraceMs: 600 })));
    for (let i = 0; i < 400 && !(await e.client.get(group).catch(() => undefined)); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const verb of ["admin", "edit", "view"])
      await e.client.create(role(`olm.og.tsop-operatorgroup.${verb}-demo`, "demo"));
    const error = await run;
    expect(error.exitCode).toBe(ExitCode.installFailed);
    expect(await names(e.client, "rbac.authorization.k8s.io/v1", "ClusterRole")).toEqual(
      expect.not.arrayContaining([expect.stringMatching(/-demo$/)]),
    );
    expect(await names(e.client, "rbac.authorization.k8s.io/v1", "ClusterRole")).toContain(
      "olm.og.tsop-operatorgroup.view-other",
    );
    await expectClean(e);
  }, 60_000);

  it("deployment never available: times out with the deployment's pods and their waiting reasons", async () => {
    env = await startRunEnv();
    env.cluster.markImageUnpullable("registry.example.com/memcached-operator:v0.0.1");
    const error = await failure(runBundle(options(env, { timeoutMs: 10_000 })));
    expect(error.exitCode).toBe(ExitCode.timeout);
    expect(error.message).toContain(
      "run bundle failed while waiting for the ClusterServiceVersion to succeed",
    );
    expect(error.message).toContain("(--timeout 10s)");
    expect(error.message).toContain("phase Installing (InstallWaiting)");
    expect(error.message).toContain("deployment memcached-operator-controller-manager:");
    expect(error.message).toMatch(/container manager waiting: (ErrImagePull|ImagePullBackOff)/);
    await expectClean(env);
  }, 60_000);

  it("--keep-on-failure leaves what it created and says so", async () => {
    env = await startRunEnv();
    env.model.faults.catalogState.set("demo/memcached-operator-catalog", "TRANSIENT_FAILURE");
    const error = await failure(runBundle(options(env, { timeoutMs: 1500, keepOnFailure: true })));
    expect(error.message).toContain(
      "kept what this run created (--keep-on-failure): CatalogSource demo/memcached-operator-catalog",
    );
    expect(await names(env.client, OLM, "CatalogSource", "demo")).toEqual(["memcached-operator-catalog"]);
  }, 60_000);

  it("survives API 500s, 429s and dropped watches during the run", async () => {
    env = await startRunEnv();
    env.cluster.faults.add({ path: /catalogsources/, status: 500, count: 3 });
    env.cluster.faults.add({
      method: "POST",
      path: /subscriptions/,
      status: 429,
      count: 2,
      retryAfterSeconds: 0,
    });
    env.cluster.faults.add({ method: "PATCH", path: /installplans/, status: 503, count: 2 });
    const dropper = setInterval(() => env?.cluster.closeWatches(), 300);
    try {
      const result = await runBundle(options(env));
      expect(result.csv).toBe("memcached-operator.v0.0.1");
    } finally {
      clearInterval(dropper);
    }
    const csv = await env.client.get({
      apiVersion: OLM,
      kind: "ClusterServiceVersion",
      namespace: "demo",
      name: "memcached-operator.v0.0.1",
    });
    expect(csv?.status?.phase).toBe("Succeeded");
  }, 60_000);

  it("an interrupt (SIGINT) mid-run removes what was created and exits 130", async () => {
    env = await startRunEnv({ model: { delays: { csvPhaseMs: 60_000 } } });
    const controller = new AbortController();
    const e = env;
    const waiting = (async () => {
      // Abort once the CSV wait has started.
      while (!e.reporter.text().includes("waiting for ClusterServiceVersion"))
        await new Promise((r) => setTimeout(r, 20));
      controller.abort();
    })();
    const error = await failure(runBundle(options(env, { signal: controller.signal })));
    await waiting;
    expect(error.exitCode).toBe(ExitCode.interrupted);
    expect(error.message).toContain(
      "run bundle failed while waiting for the ClusterServiceVersion to succeed: interrupted",
    );
    await expectClean(env);
  }, 60_000);
});
