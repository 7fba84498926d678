// The OLM model's CSV state machine, transition by transition, over tsop/testing's HTTP API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient } from "../../../src/kube/client.js";
import type { KubeObject } from "../../../src/kube/objects.js";
import { type OlmEnv, startOlmEnv } from "../harness.js";
import { crd, csv } from "./fixture.js";
import { namespace, operatorGroup, phaseOf, record, V1A1 } from "./helpers.js";

let env: OlmEnv;
let client: KubeClient;
beforeAll(async () => {
  env = await startOlmEnv({
    installed: true,
    cluster: { workloads: { podStartMs: 10, unpullableImages: [/never-pulls/] } },
  });
  client = await KubeClient.connect({ kubeconfig: env.cluster.kubeconfigPath, env: {} });
  await client.apply(crd() as unknown as KubeObject);
}, 60_000);
afterAll(async () => {
  client?.close();
  await env?.stop();
});

const done = (o: { status?: { phase?: string } } | undefined) => o?.status?.phase === "Succeeded";

async function createCsv(
  ns: string,
  version: string,
  options: Parameters<typeof csv>[1] = {},
): Promise<string> {
  const obj = csv(version, options);
  obj.metadata.namespace = ns;
  await client.create(obj);
  return obj.metadata.name ?? "";
}

