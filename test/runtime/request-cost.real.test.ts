// What the runtime asks of the real kube-apiserver (issue 26), counted at the cluster's proxy: the
// real server is the oracle for what "unchanged" means (it sorts map keys, canonicalises quantities
// and defaults fields), for the optimistic lease renewal (its resourceVersion checks) and for
// Event patches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { EventRecorder } from "../../src/runtime/events/events.js";
import { createOrUpdate } from "../../src/runtime/controllerutil/helpers.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { LeaderElector } from "../../src/runtime/manager/leader.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

let real: RealTestCluster;
let rest: RestClient;
let client: Client;
const quiet = new Logger({ sink: { write: () => {} } });

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfig: real.kubeconfigPath });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
});
afterAll(async () => {
  rest?.close();
  await real?.stop();
});

const writes = (from: number, pathPart: string) =>
  real.requests
    .slice(from)
    .filter((r) => r.path.includes(pathPart) && r.method !== "GET")
    .map((r) => `${r.method} ${r.status}`);

interface Deployment {
  apiVersion: "apps/v1";
  kind: "Deployment";
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        containers: Array<{ name: string; image?: string; resources?: { limits?: Record<string, string> } }>;
      };
    };
  };
}

describe("on the real kube-apiserver", () => {
  it("createOrUpdate: the server's own answer (sorted keys, cpu 1, defaults) is no change; a new replica count is one PATCH of what changed", async () => {
    const ref: Deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
    };
    // Keys in the operator's order (name before instance), cpu as "1000m": the server stores them its way.
    const labels = { "app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web" };
    const mutate = (replicas: number) => (d: Deployment) => {
      d.spec ??= {};
      d.spec.replicas = replicas;
      d.spec.selector ??= { matchLabels: labels };
      d.spec.template ??= {};
      d.spec.template.metadata = { ...d.spec.template.metadata, labels: { ...labels } };
      d.spec.template.spec ??= { containers: [{ name: "web" }] };
      const container = d.spec.template.spec.containers[0] as { image?: string; resources?: object };
      container.image = "nginx:1.27";
      container.resources = { limits: { cpu: "1000m", memory: "64Mi" } };
      d.metadata.annotations = { ...d.metadata.annotations };
    };
    const from = real.requests.length;
    expect((await createOrUpdate(client, ref, mutate(1))).operation).toBe("created");
    const stored = await client.get<Deployment>(ref, { namespace: "default", name: "web" });
    expect(stored?.spec?.template?.spec?.containers[0]?.resources?.limits?.cpu).toBe("1");
    for (let i = 0; i < 3; i++)
      expect((await createOrUpdate(client, ref, mutate(1))).operation).toBe("unchanged");
    expect((await createOrUpdate(client, ref, mutate(2))).operation).toBe("updated");
    expect(writes(from, "/deployments")).toEqual(["POST 201", "PATCH 200"]);
  });

  it("leader election: every renewal is one PUT; a lease written meanwhile costs one conflict and one GET", async () => {
    const elector = new LeaderElector(
      client,
      {
        id: "cost",
        namespace: "default",
        leaseDurationSeconds: 15,
        renewDeadlineSeconds: 10,
        retryPeriodSeconds: 0.05,
      },
      quiet,
    );
    const stop = new AbortController();
    expect(await elector.acquire(stop.signal)).toBe(true);
    const lease = await client.get<{ metadata: { annotations?: Record<string, string> } }>(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease" },
      { namespace: "default", name: "cost" },
    );
    lease!.metadata.annotations = { touched: "yes" };
    await client.update(lease as never);
    const from = real.requests.length;
    const holding = elector.holdUntil(stop.signal);
    const leaseRequests = () =>
      real.requests
        .slice(from)
        .filter((r) => r.path.split("?")[0] === "/apis/coordination.k8s.io/v1/namespaces/default/leases/cost")
        .map((r) => `${r.method} ${r.status}`);
    await waitFor("12 lease requests", () => leaseRequests().length >= 12, 60_000);
    stop.abort();
    await holding;
    const seen = leaseRequests();
    expect(seen.slice(0, 3)).toEqual(["PUT 409", "GET 200", "PUT 200"]);
    expect(new Set(seen.slice(3))).toEqual(new Set(["PUT 200"]));
  });

  it("events: 30 identical events about one object are one POST and 24 PATCHes; the Event counts 25", async () => {
    const target = await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "noisy", namespace: "default" },
    });
    const recorder = new EventRecorder(client, "cost-test", quiet, () => 0);
    const from = real.requests.length;
    for (let i = 0; i < 30; i++) recorder.normal(target, "Synced", "all good");
    await recorder.flush();
    expect(writes(from, "/events")).toEqual(["POST 201", ...Array(24).fill("PATCH 200")]);
    const events = (
      await client.list<{ kind?: string; count?: number; involvedObject?: { name?: string } }>(
        { apiVersion: "v1", kind: "Event" },
        { namespace: "default" },
      )
    ).filter((e) => e.involvedObject?.name === "noisy");
    expect(events.map((e) => e.count)).toEqual([25]);
  });
});
