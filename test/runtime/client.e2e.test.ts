// Client, helpers and kubeconfig loading against the in-memory API server.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster } from "../../src/testing/index.js";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { ApiError, isConflict, isNotFound } from "../../src/runtime/connect/errors.js";
import { EventRecorder } from "../../src/runtime/events/events.js";
import {
  createOrUpdate,
  ensureFinalizer,
  removeFinalizer,
  retryOnConflict,
  updateStatus,
} from "../../src/runtime/controllerutil/helpers.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { Memcached } from "./fixtures/memcached.js";
import { MEMCACHED_CRD } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

type Cluster = Awaited<ReturnType<typeof startTestCluster>>;
type Obj = KubeObjectLike & {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    generation?: number;
  };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  count?: number;
  reason?: string;
};

let cluster: Cluster;
let rest: RestClient;
let client: Client;
const tmp = mkdtempSync(join(tmpdir(), "tsop-kc-"));

beforeAll(async () => {
  cluster = await startTestCluster();
  const loaded = await loadKubeConfig({ kubeconfig: cluster.kubeconfigPath });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  await client.create(MEMCACHED_CRD);
  await waitFor(
    "CRD served",
    async () =>
      (
        await rest
          .request<{ resources?: unknown[] }>("GET", "/apis/cache.example.com/v1alpha1")
          .catch(() => ({ resources: [] }))
      ).resources?.length,
  );
});
afterAll(async () => {
  rest.close();
  await cluster.stop();
  rmSync(tmp, { recursive: true, force: true });
});
afterEach(() => cluster.faults.clear());

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const cm = (name: string, data: Record<string, string> = {}): Obj => ({
  ...CM,
  metadata: { name, namespace: "default" },
  data,
});

describe("loadKubeConfig", () => {
  const other = `apiVersion: v1
kind: Config
clusters: [{ name: far, cluster: { server: "https://far.example.com:6443" } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: far, context: { cluster: far, user: u, namespace: team } }]
current-context: far
`;

  it("uses --kubeconfig, then KUBECONFIG, with --context choosing among contexts", async () => {
    const file = join(tmp, "other");
    writeFileSync(file, other);
    const fromFlag = await loadKubeConfig({ kubeconfig: file, env: {} });
    expect(fromFlag).toMatchObject({
      server: "https://far.example.com:6443",
      namespace: "team",
      source: file,
      inCluster: false,
    });
    const fromEnv = await loadKubeConfig({
      env: { KUBECONFIG: `${file}:${cluster.kubeconfigPath}` },
      context: "tsop-test",
    });
    expect(fromEnv.server).toBe(cluster.url);
    expect(fromEnv.source).toContain("KUBECONFIG=");
  });

  it("uses the in-cluster service account when running in a pod", async () => {
    const root = join(tmp, "pod");
    const sa = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), "pod-token");
    writeFileSync(join(sa, "ca.crt"), "not a real CA");
    writeFileSync(join(sa, "namespace"), "operators\n");
    const loaded = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443", HOME: tmp },
      inClusterRoot: root,
    });
    expect(loaded).toMatchObject({
      server: "https://10.96.0.1:443",
      namespace: "operators",
      inCluster: true,
      source: "in-cluster service account",
    });
    // KUBECONFIG wins over the service account, as in controller-runtime.
    const local = await loadKubeConfig({
      env: { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBECONFIG: cluster.kubeconfigPath },
      inClusterRoot: root,
    });
    expect(local.inCluster).toBe(false);
  });

  it("names the missing context, file, or config", async () => {
    await expect(loadKubeConfig({ kubeconfig: cluster.kubeconfigPath, context: "nope" })).rejects.toThrow(
      /context "nope" is not in the kubeconfig/,
    );
    await expect(loadKubeConfig({ kubeconfig: join(tmp, "missing") })).rejects.toThrow(/does not exist/);
    await expect(loadKubeConfig({ env: { HOME: tmp } })).rejects.toThrow(/no kubeconfig found/);
  });
});

