// The real @kubernetes/client-node against the test server: KubeConfig, KubernetesObjectApi, typed
// APIs, Watch, and a controller-style informer (list + watch + resync) that survives closed watches
// and 410 Gone.
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  type V1ConfigMap,
  Watch,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { memcachedCrd } from "./helpers.js";

let cluster: TestCluster;
let kc: KubeConfig;
let api: KubernetesObjectApi;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ["ctrl"] });
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  api = KubernetesObjectApi.makeApiClient(kc);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => {
  await cluster.stop();
});

async function apiError(p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiException);
    const err = e as ApiException<string>;
    return { code: err.code, body: JSON.parse(err.body) };
  }
  throw new Error("expected the call to fail");
}

describe("KubeConfig", () => {
  it("loads the kubeconfig file and text with context tsop-test", () => {
    expect(kc.getCurrentContext()).toBe("tsop-test");
    expect(kc.getCurrentCluster()?.server).toBe(cluster.url);
    const fromText = new KubeConfig();
    fromText.loadFromString(cluster.kubeconfig);
    expect(fromText.getCurrentUser()?.token).toBe(cluster.token);
  });
});

describe("TLS", () => {
  it("serves HTTPS by default with a CA the kubeconfig carries (TLS verification stays on)", async () => {
    const secure = await startTestCluster();
    try {
      expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(secure.kubeconfig).toContain("certificate-authority-data:");
      expect(secure.kubeconfig).not.toContain("insecure-skip-tls-verify");
      const tlsConfig = new KubeConfig();
      tlsConfig.loadFromString(secure.kubeconfig);
      const ns = await tlsConfig.makeApiClient(CoreV1Api).readNamespace({ name: "kube-system" });
      expect(ns.metadata?.name).toBe("kube-system");
    } finally {
      await secure.stop();
    }
  });

  it("serves plain HTTP with tls: false (the kubeconfig then skips verification)", async () => {
    const plain = await startTestCluster({ tls: false });
    try {
      expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(plain.caCertificate).toBeUndefined();
      expect(plain.kubeconfig).toContain("insecure-skip-tls-verify: true");
    } finally {
      await plain.stop();
    }
  });
});

describe("KubernetesObjectApi", () => {
  it("creates, reads, lists, replaces, patches and deletes built-ins", async () => {
    const cm: V1ConfigMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "obj", namespace: "default" },
      data: { a: "1" },
    };
    const created = await api.create(cm);
    expect(created.metadata?.uid).toBeTruthy();
    const read = (await api.read({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "obj", namespace: "default" },
    })) as V1ConfigMap;
    expect(read.data).toEqual({ a: "1" });
    const list = await api.list("v1", "ConfigMap", "default", undefined, undefined, undefined, undefined, "");
    expect(list.items.map((i) => i.metadata?.name)).toContain("obj");
    const replaced = (await api.replace({ ...read, data: { a: "2" } })) as V1ConfigMap;
    expect(replaced.data).toEqual({ a: "2" });
    const conflict = await apiError(api.replace({ ...read, data: { a: "3" } }));
    expect(conflict.code).toBe(409);
    expect(conflict.body.reason).toBe("Conflict");
    const merged = (await api.patch(
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "obj", namespace: "default" },
        data: { b: "x" },
      } as V1ConfigMap,
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as V1ConfigMap;
    expect(merged.data).toEqual({ a: "2", b: "x" });
    const strategic = (await api.patch({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "obj", namespace: "default" },
      data: { c: "y" },
    } as V1ConfigMap)) as V1ConfigMap;
    expect(strategic.data).toEqual({ a: "2", b: "x", c: "y" });
    await api.delete({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "obj", namespace: "default" },
    });
    const missing = await apiError(
      api.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "obj", namespace: "default" } }),
    );
    expect(missing.code).toBe(404);
    expect(missing.body.message).toBe('configmaps "obj" not found');
  });

  it("serves custom resources of a CRD, with server-side apply", async () => {
    // Created directly: client-node's typed serializer would drop the schema's `default` keywords.
    cluster.create(memcachedCrd);
    const applied = await api.patch(
      {
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name: "m", namespace: "default" },
        spec: { size: 2 },
      } as KubernetesObject,
      undefined,
      undefined,
      "my-operator",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect((applied as KubernetesObject & { spec: { size: number; image: string } }).spec).toEqual({
      size: 2,
      image: "memcached:1.6",
    });
    const invalid = await apiError(
      api.create({
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name: "bad", namespace: "default" },
        spec: { size: 9 },
      } as KubernetesObject),
    );
    expect(invalid.code).toBe(422);
    expect(invalid.body.reason).toBe("Invalid");
    const strategic = await apiError(
      api.patch({
        apiVersion: "cache.example.com/v1alpha1",
        kind: "Memcached",
        metadata: { name: "m", namespace: "default" },
        spec: { size: 3 },
      } as KubernetesObject),
    );
    expect(strategic.code).toBe(415);
  });

  it("works through typed APIs (CoreV1Api)", async () => {
    const ns = await core.readNamespace({ name: "default" });
    expect(ns.status?.phase).toBe("Active");
    const sa = await core.listNamespacedServiceAccount({ namespace: "default" });
    expect(sa.items.map((s) => s.metadata?.name)).toContain("default");
  });
});

