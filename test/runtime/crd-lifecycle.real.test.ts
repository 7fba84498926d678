// CRDs that come and go and namespaces that change, on the real kube-apiserver (v1.34), run as a
// user holding only the rules `tsop generate` writes for such an operator (rbac/runtime-needs.ts:
// get/list/watch on CRDs and on namespaces, besides its kinds): a CRD installed after the manager
// started is reconciled without a restart, the leader Lease renewing while the controller waits;
// deleted, the controller waits again without relisting the gone kind, and reconciles once it returns;
// a namespace labelled after start is watched and its objects reconciled.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager, type ManagerOptions } from "../../src/runtime/manager/manager.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { readLease } from "./support/trust-leader.js";
import { readyz, WIDGET, WIDGET_CRD_NAME, widgetCrd } from "./support/optional-crd.js";
import { waitFor } from "./support/wait.js";

const USER = "crd-lifecycle-operator";
const CONFIG_MAP = { apiVersion: "v1", kind: "ConfigMap" } as const;
const WATCHED = { "tsop.io/watched": "true" };

let real: RealTestCluster;
let rest: RestClient;
let client: Client;
const managers: Manager[] = [];
const logs: string[] = [];

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  const rbac = "rbac.authorization.k8s.io/v1";
  const list = ["get", "list", "watch"];
  await client.create({
    apiVersion: rbac,
    kind: "ClusterRole",
    metadata: { name: USER },
    rules: [
      { apiGroups: ["example.com"], resources: ["widgets"], verbs: list },
      { apiGroups: [""], resources: ["configmaps"], verbs: list },
      // What `tsop generate` adds for optional kinds and for cache.namespaceSelector:
      { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: list },
      { apiGroups: [""], resources: ["namespaces"], verbs: list },
      { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
    ],
  });
  await client.create({
    apiVersion: rbac,
    kind: "ClusterRoleBinding",
    metadata: { name: USER },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: USER },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: USER }],
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  rest?.close();
  await real?.stop();
});

async function startManager(options: ManagerOptions): Promise<Manager> {
  const manager = await Manager.create({
    kubeconfigText: real.kubeconfigFor(USER),
    metricsBindAddress: "0",
    healthProbeBindAddress: "127.0.0.1:0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
    ...options,
  });
  managers.push(manager);
  return manager;
}

it("reconciles an optional kind whose CRD is installed after the manager started, without a restart", async () => {
  const election = {
    id: "crd-lifecycle.example.com",
    namespace: "default",
    leaseDurationSeconds: 4,
    renewDeadlineSeconds: 3,
    retryPeriodSeconds: 0.5,
  };
  const manager = await startManager({ leaderElection: election });
  const reconciled: string[] = [];
  await manager
    .controller(WIDGET, { optional: true })
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  const running = manager.start();
  running.catch(() => {});

  const waiting = await waitFor("readiness to name the missing CRD", async () => {
    const r = await readyz(manager.healthProbeUrl);
    return r.body.includes("waits for") && r;
  });
  expect(waiting.body).toContain(
    "[-]crds failed: controller widget waits for CRD (example.com/v1 Widget): no CRD defines it",
  );
  // The leader keeps renewing its Lease while the controller waits.
  await waitFor("the Lease acquired", () => manager.isLeader(), 30_000);
  const first = (await readLease(client, election.id))?.spec?.renewTime;
  await waitFor("the Lease renewed while the controller waits", async () => {
    const now = (await readLease(client, election.id))?.spec?.renewTime;
    return now !== undefined && now !== first;
  });

  await client.create(widgetCrd());
  await waitFor(
    "readiness to pass once the CRD is established",
    async () => (await readyz(manager.healthProbeUrl)).status === 200,
  );
  await client.create({ ...WIDGET, metadata: { name: "late", namespace: "default" }, spec: {} });
  await waitFor("the Widget to be reconciled", () => reconciled.includes("default/late"));
  expect(manager.isLeader()).toBe(true);
  // Not one list of widgets answered 404 (the informer started only once the CRD was served).
  expect(real.requests.filter((r) => r.path.includes("/widgets") && r.status === 404)).toEqual([]);

  // The CRD is deleted: the controller waits again, and the informer does not relist a kind that
  // is gone (none of its requests while the Lease renews three times, ~1.5 s: a relist loop's
  // first retry comes after 0.8 s).
  await client.delete({
    kind: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" },
    key: { name: WIDGET_CRD_NAME },
  });
  await waitFor("readiness to say the controller waits again", async () =>
    (await readyz(manager.healthProbeUrl)).body.includes("controller widget waits for CRD"),
  );
  const widgetRequests = () => real.requests.filter((r) => r.path.includes("/widgets")).length;
  const afterGone = widgetRequests();
  let renewTime = (await readLease(client, election.id))?.spec?.renewTime;
  for (let renewals = 0; renewals < 3; renewals++)
    await waitFor("the Lease to renew while the CRD is gone", async () => {
      const now = (await readLease(client, election.id))?.spec?.renewTime;
      if (now === undefined || now === renewTime) return false;
      renewTime = now;
      return true;
    });
  expect(widgetRequests()).toBe(afterGone);

  // The CRD returns: reconciled again, without a restart.
  await client.create(widgetCrd());
  await waitFor("readiness to pass again", async () => (await readyz(manager.healthProbeUrl)).status === 200);
  await client.create({ ...WIDGET, metadata: { name: "again", namespace: "default" }, spec: {} });
  await waitFor("the Widget to be reconciled after the CRD returned", () =>
    reconciled.includes("default/again"),
  );
}, 60_000);

it("watches a namespace labelled after start", async () => {
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "nsel-later" } });
  await client.create({ ...CONFIG_MAP, metadata: { name: "late", namespace: "nsel-later" } });
  const manager = await startManager({ cache: { namespaceSelector: { matchLabels: WATCHED } } });
  const reconciled: string[] = [];
  await manager
    .controller(CONFIG_MAP)
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  const running = manager.start();
  running.catch(() => {});
  await waitFor("the manager to be ready", async () => (await readyz(manager.healthProbeUrl)).status === 200);
  expect(reconciled.filter((k) => k.startsWith("nsel-later/"))).toEqual([]);

  await client.patch(
    { kind: { apiVersion: "v1", kind: "Namespace" }, key: { name: "nsel-later" } },
    { metadata: { labels: WATCHED } },
    { type: "merge" },
  );
  await waitFor("nsel-later/late to be reconciled", () => reconciled.includes("nsel-later/late"));
}, 60_000);
