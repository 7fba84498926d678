// The OLM model's catalog, Subscription and InstallPlan controllers and packageserver, over
// tsop/testing's HTTP API: Manual and Automatic approval, unpack Jobs, upgrades through
// `replaces` (old CSV Replacing → Deleting), resolution and unpack failures, PackageManifests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient } from "../../../src/kube/client.js";
import { type OlmEnv, startOlmEnv } from "../harness.js";
import { fbc, PACKAGE, publishCatalog } from "./fixture.js";
import { namespace, operatorGroup, phaseOf, record, V1A1 } from "./helpers.js";

let env: OlmEnv;
let client: KubeClient;
beforeAll(async () => {
  env = await startOlmEnv({
    installed: true,
    cluster: { workloads: { podStartMs: 10, jobDurationMs: 20, unpullableImages: [/broken-bundle/] } },
  });
  client = await KubeClient.connect({ kubeconfig: env.cluster.kubeconfigPath, env: {} });
}, 60_000);
afterAll(async () => {
  client?.close();
  await env?.stop();
});

const ready = (o: { status?: { connectionState?: { lastObservedState?: string } } } | undefined) =>
  o?.status?.connectionState?.lastObservedState === "READY";

async function subscribe(ns: string, approval: "Manual" | "Automatic", extra: Record<string, unknown> = {}) {
  await client.apply({
    apiVersion: V1A1,
    kind: "Subscription",
    metadata: { name: "memcached", namespace: ns },
    spec: {
      name: PACKAGE,
      channel: "alpha",
      source: "cat",
      sourceNamespace: ns,
      installPlanApproval: approval,
      ...extra,
    },
  });
}

