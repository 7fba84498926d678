// olm status when OLM is unhealthy, uninstall while operators remain, install timeouts with
// diagnostics, and installs that survive API faults: the built CLI against tsop/testing + model.
import { afterEach, describe, expect, it } from "vitest";
import { execa } from "execa";
import { runTsop, TSOP_BIN } from "../support/cli.js";
import { http } from "../testing/helpers.js";
import { type OlmEnv, startOlmEnv } from "./harness.js";

let env: OlmEnv | undefined;
afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const OLM_IMAGE = "quay.io/operator-framework/olm:v0.28.0";
const CSV = "operators.coreos.com/v1alpha1";

describe("olm status: degraded", () => {
  it("reports a deployment that is not available and a failed packageserver CSV, exit code 1", async () => {
    env = await startOlmEnv({ installed: true });
    const { cluster, model } = env;
    // Roll catalog-operator to an image that cannot be pulled.
    cluster.markImageUnpullable("quay.io/operator-framework/olm:broken");
    const dep = cluster.get("apps/v1", "Deployment", "catalog-operator", "olm")!;
    dep.spec.template.spec.containers[0].image = "quay.io/operator-framework/olm:broken";
    const res = await http(cluster, "PUT", "/apis/apps/v1/namespaces/olm/deployments/catalog-operator", dep);
    expect(res.status).toBe(200);
    await cluster.waitFor(
      "apps/v1",
      "Deployment",
      "catalog-operator",
      "olm",
      (d) => (d?.status?.updatedReplicas ?? 0) < 1 || d?.status?.unavailableReplicas > 0,
      10_000,
    );

    const table = await runTsop(["olm", "status", ...env.flags]);
    expect(table.exitCode).toBe(1);
    expect(table.stdout).toMatch(/catalog-operator\s+olm\s+Deployment\s+Unavailable: /);
    expect(table.stdout).toMatch(/olm-operator\s+olm\s+Deployment\s+Available \(1\/1\)/);
    expect(table.stdout).toMatch(/OLM v0\.28\.0: degraded \(1 of \d+ objects not healthy\)/);

    model.faults.csvFailure.set("olm/packageserver", {
      reason: "ComponentUnhealthy",
      message: "installing: deployment packageserver not ready",
    });
    model.trigger();
    await cluster.waitFor(
      CSV,
      "ClusterServiceVersion",
      "packageserver",
      "olm",
      (c) => c?.status?.phase === "Failed",
      10_000,
    );
    const json = await runTsop(["olm", "status", "-o", "json", ...env.flags]);
    expect(json.exitCode).toBe(1);
    const status = JSON.parse(json.stdout);
    expect(status.verdict).toBe("degraded");
    expect(status.rows).toContainEqual({
      name: "packageserver",
      namespace: "olm",
      kind: "ClusterServiceVersion",
      status: "Failed (ComponentUnhealthy: installing: deployment packageserver not ready)",
      healthy: false,
    });
  }, 180_000);
});

