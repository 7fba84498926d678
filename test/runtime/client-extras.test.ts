// Issue 39 items 3 and 6 against the in-memory API server: dryRun on every write, patchStatus,
// strategicMergeFrom (and its refusal for custom resources), subResource("scale"), the requests
// subResource("eviction" / "token") sends (the in-memory server does not serve those two; the real
// tier, client-extras.real.test.ts, runs them), and deleteAllOf.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { mergeFrom } from "../../src/runtime/client/patch.js";
import { strategicMergeFrom } from "../../src/runtime/client/strategic-merge.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { installWidgetCrd, type Widget, WIDGET } from "./support/trust-writes.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const DEPLOY = { apiVersion: "apps/v1", kind: "Deployment" } as const;

type Obj = KubeObjectLike & {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};
type Deployment = KubeObjectLike & {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Array<{ name: string; image: string }> };
    };
  };
};

let cluster: TestCluster;
let rest: RestClient;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster();
  const loaded = await loadKubeConfig({ kubeconfigText: cluster.kubeconfig });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  await installWidgetCrd(client);
});
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

function cm(name: string, labels: Record<string, string> = {}): Obj {
  return { ...CM, metadata: { name, namespace: "default", labels }, data: { a: "1" } };
}

function deployment(name: string): Deployment {
  return {
    ...DEPLOY,
    metadata: { name, namespace: "default" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: "app:1" }] },
      },
    },
  };
}

function requestsSince(start: number) {
  return cluster.requests.slice(start).map((r) => `${r.method} ${r.path}`);
}

describe("dryRun: true", () => {
  it("sends dryRun=All on every write, and the server stores nothing", async () => {
    const start = cluster.requests.length;
    const created = await client.create(cm("dry"), { dryRun: true });
    expect(created.metadata.name).toBe("dry");
    expect(await client.get(CM, { namespace: "default", name: "dry" })).toBeUndefined();

    const live = await client.create(cm("wet"));
    const changed = { ...live, data: { a: "2" } };
    expect((await client.update(changed, { dryRun: true })).data).toEqual({ a: "2" });
    expect((await client.patch(changed, mergeFrom(live), { dryRun: true })).data).toEqual({ a: "2" });
    await client.apply(
      { ...CM, metadata: { name: "wet", namespace: "default" }, data: { b: "3" } },
      {
        fieldManager: "test",
        dryRun: true,
      },
    );
    expect(await client.delete(live, { dryRun: true })).toBe(true);
    await client.deleteAllOf(CM, { namespace: "default", dryRun: true });
    const stored = await client.get<Obj>(CM, { namespace: "default", name: "wet" });
    expect(stored?.data).toEqual({ a: "1" });
    expect(stored?.metadata.resourceVersion).toBe(live.metadata.resourceVersion);

    const writes = requestsSince(start).filter((r) => !r.startsWith("GET"));
    expect(writes).toEqual([
      "POST /api/v1/namespaces/default/configmaps?dryRun=All",
      "POST /api/v1/namespaces/default/configmaps", // the one real write
      "PUT /api/v1/namespaces/default/configmaps/wet?dryRun=All",
      "PATCH /api/v1/namespaces/default/configmaps/wet?dryRun=All",
      "PATCH /api/v1/namespaces/default/configmaps/wet?fieldManager=test&dryRun=All",
      "DELETE /api/v1/namespaces/default/configmaps/wet?dryRun=All",
      "DELETE /api/v1/namespaces/default/configmaps?dryRun=All",
    ]);
  });

  it("sends dryRun=All with updateStatus and patchStatus", async () => {
    const w = await client.create<Widget>({
      ...WIDGET,
      metadata: { name: "dry-status", namespace: "default" },
    });
    const start = cluster.requests.length;
    await client.updateStatus({ ...w, status: { observedGeneration: 5 } }, { dryRun: true });
    await client.patchStatus(w, { status: { observedGeneration: 6 } }, { dryRun: true });
    expect(requestsSince(start).every((r) => r.includes("/status?dryRun=All"))).toBe(true);
    expect(
      (await client.get<Widget>(WIDGET, { namespace: "default", name: "dry-status" }))?.status,
    ).toBeUndefined();
  });
});

describe("client.patchStatus", () => {
  it("patches only the status fields changed since base, through the status subresource", async () => {
    const w = await client.create<Widget>({
      ...WIDGET,
      metadata: { name: "status", namespace: "default" },
      spec: { size: 1 },
    });
    const base = structuredClone(w);
    w.status = { observedGeneration: 1 };
    w.spec = { size: 9 }; // ignored by the status subresource
    const start = cluster.requests.length;
    const out = await client.patchStatus(w, mergeFrom(base));
    expect(requestsSince(start)).toEqual([
      "PATCH /apis/trust.example.com/v1/namespaces/default/widgets/status/status",
    ]);
    expect(out.status).toEqual({ observedGeneration: 1 });
    expect(out.spec).toEqual({ size: 1 });
  });
});