describe("OLM model: ClusterServiceVersion", () => {
  it("goes Pending → InstallReady → Installing → Succeeded, with OLM's finalizer, annotations and deployment shape", async () => {
    await namespace(client, "csv-happy");
    await operatorGroup(client, "csv-happy", "og", ["csv-happy"]);
    const name = await createCsv("csv-happy", "0.1.0");
    const { seen, last } = await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-happy",
      phaseOf,
      done,
    );
    expect(seen.filter((s) => s !== "/" && s !== "<absent>")).toEqual([
      "Pending/RequirementsUnknown",
      "InstallReady/AllRequirementsMet",
      "Installing/InstallSucceeded",
      ...(seen.includes("Installing/InstallWaiting") ? ["Installing/InstallWaiting"] : []),
      "Succeeded/InstallSucceeded",
    ]);
    expect(last?.metadata?.finalizers).toContain("operators.coreos.com/csv-cleanup");
    expect(last?.metadata?.annotations).toMatchObject({
      "olm.operatorGroup": "og",
      "olm.operatorNamespace": "csv-happy",
      "olm.targetNamespaces": "csv-happy",
    });
    expect(last?.status?.conditions.map((c: { phase: string }) => c.phase)).toContain("InstallReady");
    const dep = env.cluster.get(
      "apps/v1",
      "Deployment",
      "memcached-operator-controller-manager",
      "csv-happy",
    );
    expect(dep?.metadata?.labels).toMatchObject({
      "olm.owner": name,
      "olm.owner.kind": "ClusterServiceVersion",
      "olm.managed": "true",
    });
    expect(dep?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ClusterServiceVersion", name });
    expect(dep?.spec?.template?.spec?.containers?.[0]?.env).toContainEqual({
      name: "OPERATOR_CONDITION_NAME",
      value: name,
    });
    const events = env.cluster
      .list("v1", "Event", "csv-happy")
      .filter((e) => e.involvedObject?.name === name);
    expect(events.map((e) => e.reason)).toContain("AllRequirementsMet");
  });

  it("fails with NoOperatorGroup, TooManyOperatorGroups and UnsupportedOperatorGroup, and recovers when fixed", async () => {
    await namespace(client, "csv-og");
    const name = await createCsv("csv-og", "0.1.0", { installModes: ["OwnNamespace"] });
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-og",
      phaseOf,
      (o) => o?.status?.reason === "NoOperatorGroup",
    );
    await operatorGroup(client, "csv-og", "one");
    await operatorGroup(client, "csv-og", "two");
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-og",
      phaseOf,
      (o) => o?.status?.reason === "TooManyOperatorGroups",
    );
    const two = env.cluster.get("operators.coreos.com/v1", "OperatorGroup", "two", "csv-og");
    expect(two?.status?.conditions?.[0]).toMatchObject({
      type: "MultipleOperatorGroup",
      reason: "MultipleOperatorGroupsFound",
    });
    await client.delete({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      namespace: "csv-og",
      name: "two",
    });
    // "one" selects all namespaces, which an OwnNamespace-only CSV does not support.
    const { last } = await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-og",
      phaseOf,
      (o) => o?.status?.reason === "UnsupportedOperatorGroup",
    );
    expect(last?.status?.message).toContain("AllNamespaces InstallModeType not supported");
    await client.mergePatch(
      { apiVersion: "operators.coreos.com/v1", kind: "OperatorGroup", namespace: "csv-og", name: "one" },
      { spec: { targetNamespaces: ["csv-og"] } },
    );
    await record(env.cluster, V1A1, "ClusterServiceVersion", name, "csv-og", phaseOf, done);
  });

  it("waits in Pending/RequirementsNotMet for a missing owned CRD", async () => {
    await namespace(client, "csv-req");
    await operatorGroup(client, "csv-req", "og", ["csv-req"]);
    const obj = csv("0.1.0");
    obj.metadata.namespace = "csv-req";
    obj.spec.customresourcedefinitions = {
      owned: [{ name: "gadgets.example.com", version: "v1", kind: "Gadget" }],
    };
    await client.create(obj);
    const { last } = await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      obj.metadata.name ?? "",
      "csv-req",
      phaseOf,
      (o) => o?.status?.reason === "RequirementsNotMet",
    );
    expect(last?.status?.phase).toBe("Pending");
    expect(last?.status?.requirementStatus?.[0]).toMatchObject({
      kind: "CustomResourceDefinition",
      name: "gadgets.example.com",
    });
    const gadget = crd() as KubeObject;
    gadget.metadata.name = "gadgets.example.com";
    gadget.spec.group = "example.com";
    gadget.spec.names = { kind: "Gadget", plural: "gadgets", singular: "gadget", listKind: "GadgetList" };
    await client.apply(gadget);
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      obj.metadata.name ?? "",
      "csv-req",
      phaseOf,
      done,
    );
  });

  it("fails with InstallCheckFailed when its deployment never becomes available, then recovers on a forced failure being lifted", async () => {
    await namespace(client, "csv-timeout");
    await operatorGroup(client, "csv-timeout", "og", ["csv-timeout"]);
    env.model.options.delays.installTimeoutMs = 800;
    try {
      const name = await createCsv("csv-timeout", "0.1.0", { image: "example.com/never-pulls:1" });
      const { seen, last } = await record(
        env.cluster,
        V1A1,
        "ClusterServiceVersion",
        name,
        "csv-timeout",
        phaseOf,
        (o) => o?.status?.phase === "Failed",
      );
      expect(seen).toContain("Installing/InstallWaiting");
      expect(last?.status).toMatchObject({ reason: "InstallCheckFailed", message: "install timeout" });
    } finally {
      env.model.options.delays.installTimeoutMs = 300_000;
    }
    // Forced failure (fault injection) and recovery.
    await namespace(client, "csv-fault");
    await operatorGroup(client, "csv-fault", "og", ["csv-fault"]);
    const name = await createCsv("csv-fault", "0.1.0");
    await record(env.cluster, V1A1, "ClusterServiceVersion", name, "csv-fault", phaseOf, done);
    env.model.faults.csvFailure.set(`csv-fault/${name}`, {
      reason: "ComponentUnhealthy",
      message: "injected",
    });
    env.model.trigger();
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-fault",
      phaseOf,
      (o) => o?.status?.reason === "ComponentUnhealthy",
    );
    env.model.faults.csvFailure.delete(`csv-fault/${name}`);
    env.model.trigger();
    await record(env.cluster, V1A1, "ClusterServiceVersion", name, "csv-fault", phaseOf, done);
  });

  it("on deletion runs the csv-cleanup finalizer: its labelled cluster RBAC goes, then the CSV", async () => {
    await namespace(client, "csv-del");
    await operatorGroup(client, "csv-del", "og", ["csv-del"]);
    const name = await createCsv("csv-del", "0.1.0");
    await record(env.cluster, V1A1, "ClusterServiceVersion", name, "csv-del", phaseOf, done);
    await client.apply({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name: "csv-del-role",
        labels: {
          "olm.owner": name,
          "olm.owner.namespace": "csv-del",
          "olm.owner.kind": "ClusterServiceVersion",
        },
      },
      rules: [],
    });
    await client.delete({ apiVersion: V1A1, kind: "ClusterServiceVersion", namespace: "csv-del", name });
    await record(
      env.cluster,
      V1A1,
      "ClusterServiceVersion",
      name,
      "csv-del",
      phaseOf,
      (o) => o === undefined,
    );
    expect(env.cluster.get("rbac.authorization.k8s.io/v1", "ClusterRole", "csv-del-role")).toBeUndefined();
  });

  it("does nothing while OLM's olm-operator deployment is gone, and resumes when it is back", async () => {
    const dep = env.cluster.get("apps/v1", "Deployment", "olm-operator", "olm")!;
    await client.delete({
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "olm",
      name: "olm-operator",
    });
    await env.cluster.waitFor("apps/v1", "Deployment", "olm-operator", "olm", (d) => d === undefined);
    await namespace(client, "csv-gate");
    await operatorGroup(client, "csv-gate", "og", ["csv-gate"]);
    const name = await createCsv("csv-gate", "0.1.0");
    await env.model.idle();
    await env.model.idle();
    expect(env.cluster.get(V1A1, "ClusterServiceVersion", name, "csv-gate")?.status?.phase).toBeUndefined();
    await client.create({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "olm-operator", namespace: "olm" },
      spec: dep.spec,
    });
    await record(env.cluster, V1A1, "ClusterServiceVersion", name, "csv-gate", phaseOf, done);
  });
});
