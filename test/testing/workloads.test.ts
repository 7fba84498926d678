// Workloads mode: pods Pending → Running with podIP and Ready, ErrImagePull → ImagePullBackOff,
// Deployments → ReplicaSets → Pods with status and conditions, Jobs complete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { http, openWatch } from "./helpers.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster({
    workloads: {
      podStartMs: 20,
      imagePullFailMs: 20,
      imagePullBackOffMs: 40,
      jobDurationMs: 30,
      progressDeadlineMs: 300,
      unpullableImages: [/^missing\//],
    },
  });
});
afterAll(async () => {
  await cluster.stop();
});

function deployment(name: string, image: string, replicas = 2) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image }] } },
    },
  };
}

describe("workloads mode", () => {
  it("runs a pod: Pending, then Running with podIP and Ready", async () => {
    const w = await openWatch(
      cluster,
      "/api/v1/namespaces/default/pods?watch=true&fieldSelector=metadata.name%3Dp",
    );
    const r = await http(cluster, "POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox:1" }] },
    });
    expect(r.status).toBe(201);
    const running = await cluster.waitFor("v1", "Pod", "p", "default", (p) => p?.status?.phase === "Running");
    const events = await w.next(3);
    w.stop();
    expect(events.map((e) => `${e.type}:${e.object.status?.phase}`)).toEqual([
      "ADDED:undefined",
      "MODIFIED:Pending",
      "MODIFIED:Running",
    ]);
    expect(events[1]!.object.status.containerStatuses[0].state.waiting.reason).toBe("ContainerCreating");
    expect(running?.status.podIP).toMatch(/^10\.244\.0\.\d+$/);
    expect(running?.spec.nodeName).toBe("tsop-node");
    expect(running?.status.conditions).toContainEqual(
      expect.objectContaining({ type: "Ready", status: "True" }),
    );
    expect(running?.status.containerStatuses[0]).toMatchObject({
      ready: true,
      started: true,
      state: { running: {} },
    });
  });

  it("reports ErrImagePull then ImagePullBackOff for unpullable images", async () => {
    cluster.markImageUnpullable("ghcr.io/acme/broken:1");
    await http(cluster, "POST", "/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "bad" },
      spec: { containers: [{ name: "c", image: "ghcr.io/acme/broken:1" }] },
    });
    const errPull = await cluster.waitFor(
      "v1",
      "Pod",
      "bad",
      "default",
      (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === "ErrImagePull",
    );
    expect(errPull?.status.containerStatuses[0].state.waiting.message).toContain(
      'failed to pull and unpack image "ghcr.io/acme/broken:1"',
    );
    const backoff = await cluster.waitFor(
      "v1",
      "Pod",
      "bad",
      "default",
      (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === "ImagePullBackOff",
    );
    expect(backoff?.status.phase).toBe("Pending");
    expect(backoff?.status.containerStatuses[0].state.waiting.message).toBe(
      'Back-off pulling image "ghcr.io/acme/broken:1"',
    );
    const events = await http(
      cluster,
      "GET",
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent("involvedObject.name=bad")}`,
    );
    const reasons = events.body.items.map((e: { type: string; reason: string }) => `${e.type}/${e.reason}`);
    expect(reasons).toEqual(expect.arrayContaining(["Normal/Scheduled", "Warning/Failed", "Normal/BackOff"]));
    const failed = events.body.items.find((e: { message: string }) =>
      e.message.startsWith("Failed to pull image"),
    );
    expect(failed.source).toEqual({ component: "kubelet", host: "tsop-node" });
  });

  it("rolls a Deployment out through a ReplicaSet to available pods", async () => {
    expect(
      (
        await http(
          cluster,
          "POST",
          "/apis/apps/v1/namespaces/default/deployments",
          deployment("web", "nginx:1"),
        )
      ).status,
    ).toBe(201);
    const dep = await cluster.waitFor(
      "apps/v1",
      "Deployment",
      "web",
      "default",
      (d) =>
        d?.status?.availableReplicas === 2 && d?.status?.conditions?.[1]?.reason === "NewReplicaSetAvailable",
    );
    expect(dep?.status).toMatchObject({
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    expect(dep?.status.conditions).toEqual([
      expect.objectContaining({
        type: "Available",
        status: "True",
        reason: "MinimumReplicasAvailable",
        message: "Deployment has minimum availability.",
      }),
      expect.objectContaining({ type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" }),
    ]);
    const rs = await http(
      cluster,
      "GET",
      "/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb",
    );
    expect(rs.body.items).toHaveLength(1);
    expect(rs.body.items[0].metadata.ownerReferences[0]).toMatchObject({
      kind: "Deployment",
      name: "web",
      controller: true,
    });
    const pods = await http(cluster, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb");
    expect(pods.body.items).toHaveLength(2);

    // Scaling through the scale subresource.
    await http(
      cluster,
      "PATCH",
      "/apis/apps/v1/namespaces/default/deployments/web/scale",
      { spec: { replicas: 1 } },
      { contentType: "application/merge-patch+json" },
    );
    await cluster.waitFor(
      "apps/v1",
      "Deployment",
      "web",
      "default",
      (d) => d?.status?.replicas === 1 && d?.status?.observedGeneration === 2,
    );

    // Deleting the Deployment collects its ReplicaSet and pods.
    await http(cluster, "DELETE", "/apis/apps/v1/namespaces/default/deployments/web");
    await expect
      .poll(
        async () =>
          (await http(cluster, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb")).body.items
            .length,
      )
      .toBe(0);
  });

  it("reports a Deployment with unpullable images as unavailable, then ProgressDeadlineExceeded", async () => {
    await http(
      cluster,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments",
      deployment("broken", "missing/app:1", 1),
    );
    const dep = await cluster.waitFor("apps/v1", "Deployment", "broken", "default", (d) =>
      (d?.status?.conditions ?? []).some((c: { reason: string }) => c.reason === "ProgressDeadlineExceeded"),
    );
    expect(dep?.status.conditions[0]).toMatchObject({
      type: "Available",
      status: "False",
      reason: "MinimumReplicasUnavailable",
    });
    expect(dep?.status.conditions[1]).toMatchObject({
      type: "Progressing",
      status: "False",
      reason: "ProgressDeadlineExceeded",
    });
    expect(dep?.status.unavailableReplicas).toBe(1);
  });

  it("completes a Job", async () => {
    await http(cluster, "POST", "/apis/batch/v1/namespaces/default/jobs", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "once" },
      spec: {
        template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox:1" }] } },
      },
    });
    const job = await cluster.waitFor("batch/v1", "Job", "once", "default", (j) =>
      (j?.status?.conditions ?? []).some((c: { type: string }) => c.type === "Complete"),
    );
    expect(job?.status).toMatchObject({ succeeded: 1, completionTime: expect.any(String) });
    const pods = await http(cluster, "GET", "/api/v1/namespaces/default/pods?labelSelector=job-name%3Donce");
    expect(pods.body.items[0].status.phase).toBe("Succeeded");
  });
});