describe("strategicMergeFrom", () => {
  it("keeps a container another writer added (a merge patch would replace the list)", async () => {
    const live = await client.create(deployment("smp"));
    const base = structuredClone(live);
    // Another writer adds a sidecar meanwhile.
    const other = structuredClone(live);
    other.spec.template.spec.containers.push({ name: "sidecar", image: "side:1" });
    await client.update(other);
    // We change our container's image from our (now stale) copy.
    live.spec.template.spec.containers[0]!.image = "app:2";
    const out = await client.patch(live, strategicMergeFrom(base));
    expect(out.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      "app=app:2",
      "sidecar=side:1",
    ]);
    const last = cluster.requests.at(-1)!;
    expect(last.method).toBe("PATCH");
  });

  it("is refused for a custom resource, naming the kind and what to use instead", async () => {
    const w = await client.create<Widget>({ ...WIDGET, metadata: { name: "smp", namespace: "default" } });
    const base = structuredClone(w);
    w.spec = { size: 2 };
    const start = cluster.requests.length;
    await expect(client.patch(w, strategicMergeFrom(base))).rejects.toThrow(
      /cannot send a strategic merge patch to Widget smp \(trust\.example\.com\/v1\).*custom resources/,
    );
    await expect(client.patch(w, { spec: { size: 3 } }, { type: "strategic" })).rejects.toThrow(/Widget smp/);
    expect(requestsSince(start)).toEqual([]);
  });
});

describe("client.subResource", () => {
  it("scale: get, update and patch a Deployment's autoscaling/v1 Scale", async () => {
    const d = await client.create(deployment("scaled"));
    const scale = client.subResource("scale");
    const s = await scale.get<{ kind: string; spec: { replicas: number } }>(d);
    expect(s).toMatchObject({ kind: "Scale", spec: { replicas: 1 } });
    await scale.update(d, { ...s, spec: { replicas: 3 } });
    expect(
      (await client.get<Deployment>(DEPLOY, { namespace: "default", name: "scaled" }))?.spec.replicas,
    ).toBe(3);
    await scale.patch(
      { kind: DEPLOY, key: { namespace: "default", name: "scaled" } },
      { spec: { replicas: 0 } },
    );
    expect(
      (await client.get<Deployment>(DEPLOY, { namespace: "default", name: "scaled" }))?.spec.replicas,
    ).toBe(0);
    await scale.patch(d, { spec: { replicas: 7 } }, { dryRun: true });
    expect((await scale.get<{ spec: { replicas: number } }>(d))?.spec.replicas).toBe(0);
    expect(await scale.get({ kind: DEPLOY, key: { namespace: "default", name: "missing" } })).toBeUndefined();
  });

  it("eviction and token: POSTs the body, named after the parent, to the subresource", async () => {
    const start = cluster.requests.length;
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } };
    await client
      .subResource("eviction")
      .create(pod, { apiVersion: "policy/v1", kind: "Eviction" }, { dryRun: true })
      .catch(() => undefined); // the in-memory server does not serve evictions
    await client
      .subResource("token")
      .create(
        { kind: { apiVersion: "v1", kind: "ServiceAccount" }, key: { namespace: "default", name: "sa" } },
        { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
      )
      .catch(() => undefined);
    expect(requestsSince(start)).toEqual([
      "POST /api/v1/namespaces/default/pods/p/eviction?dryRun=All",
      "POST /api/v1/namespaces/default/serviceaccounts/sa/token",
    ]);
  });

  it("refuses a name that is not a subresource", () => {
    expect(() => client.subResource("Scale/")).toThrow(/"Scale\/" is not a subresource name/);
  });
});

describe("client.deleteAllOf", () => {
  it("deletes the objects matching the selector in one request, and only those", async () => {
    await client.create(cm("gone-1", { tier: "cache" }));
    await client.create(cm("gone-2", { tier: "cache" }));
    await client.create(cm("kept", { tier: "db" }));
    const start = cluster.requests.length;
    await client.deleteAllOf(CM, { namespace: "default", labelSelector: { tier: "cache" } });
    expect(requestsSince(start)).toEqual([
      "DELETE /api/v1/namespaces/default/configmaps?labelSelector=tier%3Dcache",
    ]);
    const left = await client.list<Obj>(CM, { namespace: "default", labelSelector: "tier" });
    expect(left.map((o) => o.metadata.name)).toEqual(["kept"]);
  });

  it("needs a namespace for a namespaced kind", async () => {
    await expect(client.deleteAllOf(CM, { labelSelector: "tier" })).rejects.toThrow(
      /deleteAllOf\(ConfigMap\) needs a namespace: ConfigMap is namespaced/,
    );
  });
});
