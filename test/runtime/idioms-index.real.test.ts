// Field indexes and the priority queue on the real kube-apiserver (v1.34): an index stays exact
// through a relist after 410 Gone (changes made while the informer was cut off arrive as the
// relist's diff: a delete, an update, an add), and after a restart with many existing objects a
// user's edit is reconciled before most of the initial list (and, with usePriorityQueue: false,
// after all of it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager } from "../../src/runtime/manager/manager.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { waitFor } from "./support/wait.js";

const CM = { apiVersion: "v1", kind: "ConfigMap" } as const;

type Obj = KubeObjectLike & { metadata: { name: string; namespace?: string }; data?: Record<string, string> };

let real: RealTestCluster;
/** Talks to the kube-apiserver directly (not through the fault proxy). */
let direct: Client;
let directRest: RestClient;
const managers: Manager[] = [];
const logs: string[] = [];

beforeAll(async () => {
  real = await startTestCluster({ controlPlane: "real", namespaces: ["idx", "prio-on", "prio-off"] });
  const loaded = await loadKubeConfig({ kubeconfigText: real.kubeconfig });
  directRest = new RestClient(real.apiserverUrl, loaded);
  direct = new Client(directRest, new RestMapper(directRest));
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  directRest?.close();
  await real?.stop();
});

async function startManager(namespace: string) {
  const manager = await Manager.create({
    kubeconfig: real.kubeconfigPath,
    namespace,
    metricsBindAddress: "0",
    healthProbeBindAddress: "0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "debug", sink: { write: (l: string) => logs.push(l) } }),
  });
  managers.push(manager);
  return manager;
}

describe("field indexes on the real kube-apiserver", () => {
  it("stay exact through a relist after 410 Gone", async () => {
    const ns = "idx";
    const cm = (name: string, secret: string) =>
      direct.create({ ...CM, metadata: { name, namespace: ns }, data: { secret } });
    await cm("c1", "s");
    await cm("c2", "s");
    await cm("c3", "t");
    const manager = await startManager(ns);
    await manager.indexField(CM, "data.secret", (o) => (o as Obj).data?.secret ?? []);
    manager.start().catch(() => {});
    const listed = async (value: string) =>
      (await manager.client.list<Obj>(CM, { namespace: ns, matchingFields: { "data.secret": value } })).map(
        (o) => o.metadata.name,
      );
    await waitFor("the cache to sync", () => manager.cachesSynced());
    expect(await listed("s")).toEqual(["c1", "c2"]);
    await cm("c0", "s"); // through the watch
    await waitFor("the watched create", async () => (await listed("s")).join() === "c0,c1,c2");

    const relists = () =>
      logs.filter((l) => l.includes("410 Gone") && l.includes("relisting") && l.includes("configmaps"))
        .length;
    const before = relists();
    // Hold the informer's next watch for a while, then answer it 410 Gone: the changes made
    // meanwhile reach the informer only through the relist that follows.
    real.faults.latency(2000, { watch: true, path: /configmaps$/ });
    real.faults.add({ watch: true, path: /configmaps$/, status: 410, count: 1 });
    real.closeWatches();
    await direct.delete({ kind: CM, key: { namespace: ns, name: "c1" } });
    const c2 = (await direct.get<Obj>(CM, { namespace: ns, name: "c2" }))!;
    await direct.update({ ...c2, data: { secret: "t" } });
    await cm("c4", "s");
    await waitFor("the relist after 410 Gone", () => relists() > before, 30_000);
    real.faults.clear();
    await waitFor("the index after the relist", async () => (await listed("s")).join() === "c0,c4", 30_000);
    expect(await listed("t")).toEqual(["c2", "c3"]);
    // And the cache itself agrees with the server.
    const server = (await direct.list<Obj>(CM, { namespace: ns }))
      .filter((o) => o.data?.secret === "s")
      .map((o) => o.metadata.name)
      .sort();
    expect(server).toEqual(["c0", "c4"]);
  });
});

describe("the priority queue on the real kube-apiserver", () => {
  /**
   * N objects exist when a new manager starts ("the restart"); its first reconcile waits until a
   * user's edit of the last one ("zz-edited") has been enqueued. The edit's reconcile's position.
   */
  async function editAfterRestart(ns: string, usePriorityQueue: boolean) {
    const N = 300;
    const creates: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      creates.push(
        direct.create({ ...CM, metadata: { name: `obj-${String(i).padStart(3, "0")}`, namespace: ns } }),
      );
      if (creates.length >= 20) await Promise.all(creates.splice(0));
    }
    await Promise.all(creates);
    await direct.create({ ...CM, metadata: { name: "zz-edited", namespace: ns }, data: { v: "0" } });
    const manager = await startManager(ns);
    const order: string[] = [];
    let editEnqueued = false;
    let position: number | undefined;
    await manager
      .controller(CM)
      .named(`backlog-${ns}`)
      .withOptions({ usePriorityQueue })
      .complete(async (req) => {
        order.push(req.name);
        if (order.length === 1) await waitFor("the edit enqueued", () => editEnqueued, 60_000);
        else if (req.name === "zz-edited" && position === undefined) position = order.length;
      });
    // Added after the controller's handler: when it sees the edit, the controller has enqueued it.
    (await manager.informerFor(CM)).addHandler({
      onUpdate: (old, obj) => {
        if (old !== obj && obj.metadata?.name === "zz-edited") editEnqueued = true;
      },
    });
    manager.start().catch(() => {});
    await waitFor("the first reconcile", () => order.length >= 1, 60_000);
    const obj = (await direct.get<Obj>(CM, { namespace: ns, name: "zz-edited" }))!;
    await direct.update({ ...obj, data: { v: "1" } });
    await waitFor("the edit reconciled", () => position !== undefined, 60_000);
    await manager.stop();
    return { position: position!, total: N + 1 };
  }

  it("reconciles a user's edit after a restart before most of the initial list", async () => {
    const { position } = await editAfterRestart("prio-on", true);
    expect(position).toBe(2); // right after the reconcile that was running
  });

  it("(with usePriorityQueue: false the edit waits behind the whole initial list)", async () => {
    const { position, total } = await editAfterRestart("prio-off", false);
    expect(position).toBe(total); // its place in the initial list: last
  });
});