describe("Watch", () => {
  it("streams events and reports the server closing the connection", async () => {
    const seen: string[] = [];
    let done: (err: unknown) => void = () => {};
    const finished = new Promise((resolve) => {
      done = resolve;
    });
    const watch = new Watch(kc);
    const req = await watch.watch(
      "/api/v1/namespaces/default/secrets",
      { allowWatchBookmarks: false },
      (type, obj) => seen.push(`${type}:${obj.metadata.name}`),
      (err) => done(err),
    );
    await core.createNamespacedSecret({
      namespace: "default",
      body: { metadata: { name: "s1" }, stringData: { k: "v" } },
    });
    await cluster.waitFor(
      "v1",
      "Secret",
      "s1",
      "default",
      (o) => o?.data?.k === Buffer.from("v").toString("base64"),
    );
    await expect.poll(() => seen).toEqual(["ADDED:s1"]);
    cluster.closeWatches();
    expect(await finished).toBeNull();
    req.abort();
  });
});

describe("controller-style informer", () => {
  it("lists, watches, resyncs, and recovers from a closed watch and from 410 Gone", async () => {
    const ns = "ctrl";
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    let lists = 0;
    let connects = 0;
    const informer = makeInformer(kc, path, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: ns });
    });
    // The controller: mirror every ConfigMap labelled role=source into "<name>-mirror".
    const queue = new Set<string>();
    const enqueue = (o: V1ConfigMap) => {
      if (o.metadata?.labels?.role === "source") queue.add(o.metadata.name!);
    };
    const reconcile = async (name: string) => {
      const source = informer.get(name, ns);
      if (!source) return;
      const mirror = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${name}-mirror`, namespace: ns },
        data: source.data ?? {},
      };
      await api.patch(mirror, undefined, undefined, "mirror-controller", true, PatchStrategy.ServerSideApply);
    };
    let stopped = false;
    const worker = (async () => {
      while (!stopped) {
        const next = queue.values().next();
        if (next.done) {
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        queue.delete(next.value);
        await reconcile(next.value).catch(() => queue.add(next.value));
      }
    })();
    informer.on("add", enqueue);
    informer.on("update", enqueue);
    informer.on("connect", () => connects++);
    // Resync: periodically re-enqueue everything in the cache, as controller-runtime does.
    const resync = setInterval(() => {
      for (const o of informer.list(ns)) enqueue(o);
    }, 100);
    await informer.start();

    const mirrorData = (name: string) => cluster.get("v1", "ConfigMap", `${name}-mirror`, ns)?.data;
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "one", labels: { role: "source" } }, data: { v: "1" } },
    });
    await expect.poll(() => mirrorData("one")).toEqual({ v: "1" });

    // A closed watch: the informer re-watches from its resourceVersion without relisting.
    const listsBefore = lists;
    const connectsBefore = connects;
    cluster.closeWatches();
    await expect.poll(() => connects).toBeGreaterThan(connectsBefore);
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: "one",
      body: [{ op: "replace", path: "/data/v", value: "2" }],
    });
    await expect.poll(() => mirrorData("one")).toEqual({ v: "2" });
    expect(lists).toBe(listsBefore);

    // 410 Gone: history compacted, watch dropped; the informer gets the ERROR event and relists.
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "elsewhere" } } });
    cluster.compact();
    cluster.closeWatches();
    await expect.poll(() => lists).toBeGreaterThan(listsBefore);
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "two", labels: { role: "source" } }, data: { v: "t" } },
    });
    await expect.poll(() => mirrorData("two")).toEqual({ v: "t" });

    // Injected 410 on the next watch request: same recovery.
    const listsBefore410 = lists;
    cluster.faults.add({ path, watch: true, status: 410 });
    cluster.closeWatches();
    await expect.poll(() => lists).toBeGreaterThan(listsBefore410);

    // Resync repairs drift no watch event reports for the source.
    await core.deleteNamespacedConfigMap({ namespace: ns, name: "two-mirror" });
    await expect.poll(() => mirrorData("two")).toEqual({ v: "t" });

    stopped = true;
    clearInterval(resync);
    await informer.stop();
    await worker;
  });
});
