// events.k8s.io/v1 recording on the real kube-apiserver (v1.34), whose validation of the new API
// (action, reportingController, reportingInstance, eventTime, series, a note of at most 1024
// bytes, the namespace of an Event about a cluster-scoped object) the in-memory server does not
// model. A manager's recorder (eventsApi unset: discovery) writes the Events; they are read back
// through events.k8s.io/v1 and, as the oracle, through kubectl (`get events.events.k8s.io` and the
// core/v1 view `get events`). A recorder forced to core/v1 still writes what kubectl shows as before.
import { execa } from "execa";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObjectLike } from "../../src/runtime/client/client.js";
import { EventRecorder } from "../../src/runtime/events/events.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;

interface EventV1Item {
  metadata: { name: string; namespace: string };
  regarding?: { kind?: string; name?: string; uid?: string };
  related?: { kind?: string; name?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  note?: string;
  type?: string;
  eventTime?: string;
  series?: { count: number; lastObservedTime: string };
}

interface CoreEventItem {
  involvedObject?: { name?: string };
  reason?: string;
  message?: string;
  count?: number;
  reportingComponent?: string;
  source?: { component?: string };
}

let cluster: RealTestCluster;
let manager: Manager;
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  manager = await Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    eventSource: "events-v1-test",
    handleSignals: false,
    logger: { level: "error" },
  });
}, 180_000);
afterAll(async () => {
  await manager?.stop();
  await cluster?.stop();
});

async function kubectlItems<T>(...args: string[]): Promise<T[]> {
  const { stdout } = await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args, "-o", "json"]);
  return (JSON.parse(stdout) as { items: T[] }).items;
}

async function configMap(name: string): Promise<KubeObjectLike> {
  return manager.client.create({ ...CM, metadata: { name, namespace: "default" }, data: { a: "1" } });
}

describe("events.k8s.io/v1 on kube-apiserver", () => {
  it("a manager records events.k8s.io/v1 Events the server accepts; repeats are one Event with a series; kubectl reads them", async () => {
    const target = await configMap("ev-target");
    const owner = await configMap("ev-owner");
    expect(await manager.events.api()).toBe("events.k8s.io/v1");
    manager.events.normal(target, "Synced", "synced 1", { action: "Reconcile", related: owner });
    await manager.events.flush();
    for (let i = 2; i <= 4; i++)
      manager.events.normal(target, "Synced", `synced ${i}`, { action: "Reconcile", related: owner });
    manager.events.warning(target, "Invalid", "x".repeat(3000)); // a note past the API's 1024 bytes
    await manager.events.flush();

    const viaApi = (
      await manager.client.list<KubeObjectLike & EventV1Item>(
        { apiVersion: "events.k8s.io/v1", kind: "Event" },
        { namespace: "default" },
      )
    ).filter((e) => e.regarding?.name === "ev-target");
    const viaKubectl = (
      await kubectlItems<EventV1Item>("get", "events.events.k8s.io", "-n", "default")
    ).filter((e) => e.regarding?.name === "ev-target");
    for (const events of [viaApi, viaKubectl]) {
      const synced = events.filter((e) => e.reason === "Synced");
      expect(synced).toHaveLength(1);
      expect(synced[0]).toMatchObject({
        reportingController: "events-v1-test",
        reportingInstance: `events-v1-test-${hostname()}`.slice(0, 128),
        action: "Reconcile",
        note: "synced 1",
        type: "Normal",
        regarding: { kind: "ConfigMap", name: "ev-target", uid: (target.metadata as { uid: string }).uid },
        related: { kind: "ConfigMap", name: "ev-owner" },
        series: { count: 4 },
      });
      expect(synced[0]?.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const invalid = events.find((e) => e.reason === "Invalid");
      expect(invalid).toMatchObject({ type: "Warning", action: "Invalid" });
      expect(Buffer.byteLength(invalid?.note ?? "")).toBeLessThanOrEqual(1024);
    }
    // The core/v1 view of the same Event: what `kubectl get events` and `describe` show.
    const core = (await kubectlItems<CoreEventItem>("get", "events", "-n", "default")).find(
      (e) => e.involvedObject?.name === "ev-target" && e.reason === "Synced",
    );
    expect(core).toMatchObject({ message: "synced 1", reportingComponent: "events-v1-test" });
  });

  it("an Event about a cluster-scoped object goes to default, as client-go puts it", async () => {
    const ns = await manager.client.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ev-cluster-scoped" },
    });
    manager.events.normal(ns, "Prepared", "namespace ready");
    await manager.events.flush();
    const found = (await kubectlItems<EventV1Item>("get", "events.events.k8s.io", "-n", "default")).find(
      (e) => e.regarding?.name === "ev-cluster-scoped",
    );
    expect(found).toMatchObject({
      reason: "Prepared",
      regarding: { kind: "Namespace" },
      note: "namespace ready",
    });
  });

  it("a recorder forced to core/v1 writes the Events kubectl showed before (count, source)", async () => {
    const target = await configMap("ev-core");
    const recorder = new EventRecorder(manager.client, "events-v1-test", new Logger({ level: "error" }), {
      api: "v1",
    });
    recorder.normal(target, "Synced", "ok");
    recorder.normal(target, "Synced", "ok");
    await recorder.flush();
    const core = (await kubectlItems<CoreEventItem>("get", "events", "-n", "default")).filter(
      (e) => e.involvedObject?.name === "ev-core",
    );
    expect(core).toEqual([
      expect.objectContaining({
        reason: "Synced",
        message: "ok",
        count: 2,
        source: { component: "events-v1-test", host: hostname() },
      }),
    ]);
  });
});
