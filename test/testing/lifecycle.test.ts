// Deletion semantics: finalizers and deletionTimestamp, preconditions, ownerReference garbage
// collection (background, foreground with blockOwnerDeletion, orphan) and namespace termination.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { configMap, http } from "./helpers.js";

let cluster: TestCluster;
const cms = (ns = "default") => `/api/v1/namespaces/${ns}/configmaps`;
const mergeType = { contentType: "application/merge-patch+json" };

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.stop();
});

async function owner(name: string) {
  const r = await http(cluster, "POST", cms(), configMap(name));
  return r.body as { metadata: { uid: string; name: string } };
}

function dependent(name: string, o: { metadata: { uid: string; name: string } }, block = false) {
  return {
    ...configMap(name),
    metadata: {
      name,
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: o.metadata.name,
          uid: o.metadata.uid,
          ...(block ? { blockOwnerDeletion: true } : {}),
        },
      ],
    },
  };
}

const gone = (name: string, ns = "default") =>
  cluster.waitFor("v1", "ConfigMap", name, ns, (o) => o === undefined, 5000);

describe("finalizers", () => {
  it("marks an object with finalizers (deletionTimestamp) and removes it when they are gone", async () => {
    await http(cluster, "POST", cms(), {
      ...configMap("fin"),
      metadata: { name: "fin", finalizers: ["example.com/cleanup"] },
    });
    const del = await http(cluster, "DELETE", `${cms()}/fin`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    const still = await http(cluster, "GET", `${cms()}/fin`);
    expect(still.status).toBe(200);
    const added = await http(
      cluster,
      "PATCH",
      `${cms()}/fin`,
      { metadata: { finalizers: ["example.com/cleanup", "new"] } },
      mergeType,
    );
    expect(added.status).toBe(422);
    expect(added.body.message).toContain("no new finalizers can be added if the object is being deleted");
    const cleared = await http(
      cluster,
      "PATCH",
      `${cms()}/fin`,
      { metadata: { finalizers: null } },
      mergeType,
    );
    expect(cleared.status).toBe(200);
    expect((await http(cluster, "GET", `${cms()}/fin`)).status).toBe(404);
  });

  it("checks delete preconditions (uid and resourceVersion) with 409", async () => {
    await http(cluster, "POST", cms(), configMap("pre"));
    const uid = await http(cluster, "DELETE", `${cms()}/pre`, { preconditions: { uid: "nope" } });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toMatch(
      /^Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: nope, UID in object meta: /,
    );
    const rv = await http(cluster, "DELETE", `${cms()}/pre`, { preconditions: { resourceVersion: "1" } });
    expect(rv.status).toBe(409);
    const dry = await http(cluster, "DELETE", `${cms()}/pre?dryRun=All`);
    expect(dry.status).toBe(200);
    expect((await http(cluster, "GET", `${cms()}/pre`)).status).toBe(200);
  });
});

describe("garbage collection", () => {
  it("background: dependents of a deleted owner are deleted", async () => {
    const o = await owner("bg-owner");
    await http(cluster, "POST", cms(), dependent("bg-dep", o));
    await http(cluster, "DELETE", `${cms()}/bg-owner`, { propagationPolicy: "Background" });
    await gone("bg-dep");
  });

  it("dependents whose owner never existed (unknown uid) are collected", async () => {
    await http(
      cluster,
      "POST",
      cms(),
      dependent("orphaned-at-birth", {
        metadata: { name: "ghost", uid: "00000000-0000-0000-0000-000000000000" },
      }),
    );
    await gone("orphaned-at-birth");
  });

  it("foreground: the owner waits (foregroundDeletion) for blocking dependents", async () => {
    const o = await owner("fg-owner");
    await http(cluster, "POST", cms(), {
      ...dependent("fg-dep", o, true),
      metadata: { ...dependent("fg-dep", o, true).metadata, finalizers: ["hold"] },
    });
    const del = await http(cluster, "DELETE", `${cms()}/fg-owner`, { propagationPolicy: "Foreground" });
    expect(del.body.metadata.finalizers).toContain("foregroundDeletion");
    expect(del.body.metadata.deletionTimestamp).toBeTruthy();
    await cluster.waitFor("v1", "ConfigMap", "fg-dep", "default", (d) =>
      Boolean(d?.metadata.deletionTimestamp),
    );
    expect(cluster.get("v1", "ConfigMap", "fg-owner", "default")).toBeDefined();
    await http(cluster, "PATCH", `${cms()}/fg-dep`, { metadata: { finalizers: null } }, mergeType);
    await gone("fg-dep");
    await gone("fg-owner");
  });

  it("orphan: dependents survive and lose their ownerReference", async () => {
    const o = await owner("or-owner");
    await http(cluster, "POST", cms(), dependent("or-dep", o));
    const del = await http(cluster, "DELETE", `${cms()}/or-owner?propagationPolicy=Orphan`);
    expect(del.status).toBe(200);
    await gone("or-owner");
    const dep = await http(cluster, "GET", `${cms()}/or-dep`);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });

  it("rejects an unknown propagationPolicy with 422", async () => {
    await owner("pp");
    const r = await http(cluster, "DELETE", `${cms()}/pp`, { propagationPolicy: "Sideways" });
    expect(r.status).toBe(422);
  });
});

describe("namespaces", () => {
  it("terminates: phase Terminating, contents deleted, creates Forbidden, then the namespace is gone", async () => {
    expect(
      (
        await http(cluster, "POST", "/api/v1/namespaces", {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: "doomed" },
        })
      ).status,
    ).toBe(201);
    const ns = await http(cluster, "GET", "/api/v1/namespaces/doomed");
    expect(ns.body.status.phase).toBe("Active");
    expect(ns.body.spec.finalizers).toEqual(["kubernetes"]);
    await cluster.waitFor("v1", "ServiceAccount", "default", "doomed", (o) => o !== undefined);
    await http(cluster, "POST", cms("doomed"), {
      ...configMap("held", {}, "doomed"),
      metadata: { name: "held", namespace: "doomed", finalizers: ["hold"] },
    });
    await http(cluster, "POST", cms("doomed"), configMap("plain", {}, "doomed"));
    const del = await http(cluster, "DELETE", "/api/v1/namespaces/doomed");
    expect(del.status).toBe(200);
    expect(del.body.status.phase).toBe("Terminating");
    await gone("plain", "doomed");
    const create = await http(cluster, "POST", cms("doomed"), configMap("late", {}, "doomed"));
    expect(create.status).toBe(403);
    expect(create.body).toMatchObject({
      reason: "Forbidden",
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
      details: { causes: [{ reason: "NamespaceTerminating", field: "metadata.namespace" }] },
    });
    const waiting = await cluster.waitFor("v1", "Namespace", "doomed", undefined, (o) =>
      (o?.status?.conditions ?? []).some((c: { type: string }) => c.type === "NamespaceFinalizersRemaining"),
    );
    expect(
      waiting?.status.conditions.find((c: { type: string }) => c.type === "NamespaceFinalizersRemaining")
        .message,
    ).toBe("Some content in the namespace has finalizers remaining: hold in 1 resource instances");
    await http(cluster, "PATCH", `${cms("doomed")}/held`, { metadata: { finalizers: null } }, mergeType);
    await cluster.waitFor("v1", "Namespace", "doomed", undefined, (o) => o === undefined);
    expect((await http(cluster, "GET", "/api/v1/namespaces/doomed")).status).toBe(404);
  });

  it("refuses to delete the default namespace", async () => {
    const r = await http(cluster, "DELETE", "/api/v1/namespaces/default");
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});