describe("OLM model: subscriptions and install plans", () => {
  it("Manual approval waits in RequiresApproval; once approved the plan creates CRD, SA, RBAC and the CSV", async () => {
    const ns = "sub-manual";
    await namespace(client, ns);
    await operatorGroup(client, ns, "og", [ns]);
    await publishCatalog(client, ns, "cat", fbc());
    await record(
      env.cluster,
      V1A1,
      "CatalogSource",
      "cat",
      ns,
      (o) => o?.status?.connectionState?.lastObservedState ?? "",
      ready,
    );
    await subscribe(ns, "Manual", { startingCSV: `${PACKAGE}.v0.1.0` });
    const { last: sub } = await record(
      env.cluster,
      V1A1,
      "Subscription",
      "memcached",
      ns,
      (o) => o?.status?.state ?? "",
      (o) => Boolean(o?.status?.installPlanRef),
    );
    expect(sub?.status).toMatchObject({ state: "UpgradePending", currentCSV: `${PACKAGE}.v0.1.0` });
    expect(sub?.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "InstallPlanPending", reason: "RequiresApproval" }),
    );
    const planName = sub?.status?.installPlanRef.name as string;
    expect(planName).toMatch(/^install-/);
    const plan = env.cluster.get(V1A1, "InstallPlan", planName, ns);
    expect(plan?.spec).toMatchObject({
      approval: "Manual",
      approved: false,
      clusterServiceVersionNames: [`${PACKAGE}.v0.1.0`],
    });
    expect(plan?.status?.phase).toBe("RequiresApproval");
    // The bundle was unpacked by a Job running the bundle image.
    const job = env.cluster.list("batch/v1", "Job", ns)[0];
    expect(job?.spec?.template?.spec?.containers?.[0]?.image).toBe(
      "example.com/memcached-operator-bundle:v0.1.0",
    );
    await env.model.idle();
    expect(env.cluster.get(V1A1, "ClusterServiceVersion", `${PACKAGE}.v0.1.0`, ns)).toBeUndefined();

    await client.mergePatch(
      { apiVersion: V1A1, kind: "InstallPlan", namespace: ns, name: planName },
      { spec: { approved: true } },
    );
    const { seen } = await record(
      env.cluster,
      V1A1,
      "InstallPlan",
      planName,
      ns,
      (o) => o?.status?.phase ?? "",
      (o) => o?.status?.phase === "Complete",
    );
    expect(seen).toContain("Installing");
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      `${PACKAGE}.v0.1.0`,
      ns,
      phaseOf,
      (o) => o?.status?.phase === "Succeeded",
    );
    expect(
      env.cluster.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "memcacheds.cache.example.com"),
    ).toBeDefined();
    expect(env.cluster.get("v1", "ServiceAccount", "memcached-operator", ns)).toBeDefined();
    const roles = env.cluster
      .list("rbac.authorization.k8s.io/v1", "ClusterRole")
      .filter((r) => r.metadata?.labels?.["olm.owner"] === `${PACKAGE}.v0.1.0`);
    expect(roles).toHaveLength(1);
    const { last } = await record(
      env.cluster,
      V1A1,
      "Subscription",
      "memcached",
      ns,
      (o) => o?.status?.state ?? "",
      (o) => o?.status?.state === "AtLatestKnown",
    );
    expect(last?.status?.installedCSV).toBe(`${PACKAGE}.v0.1.0`);
  });

  it("Automatic approval installs the channel head, and an upgrade replaces the old CSV (Replacing → Deleting → gone)", async () => {
    const ns = "sub-auto";
    await namespace(client, ns);
    await operatorGroup(client, ns, "og", [ns]);
    await publishCatalog(client, ns, "cat", fbc({ versions: ["0.1.0"] }));
    await subscribe(ns, "Automatic");
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      `${PACKAGE}.v0.1.0`,
      ns,
      phaseOf,
      (o) => o?.status?.phase === "Succeeded",
    );
    await record(
      env.cluster,
      V1A1,
      "Subscription",
      "memcached",
      ns,
      (o) => o?.status?.state ?? "",
      (o) => o?.status?.state === "AtLatestKnown",
    );

    const oldPhases = record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      `${PACKAGE}.v0.1.0`,
      ns,
      phaseOf,
      (o) => o === undefined,
    );
    await publishCatalog(client, ns, "cat", fbc({ versions: ["0.1.0", "0.2.0"] }));
    const { last: next } = await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      `${PACKAGE}.v0.2.0`,
      ns,
      phaseOf,
      (o) => o?.status?.phase === "Succeeded",
    );
    expect(next?.spec?.replaces).toBe(`${PACKAGE}.v0.1.0`);
    const { seen } = await oldPhases;
    expect(seen).toContain("Replacing/BeingReplaced");
    expect(seen).toContain("Deleting/Replaced");
    expect(seen.at(-1)).toBe("<absent>");
    const { last } = await record(
      env.cluster,
      V1A1,
      "Subscription",
      "memcached",
      ns,
      (o) => o?.status?.installedCSV ?? "",
      (o) => o?.status?.installedCSV === `${PACKAGE}.v0.2.0`,
    );
    expect(last?.status?.state).toBe("AtLatestKnown");
    expect(env.cluster.list(V1A1, "InstallPlan", ns)).toHaveLength(2);
  });

  it("reports ResolutionFailed for an unknown package and BundleUnpacking with the pull error for a broken bundle image", async () => {
    const ns = "sub-fail";
    await namespace(client, ns);
    await operatorGroup(client, ns, "og", [ns]);
    await publishCatalog(client, ns, "cat", fbc({ bundleImage: () => "example.com/broken-bundle:1" }));
    await client.apply({
      apiVersion: V1A1,
      kind: "Subscription",
      metadata: { name: "nothing", namespace: ns },
      spec: { name: "no-such-package", channel: "alpha", source: "cat", sourceNamespace: ns },
    });
    const { last } = await record(
      env.cluster,
      V1A1,
      "Subscription",
      "nothing",
      ns,
      () => "",
      (o) => (o?.status?.conditions ?? []).some((c: { type: string }) => c.type === "ResolutionFailed"),
    );
    const failed = last?.status?.conditions.find((c: { type: string }) => c.type === "ResolutionFailed");
    expect(failed).toMatchObject({ reason: "ConstraintsNotSatisfiable" });
    expect(failed.message).toContain("no operators found in package no-such-package");
    await client.delete({ apiVersion: V1A1, kind: "Subscription", namespace: ns, name: "nothing" });

    await subscribe(ns, "Automatic");
    const { last: unpacking } = await record(
      env.cluster,
      V1A1,
      "Subscription",
      "memcached",
      ns,
      () => "",
      (o) =>
        (o?.status?.conditions ?? []).some(
          (c: { type: string; message?: string }) =>
            c.type === "BundleUnpacking" && /ErrImagePull|ImagePullBackOff/.test(c.message ?? ""),
        ),
    );
    expect(unpacking?.status?.installPlanRef).toBeUndefined();
  });
});

