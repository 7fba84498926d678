// Controllers for CRDs that come and go, on tsop/testing's in-memory server: a controller whose
// primary kind is optional waits for its CRD (readiness and a metric name it), reconciles once the
// CRD is established, stops watching when the CRD is deleted (no 404 relists) and reconciles again
// when it returns, without a restart. The same headline case runs on the real kube-apiserver in
// crd-lifecycle.real.test.ts.
import { afterEach, expect, it } from "vitest";
import { harness, type Harness, sample } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";
import { readyz, WIDGET, WIDGET_CRD_NAME, widgetCrd } from "./support/optional-crd.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const WAITING_METRIC = 'tsop_cache_waiting_for_crd{group="example.com",kind="Widget",version="v1"}';

async function metric(url: string | undefined, series: string): Promise<number | undefined> {
  return sample(await (await fetch(`${url}/metrics`)).text(), series);
}

it("waits for an optional kind's CRD, reconciles once it is established, and again after it is deleted and returns", async () => {
  h = await harness();
  const manager = await h.startManager();
  const reconciled: string[] = [];
  await manager
    .controller(WIDGET, { optional: true })
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  void manager.start();

  // No CRD: the manager runs, readiness names the CRD the controller waits for.
  const waiting = await waitFor("readiness to name the missing CRD", async () => {
    const r = await readyz(manager.healthProbeUrl);
    return r.body.includes("waits for") && r;
  });
  expect(waiting.status).toBe(500);
  expect(waiting.body).toContain(
    "[-]crds failed: controller widget waits for CRD (example.com/v1 Widget): no CRD defines it",
  );
  expect(await metric(manager.metricsUrl, WAITING_METRIC)).toBe(1);
  expect(h.logs.some((l) => l.includes("waiting for a CRD") && l.includes("example.com/v1 Widget"))).toBe(
    true,
  );

  // The CRD is installed: the controller reconciles, readiness passes.
  await h.client.create(widgetCrd());
  await waitFor(
    "the controller to watch Widgets",
    async () => (await readyz(manager.healthProbeUrl)).status === 200,
  );
  await h.client.create({ ...WIDGET, metadata: { name: "first", namespace: "default" }, spec: {} });
  await waitFor("first to be reconciled", () => reconciled.includes("default/first"));
  expect((await readyz(manager.healthProbeUrl)).status).toBe(200);
  expect(await metric(manager.metricsUrl, WAITING_METRIC)).toBe(0);

  // The CRD is deleted: back to waiting; the API server ends the kind's watches (as kube-apiserver
  // does when it drops a CRD's storage), and the informer does not relist a kind that is gone.
  await h.client.delete({
    kind: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" },
    key: { name: WIDGET_CRD_NAME },
  });
  await waitFor("readiness to say the controller waits again", async () =>
    (await readyz(manager.healthProbeUrl)).body.includes("controller widget waits for CRD"),
  );
  h.cluster.closeWatches();
  expect(await metric(manager.metricsUrl, WAITING_METRIC)).toBe(1);
  expect((await manager.informerFor(WIDGET)).list()).toEqual([]);

  // The CRD returns: reconciled again, without a restart.
  await h.client.create(widgetCrd());
  await waitFor(
    "the Widget CRD to be served again",
    async () => (await readyz(manager.healthProbeUrl)).status === 200,
  );
  await h.client.create({ ...WIDGET, metadata: { name: "second", namespace: "default" }, spec: {} });
  await waitFor("second to be reconciled", () => reconciled.includes("default/second"));

  const notFound = h.cluster.requests.filter((r) => r.path.includes("/widgets") && r.status === 404);
  expect(notFound).toEqual([]);
});

it("runs a controller whose optional watched kind has no CRD, and adds that source when the CRD appears", async () => {
  h = await harness();
  const manager = await h.startManager();
  const reconciled: string[] = [];
  await manager
    .controller({ apiVersion: "v1", kind: "ConfigMap" })
    .watches(
      WIDGET,
      (w) => ({ namespace: "default", name: `from-${(w.metadata as { name: string }).name}` }),
      {
        optional: true,
      },
    )
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  void manager.start();
  await h.client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "plain", namespace: "default" },
  });
  await waitFor("the ConfigMap to be reconciled while Widget's CRD is missing", () =>
    reconciled.includes("default/plain"),
  );
  expect((await readyz(manager.healthProbeUrl)).status).toBe(200); // its primary kind is served
  expect(await metric(manager.metricsUrl, WAITING_METRIC)).toBe(1);

  await h.client.create(widgetCrd());
  await waitFor(
    "the Widget source to join",
    async () => (await metric(manager.metricsUrl, WAITING_METRIC)) === 0,
  );
  await h.client.create({ ...WIDGET, metadata: { name: "w", namespace: "default" }, spec: {} });
  await waitFor("the Widget's mapped key to be reconciled", () => reconciled.includes("default/from-w"));
});

it("fails loudly for a kind that is not served and not optional", async () => {
  h = await harness();
  const manager = await h.startManager();
  await expect(manager.controller(WIDGET).complete(async () => {})).rejects.toThrow(/Widget/);
});

it("watches an optional kind as if its CRD were installed when the role may not list CRDs, saying so", async () => {
  h = await harness();
  await h.client.create(widgetCrd());
  await waitFor("the Widget CRD to be served", async () =>
    h!.client.list(WIDGET).then(
      () => true,
      () => false,
    ),
  );
  await h.client.create({ ...WIDGET, metadata: { name: "present", namespace: "default" }, spec: {} });
  h.cluster.forbid({ group: "apiextensions.k8s.io", resource: "customresourcedefinitions" });
  const manager = await h.startManager();
  const reconciled: string[] = [];
  await manager
    .controller(WIDGET, { optional: true })
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  void manager.start();
  await waitFor("present to be reconciled", () => reconciled.includes("default/present"));
  const warning = h.logs.find((l) => l.includes("may not list CustomResourceDefinitions"));
  expect(warning).toContain("grant get, list, watch on customresourcedefinitions");
  expect((await readyz(manager.healthProbeUrl)).status).toBe(200);
});

it("watches an optional kind no CRD defines that the server serves anyway (built in or aggregated)", async () => {
  h = await harness();
  const manager = await h.startManager();
  const reconciled: string[] = [];
  await manager
    .controller({ apiVersion: "v1", kind: "ConfigMap" }, { optional: true })
    .complete(async (req) => void reconciled.push(`${req.namespace}/${req.name}`));
  void manager.start();
  await h.client.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "built-in", namespace: "default" },
  });
  await waitFor("the ConfigMap to be reconciled", () => reconciled.includes("default/built-in"));
  expect((await readyz(manager.healthProbeUrl)).status).toBe(200);
});