describe("olm uninstall with remaining operators", () => {
  it("refuses and lists them without --force; with --force removes them first, then OLM", async () => {
    env = await startOlmEnv({ installed: true });
    const { cluster } = env;
    cluster.create({
      apiVersion: CSV,
      kind: "Subscription",
      metadata: { name: "memcached", namespace: "operators" },
      spec: {
        name: "memcached-operator",
        channel: "alpha",
        source: "operatorhubio-catalog",
        sourceNamespace: "olm",
      },
    });
    cluster.create({
      apiVersion: CSV,
      kind: "ClusterServiceVersion",
      metadata: { name: "memcached-operator.v0.1.0", namespace: "operators" },
      spec: {
        displayName: "Memcached",
        installModes: [{ type: "AllNamespaces", supported: true }],
        install: { strategy: "deployment", spec: { deployments: [] } },
      },
    });
    await cluster.waitFor(
      CSV,
      "ClusterServiceVersion",
      "memcached-operator.v0.1.0",
      "operators",
      (c) => c?.status?.phase === "Succeeded",
      10_000,
    );

    const refused = await runTsop(["olm", "uninstall", ...env.flags]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("operators installed through OLM are still present");
    expect(refused.stderr).toContain(
      "- ClusterServiceVersion operators/memcached-operator.v0.1.0 (Succeeded)",
    );
    expect(refused.stderr).toContain("- Subscription operators/memcached (package memcached-operator)");
    expect(refused.stderr).toContain("pass --force");
    expect(
      cluster.get(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "subscriptions.operators.coreos.com",
      ),
    ).toBeDefined();
    expect(cluster.get("apps/v1", "Deployment", "olm-operator", "olm")).toBeDefined();

    const forced = await runTsop(["olm", "uninstall", "--force", "-o", "json", ...env.flags]);
    expect(forced.stderr).toContain("--force: removing 2 OLM-managed operator object(s)");
    expect(forced.exitCode).toBe(0);
    const result = JSON.parse(forced.stdout);
    expect(result.removedOperators).toHaveLength(2);
    expect(result.deleted[0]).toEqual({ name: "memcached", namespace: "operators", kind: "Subscription" });
    expect(result.deleted.at(-1).kind).toBe("CustomResourceDefinition");
    expect(
      cluster
        .list(CSV.replace("operators.coreos.com/v1alpha1", "v1"), "Namespace")
        .map((n) => n.metadata.name),
    ).not.toContain("olm");
  }, 180_000);
});

describe("olm install failures", () => {
  it("times out with conditions and pod waiting reasons, then removes what it created (exit 3)", async () => {
    env = await startOlmEnv({ cluster: { workloads: { podStartMs: 10, unpullableImages: [OLM_IMAGE] } } });
    const result = await runTsop(["olm", "install", "--timeout", "12s", ...env.flags]);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("timed out after 12s waiting for OLM to become ready");
    expect(result.stderr).toMatch(/Deployment olm\/olm-operator: Unavailable/);
    expect(result.stderr).toMatch(/container olm-operator waiting: (ErrImagePull|ImagePullBackOff)/);
    expect(result.stderr).toMatch(/condition Available=False/);
    expect(result.stderr).toContain("the cluster was left as it was before the install");
    expect(result.stderr).toContain("hint:");
    expect(env.cluster.get("v1", "Namespace", "olm")).toBeUndefined();
    expect(
      env.cluster.get(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "catalogsources.operators.coreos.com",
      ),
    ).toBeUndefined();
  }, 180_000);

  it("on Ctrl-C stops, removes what it created and exits 130", async () => {
    env = await startOlmEnv({ cluster: { workloads: { podStartMs: 10, unpullableImages: [OLM_IMAGE] } } });
    const child = execa(process.execPath, [TSOP_BIN, "olm", "install", ...env.flags], {
      reject: false,
      env: { NO_COLOR: "1" },
    });
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr?.on("data", (d) => {
        stderr += String(d);
        if (stderr.includes("waiting for OLM to become ready")) resolve();
      });
      child.on("exit", () => resolve());
    });
    child.kill("SIGINT");
    const result = await child;
    expect(result.stderr).toContain("interrupted: removing what this install created");
    expect(result.stderr).toContain("the cluster was left as it was before the install");
    expect(result.exitCode).toBe(130);
    expect(env.cluster.get("v1", "Namespace", "olm")).toBeUndefined();
  }, 180_000);

  it("survives 500s, 429s and dropped watches", async () => {
    env = await startOlmEnv();
    const { cluster } = env;
    cluster.faults.add({ method: "PATCH", path: "/apis/apps/v1/*", status: 500, count: 2 });
    cluster.faults.add({
      method: "GET",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      status: 429,
      count: 2,
      retryAfterSeconds: 1,
    });
    cluster.faults.add({ method: "PATCH", path: "/api/v1/namespaces/olm", status: 503, count: 1 });
    const dropper = setInterval(() => cluster.closeWatches(), 150);
    try {
      const result = await runTsop(["olm", "install", "-o", "json", ...env.flags]);
      expect(result.stderr).toContain("OLM v0.28.0 installed");
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout).verdict).toBe("healthy");
    } finally {
      clearInterval(dropper);
    }
    expect(cluster.faults.injected).toBeGreaterThanOrEqual(5);
  }, 180_000);
});