describe("OLM model: catalogs and packageserver", () => {
  it("reports SpecInvalidError, then connects; address catalogs follow their pods; faults force TRANSIENT_FAILURE", async () => {
    const ns = "cat-states";
    await namespace(client, ns);
    await client.apply({
      apiVersion: V1A1,
      kind: "CatalogSource",
      metadata: { name: "bad", namespace: ns },
      spec: { displayName: "bad" },
    });
    const { last } = await record(
      env.cluster,
      V1A1,
      "CatalogSource",
      "bad",
      ns,
      () => "",
      (o) => o?.status?.reason === "SpecInvalidError",
    );
    expect(last?.status?.message).toBe("unknown sourcetype: ");
    await client.mergePatch(
      { apiVersion: V1A1, kind: "CatalogSource", namespace: ns, name: "bad" },
      { spec: { sourceType: "grpc", address: "10.9.9.9:50051" } },
    );
    env.model.options.delays.catalogConnectMs = 200;
    try {
      const { seen } = await record(
        env.cluster,
        V1A1,
        "CatalogSource",
        "bad",
        ns,
        (o) => o?.status?.connectionState?.lastObservedState ?? "",
        ready,
      );
      expect(seen).toContain("CONNECTING");
    } finally {
      env.model.options.delays.catalogConnectMs = 0;
    }
    await publishCatalog(client, ns, "cat", fbc());
    const { seen } = await record(
      env.cluster,
      V1A1,
      "CatalogSource",
      "cat",
      ns,
      (o) => o?.status?.connectionState?.lastObservedState ?? "",
      ready,
    );
    expect(seen.at(-1)).toBe("READY");
    env.model.faults.catalogState.set(`${ns}/cat`, "TRANSIENT_FAILURE");
    env.model.trigger();
    await record(
      env.cluster,
      V1A1,
      "CatalogSource",
      "cat",
      ns,
      () => "",
      (o) => o?.status?.connectionState?.lastObservedState === "TRANSIENT_FAILURE",
    );
    env.model.faults.catalogState.delete(`${ns}/cat`);
    env.model.trigger();
    await record(env.cluster, V1A1, "CatalogSource", "cat", ns, () => "", ready);
  });

  it("runs a registry pod and Service for image catalogs (an unpullable image means TRANSIENT_FAILURE)", async () => {
    const ns = "cat-image";
    await namespace(client, ns);
    await client.apply({
      apiVersion: V1A1,
      kind: "CatalogSource",
      metadata: { name: "img", namespace: ns },
      spec: { sourceType: "grpc", image: "example.com/catalog:1" },
    });
    const { last } = await record(env.cluster, V1A1, "CatalogSource", "img", ns, () => "", ready);
    expect(last?.status?.registryService).toMatchObject({
      serviceName: "img",
      serviceNamespace: ns,
      port: "50051",
    });
    expect(
      env.cluster.list("v1", "Pod", ns).some((p) => p.metadata?.labels?.["olm.catalogSource"] === "img"),
    ).toBe(true);
    expect(env.cluster.get("v1", "Service", "img", ns)).toBeDefined();
    await client.apply({
      apiVersion: V1A1,
      kind: "CatalogSource",
      metadata: { name: "broken", namespace: ns },
      spec: { sourceType: "grpc", image: "example.com/broken-bundle:catalog" },
    });
    await record(
      env.cluster,
      V1A1,
      "CatalogSource",
      "broken",
      ns,
      () => "",
      (o) => o?.status?.connectionState?.lastObservedState === "TRANSIENT_FAILURE",
    );
  });

  it("serves PackageManifests for READY catalogs while the packageserver CSV is Succeeded", async () => {
    const ns = "cat-pkg";
    await namespace(client, ns);
    await publishCatalog(client, ns, "cat", fbc({ versions: ["0.1.0", "0.2.0"] }));
    const pm = await env.cluster.waitFor(
      "packages.operators.coreos.com/v1",
      "PackageManifest",
      PACKAGE,
      ns,
      (o) => o !== undefined,
      15_000,
    );
    expect(pm?.metadata?.labels).toMatchObject({ catalog: "cat", "catalog-namespace": ns });
    expect(pm?.status).toMatchObject({ packageName: PACKAGE, defaultChannel: "alpha", catalogSource: "cat" });
    expect(pm?.status?.channels[0]).toMatchObject({ name: "alpha", currentCSV: `${PACKAGE}.v0.2.0` });
  });

  it("computes OperatorGroup namespaces from targetNamespaces, a selector, or all namespaces", async () => {
    await namespace(client, "og-a");
    await client.apply({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "og-b", labels: { team: "b" } },
    });
    await operatorGroup(client, "og-a", "targets", ["og-b", "og-a"]);
    const t = await env.cluster.waitFor("operators.coreos.com/v1", "OperatorGroup", "targets", "og-a", (o) =>
      Boolean(o?.status?.namespaces),
    );
    expect(t?.status?.namespaces).toEqual(["og-a", "og-b"]);
    await client.apply({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "sel", namespace: "og-b" },
      spec: { selector: { matchLabels: { team: "b" } } },
    });
    const s = await env.cluster.waitFor("operators.coreos.com/v1", "OperatorGroup", "sel", "og-b", (o) =>
      Boolean(o?.status?.namespaces),
    );
    expect(s?.status?.namespaces).toEqual(["og-b"]);
    const all = env.cluster.get("operators.coreos.com/v1", "OperatorGroup", "global-operators", "operators");
    expect(all?.status?.namespaces).toEqual([""]);
  });
});
