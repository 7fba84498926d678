// createOrUpdate sends an update only when mutate changed the object to Kubernetes' eyes
// (controller-runtime compares with equality.Semantic.DeepEqual): keys in another order, a quantity
// spelt differently, an empty map for an absent one and server defaults are no change. The writes
// (merge patches) are counted at a tsop/testing server.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/runtime/client/client.js";
import { quantitiesEqual, semanticEqual } from "../../src/runtime/controllerutil/equality.js";
import { createOrUpdate } from "../../src/runtime/controllerutil/helpers.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";

describe("semanticEqual", () => {
  // Expected values printed by k8s.io/apimachinery v0.34.4: resource.MustParse(a).Cmp(MustParse(b)) == 0.
  const quantities: Array<[string, string, boolean]> = [
    ["1000m", "1", true],
    ["1Gi", "1024Mi", true],
    ["1G", "1000M", true],
    ["1Gi", "1G", false],
    ["0.5", "500m", true],
    ["1e3", "1k", true],
    ["1E", "1e18", true],
    ["100m", "0.1", true],
    ["128974848", "129e6", false],
    ["128974848", "123Mi", true],
    ["1.5Gi", "1536Mi", true],
    ["2", "2.000", true],
    ["-1", "-1000m", true],
    ["1", "1001m", false],
    [".5", "0.5", true],
    ["1Ki", "1024", true],
    ["1n", "0.000000001", true],
    ["1u", "1000n", true],
  ];
  it.each(quantities)("quantity %s = %s: %s (as apimachinery's Quantity.Cmp)", (a, b, same) => {
    expect(quantitiesEqual(a, b)).toBe(same);
  });

  it("ignores key order and nil-vs-empty, keeps array order, compares quantities only where the API has them", () => {
    expect(semanticEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(semanticEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(semanticEqual({ labels: {} }, {})).toBe(true);
    expect(semanticEqual({ args: [] }, { args: null })).toBe(true);
    expect(semanticEqual({ x: undefined }, {})).toBe(true);
    expect(semanticEqual({ replicas: 0 }, {})).toBe(false);
    const limits = (cpu: unknown) => ({ containers: [{ resources: { limits: { cpu } } }] });
    expect(semanticEqual(limits("1000m"), limits("1"))).toBe(true);
    expect(semanticEqual(limits(2), limits("2"))).toBe(true);
    expect(semanticEqual(limits("1001m"), limits("1"))).toBe(false);
    // The same texts in a field that is not a quantity (an env value) are different strings.
    expect(
      semanticEqual({ env: [{ name: "CPU", value: "1000m" }] }, { env: [{ name: "CPU", value: "1" }] }),
    ).toBe(false);
  });
});

interface Deployment {
  apiVersion: "apps/v1";
  kind: "Deployment";
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: {
    replicas?: number;
    revisionHistoryLimit?: number;
    selector?: { matchLabels: Record<string, string> };
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        containers: Array<{
          name: string;
          image?: string;
          imagePullPolicy?: string;
          resources?: { limits?: Record<string, string> };
        }>;
      };
    };
  };
}

let cluster: TestCluster | undefined;
let rest: RestClient | undefined;
afterEach(async () => {
  rest?.close();
  await cluster?.stop();
  cluster = rest = undefined;
});

describe("createOrUpdate against the server", () => {
  it("sends no write for reordered keys, a respelt quantity, an empty map or server defaults; one PATCH for a real change", async () => {
    cluster = await startTestCluster();
    const c = cluster;
    const loaded = await loadKubeConfig({ kubeconfigText: c.kubeconfig });
    rest = new RestClient(loaded.server, loaded);
    const client = new Client(rest, new RestMapper(rest));
    const ref: Deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
    };
    const writes = (method: string) =>
      c.requests.filter((r) => r.method === method && r.path.includes("/deployments/")).length;
    const updates = () => writes("PUT") + writes("PATCH");

    // As the real API server answers: map keys sorted, cpu "1" (it canonicalises "1000m").
    const labels = { "app.kubernetes.io/instance": "web", "app.kubernetes.io/name": "web" };
    const created = await createOrUpdate(client, ref, (d) => {
      d.spec = {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "web", image: "nginx:1.27", resources: { limits: { cpu: "1" } } }] },
        },
      };
    });
    expect(created.operation).toBe("created");
    // The server defaulted fields the operator never sets.
    expect(created.object.spec?.revisionHistoryLimit).toBe(10);
    expect(created.object.spec?.template?.spec?.containers[0]?.imagePullPolicy).toBe("IfNotPresent");
    const version = created.object.metadata.resourceVersion;

    // What a reconciler does every time: set the fields it owns, in its own key order and spelling.
    const mutate = (replicas: number) => (d: Deployment) => {
      const spec = d.spec!;
      spec.replicas = replicas;
      spec.template!.metadata!.labels = {
        "app.kubernetes.io/name": "web",
        "app.kubernetes.io/instance": "web",
      };
      const container = spec.template!.spec!.containers[0]!;
      container.image = "nginx:1.27";
      container.resources = { limits: { cpu: "1000m" } };
      d.metadata.annotations = { ...d.metadata.annotations };
    };
    const before = updates();
    for (let i = 0; i < 3; i++) {
      const again = await createOrUpdate(client, ref, mutate(1));
      expect(again.operation).toBe("unchanged");
    }
    expect(updates()).toBe(before);
    expect(c.get("apps/v1", "Deployment", "web", "default")?.metadata?.resourceVersion).toBe(version);

    const scaled = await createOrUpdate(client, ref, mutate(3));
    expect(scaled.operation).toBe("updated");
    expect(updates()).toBe(before + 1);
    expect(writes("PUT")).toBe(0); // a merge patch of what mutate changed (trust-writes.test.ts)
    expect(c.get("apps/v1", "Deployment", "web", "default")?.spec).toMatchObject({ replicas: 3 });
  });
});