describe("Client", () => {
  it("does CRUD, patches, apply and delete with clear not-found answers", async () => {
    expect(await client.get(CM, { namespace: "default", name: "absent" })).toBeUndefined();
    const created = await client.create(cm("c1", { a: "1" }));
    expect(created.metadata.resourceVersion).toBeTruthy();
    const got = await client.get<Obj>(CM, { namespace: "default", name: "c1" });
    expect(got).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } });
    const merged = await client.patch<Obj>(
      { kind: CM, key: { namespace: "default", name: "c1" } },
      { data: { b: "2" } },
    );
    expect(merged.data).toEqual({ a: "1", b: "2" });
    const jsonPatched = await client.patch<Obj>(merged, [{ op: "remove", path: "/data/a" }], {
      type: "json",
    });
    expect(jsonPatched.data).toEqual({ b: "2" });
    const applied = await client.apply<Obj>(cm("c2", { x: "y" }), { fieldManager: "test" });
    expect(applied.data).toEqual({ x: "y" });
    const stale = { ...got, data: { a: "stale" } } as Obj;
    const err = await client.update(stale).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isConflict(err)).toBe(true);
    const listed = await client.list<Obj>(CM, { namespace: "default", labelSelector: {} });
    expect(listed.map((o) => o.metadata.name).sort()).toEqual(expect.arrayContaining(["c1", "c2"]));
    expect(listed.every((o) => o.kind === "ConfigMap")).toBe(true);
    expect(await client.delete(cm("c1"))).toBe(true);
    expect(await client.delete(cm("c1"))).toBe(false);
    const missing = await client.update(cm("c1")).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
  });

  it("resolves kinds through discovery and says when a kind is not served", async () => {
    await expect(client.get({ apiVersion: "example.com/v1", kind: "Nope" }, { name: "x" })).rejects.toThrow(
      /does not serve kind Nope in example.com\/v1/,
    );
  });

  it("retries what the server asks to retry (429 with Retry-After), as client-go does; other 5xx fail at once", async () => {
    await client.create(cm("throttled", { a: "1" }));
    const path = "/api/v1/namespaces/default/configmaps/throttled";
    cluster.faults.add({ method: "GET", path, status: 429, count: 2, retryAfterSeconds: 0 });
    cluster.faults.add({ method: "PUT", path, status: 503, count: 1, retryAfterSeconds: 0 });
    const got = await client.get<Obj>(CM, { namespace: "default", name: "throttled" });
    expect(got?.data).toEqual({ a: "1" });
    expect(await client.update({ ...got, data: { a: "2" } } as Obj)).toMatchObject({ data: { a: "2" } });
    expect(cluster.faults.pending()).toBe(0);
    // No Retry-After: the reconcile fails and requeues instead (no hidden retries of writes).
    cluster.faults.add({ method: "GET", path, status: 500, count: 1 });
    const failed = await client.get(CM, { namespace: "default", name: "throttled" }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).status).toBe(500);
  });
});

