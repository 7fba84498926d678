// Issue 39 items 3 and 6 on the real kube-apiserver (v1.34), where the in-memory server does not
// serve them or its answer is only a model: a strategic merge patch of a Deployment keeps a
// container another writer added; a Pod's eviction; a ServiceAccount's token; a Deployment's
// scale; a dry-run create stores nothing; deleteAllOf deletes by label.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { strategicMergeFrom } from "../../src/runtime/client/strategic-merge.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";

const DEPLOY = { apiVersion: "apps/v1", kind: "Deployment" } as const;
const POD = { apiVersion: "v1", kind: "Pod" } as const;
const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;
const SA = { apiVersion: "v1", kind: "ServiceAccount" } as const;

type Deployment = KubeObjectLike & {
  metadata: { name: string; namespace?: string };
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Array<{ name: string; image: string }> };
    };
  };
};

let cluster: RealTestCluster;
let rest: RestClient;
let client: Client;
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfig: cluster.kubeconfigPath });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
}, 180_000);
afterAll(async () => {
  rest?.close();
  await cluster?.stop();
});

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

describe("on kube-apiserver", () => {
  it("strategicMergeFrom: a container another writer added is kept", async () => {
    const live = await client.create(deployment("smp"));
    const base = structuredClone(live);
    const other = structuredClone(live);
    other.spec.template.spec.containers.push({ name: "sidecar", image: "side:1" });
    await client.update(other);
    live.spec.template.spec.containers[0]!.image = "app:2";
    const out = await client.patch(live, strategicMergeFrom(base));
    expect(out.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      "app=app:2",
      "sidecar=side:1",
    ]);
  });

  it('subResource("eviction") evicts a Pod', async () => {
    const pod = await client.create({
      ...POD,
      metadata: { name: "evicted", namespace: "default" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    await client.subResource("eviction").create(pod, { apiVersion: "policy/v1", kind: "Eviction" });
    // Never scheduled (no kubelet here), so the eviction deletes it at once.
    expect(await client.get(POD, { namespace: "default", name: "evicted" })).toBeUndefined();
  });

  it('subResource("token") issues a ServiceAccount token', async () => {
    const sa = await client.create({ ...SA, metadata: { name: "robot", namespace: "default" } });
    const answer = await client
      .subResource("token")
      .create<{ status: { token: string; expirationTimestamp: string } }>(sa, {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: { expirationSeconds: 600 },
      });
    expect(answer.status.token.split(".")).toHaveLength(3); // a JWT
    const claims = JSON.parse(Buffer.from(answer.status.token.split(".")[1]!, "base64url").toString()) as {
      sub: string;
    };
    expect(claims.sub).toBe("system:serviceaccount:default:robot");
  });

  it('subResource("scale") reads and writes a Deployment\'s replicas', async () => {
    const d = await client.create(deployment("scaled"));
    const scale = client.subResource("scale");
    const s = await scale.get<{ kind: string; spec: { replicas: number } }>(d);
    expect(s).toMatchObject({ kind: "Scale", spec: { replicas: 1 } });
    await scale.update(d, { ...s, spec: { replicas: 4 } });
    await scale.patch(d, { spec: { replicas: 2 } });
    expect(
      (await client.get<Deployment>(DEPLOY, { namespace: "default", name: "scaled" }))?.spec.replicas,
    ).toBe(2);
  });

  it("dryRun: a create answers the object and stores nothing", async () => {
    const answer = await client.create(
      { ...CM, metadata: { name: "dry", namespace: "default" }, data: { a: "1" } },
      { dryRun: true },
    );
    expect(answer.metadata.name).toBe("dry");
    expect(await client.get(CM, { namespace: "default", name: "dry" })).toBeUndefined();
  });

  it("deleteAllOf deletes the objects with the label, and only those", async () => {
    for (const [name, tier] of [
      ["a", "cache"],
      ["b", "cache"],
      ["c", "db"],
    ] as const)
      await client.create({ ...CM, metadata: { name, namespace: "default", labels: { tier } } });
    await client.deleteAllOf(CM, { namespace: "default", labelSelector: { tier: "cache" } });
    const left = await client.list(CM, { namespace: "default", labelSelector: "tier" });
    expect(left.map((o) => (o.metadata as { name: string }).name)).toEqual(["c"]);
  });
});