describe("helpers", () => {
  it("createOrUpdate creates, leaves unchanged objects alone, and updates", async () => {
    const mutate = (o: Obj) => {
      o.data = { ...o.data, key: "v1" };
    };
    const first = await createOrUpdate(client, cm("cou"), mutate);
    expect(first.operation).toBe("created");
    const again = await createOrUpdate(client, cm("cou"), mutate);
    expect(again.operation).toBe("unchanged");
    expect(again.object.metadata.resourceVersion).toBe(first.object.metadata.resourceVersion);
    const changed = await createOrUpdate(client, cm("cou"), (o) => {
      o.data = { key: "v2" };
    });
    expect(changed.operation).toBe("updated");
    expect(changed.object.data).toEqual({ key: "v2" });
  });

  it("createOrUpdate retries when it loses an update race", async () => {
    await client.create(cm("race", { n: "0" }));
    cluster.faults.add({
      method: "PUT",
      path: "/api/v1/namespaces/default/configmaps/race",
      status: 409,
      count: 1,
    });
    const result = await createOrUpdate(client, cm("race"), (o) => {
      o.data = { n: "1" };
    });
    expect(result.operation).toBe("updated");
    expect((await client.get<Obj>(CM, { namespace: "default", name: "race" }))?.data).toEqual({ n: "1" });
  });

  it("finalizers are added and removed once, through conflicts", async () => {
    const obj = await client.create(cm("fin"));
    await client.patch(obj, { metadata: { labels: { bump: "1" } } }); // obj is now stale
    expect(await ensureFinalizer(client, obj, "example.com/f")).toBe(true);
    expect(obj.metadata.finalizers).toEqual(["example.com/f"]);
    expect(obj.metadata.labels).toEqual({ bump: "1" }); // refreshed from the server
    expect(await ensureFinalizer(client, obj, "example.com/f")).toBe(false);
    expect(await removeFinalizer(client, obj, "example.com/f")).toBe(true);
    expect(
      (await client.get<Obj>(CM, { namespace: "default", name: "fin" }))?.metadata.finalizers ?? [],
    ).toEqual([]);
  });

  it("updateStatus writes only status, retries conflicts by re-applying, and reports a vanished object", async () => {
    const mc = await client.create<Obj>({
      apiVersion: "cache.example.com/v1alpha1",
      kind: "Memcached",
      metadata: { name: "st", namespace: "default" },
      spec: { size: 1 },
    });
    await client.patch(mc, { spec: { size: 2 } }); // mc is stale now
    cluster.faults.add({ method: "PUT", path: /\/memcacheds\/st\/status$/, status: 409, count: 1 });
    let calls = 0;
    expect(
      await updateStatus(client, mc, (o) => {
        calls++;
        o.status = { readyReplicas: 1 };
        if (o.spec) o.spec.size = 99; // ignored by the status subresource
      }),
    ).toBe(true);
    expect(calls).toBe(2); // once up front, once more on the fresh copy after the 409
    const live = await client.get<Obj>(Memcached as never, { namespace: "default", name: "st" });
    expect(live?.status).toEqual({ readyReplicas: 1 });
    expect(live?.spec).toEqual({ size: 2 });
    expect(mc.status).toEqual({ readyReplicas: 1 });
    await client.delete(mc);
    expect(await updateStatus(client, mc)).toBe(false);
  });

  it("retryOnConflict gives up after its steps", async () => {
    let attempts = 0;
    const conflict = new ApiError("PUT", "/x", 409, { reason: "Conflict" });
    await expect(
      retryOnConflict(
        async () => {
          attempts++;
          throw conflict;
        },
        { steps: 3, delayMs: 1 },
      ),
    ).rejects.toBe(conflict);
    expect(attempts).toBe(3);
  });

  it("records events and counts repeats on one Event", async () => {
    const recorder = new EventRecorder(client, "test-operator", new Logger({ sink: { write: () => {} } }));
    const target = await client.create(cm("evented"));
    recorder.normal(target, "Synced", "all good");
    await recorder.flush();
    recorder.normal(target, "Synced", "all good");
    recorder.warning(target, "Failed", "oops");
    await recorder.flush();
    const events = (
      await client.list<Obj>({ apiVersion: "v1", kind: "Event" }, { namespace: "default" })
    ).filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === "evented");
    expect(events.map((e) => [e.reason, e.count]).sort()).toEqual([
      ["Failed", 1],
      ["Synced", 2],
    ]);
    expect(events[0]).toMatchObject({
      source: { component: "test-operator" },
      involvedObject: { kind: "ConfigMap", namespace: "default" },
    });
  });
});

describe("TLS", () => {
  it("verifies the server certificate against the kubeconfig CA", async () => {
    const secure = await startTestCluster({ tls: true });
    try {
      expect(secure.url.startsWith("https://")).toBe(true);
      const loaded = await loadKubeConfig({ kubeconfigText: secure.kubeconfig });
      const tlsRest = new RestClient(loaded.server, loaded);
      const tlsClient = new Client(tlsRest, new RestMapper(tlsRest));
      expect(await tlsClient.get(CM, { namespace: "default", name: "absent" })).toBeUndefined();
      tlsRest.close();
      // The same server without its CA: the connection is refused, not silently trusted.
      const noCa = secure.kubeconfig.replace(/certificate-authority-data: .*/, "");
      const untrusted = await loadKubeConfig({ kubeconfigText: noCa });
      const badRest = new RestClient(untrusted.server, untrusted);
      await expect(new Client(badRest, new RestMapper(badRest)).get(CM, { name: "x" })).rejects.toThrow(
        /certificate|self.signed/i,
      );
      badRest.close();
    } finally {
      await secure.stop();
    }
  });
});
