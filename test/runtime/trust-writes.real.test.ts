// Issue 38's first finding, reproduced on the real kube-apiserver v1.34: a Widget applied with
// `kubectl apply`, reconciled by the operator of docs/runtime.md (get, ensureFinalizer,
// createOrUpdate of an owned ConfigMap, updateStatus), keeps kubectl's last-applied-configuration
// annotation, so the next `kubectl apply` of the manifest without spec.extra prunes spec.extra.
// Also what the design relies on: a PUT without metadata.managedFields keeps the server's.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { Client, type KubeObjectLike } from "../../src/runtime/client/client.js";
import { dropLastApplied } from "../../src/runtime/cache/transform.js";
import { loadKubeConfig } from "../../src/runtime/connect/kubeconfig.js";
import { RestMapper } from "../../src/runtime/connect/mapper.js";
import { RestClient } from "../../src/runtime/connect/rest.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { Manager, type ManagerOptions } from "../../src/runtime/manager/manager.js";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { httpGet } from "./support/cluster.js";
import {
  CM,
  installWidgetCrd,
  reconciled,
  type Widget,
  WIDGET,
  widgetController,
} from "./support/trust-writes.js";
import { waitFor } from "./support/wait.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

let cluster: RealTestCluster;
let rest: RestClient;
let client: Client;
const managers: Manager[] = [];
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
  const loaded = await loadKubeConfig({ kubeconfig: cluster.kubeconfigPath });
  rest = new RestClient(loaded.server, loaded);
  client = new Client(rest, new RestMapper(rest));
  await installWidgetCrd(client);
}, 180_000);
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  rest?.close();
  await cluster?.stop();
});

async function kubectlApply(manifest: object): Promise<void> {
  const done = await execa("kubectl", ["--kubeconfig", cluster.kubeconfigPath, "apply", "-f", "-"], {
    input: stringify(manifest),
    reject: false,
    all: true,
  });
  expect(done.exitCode, done.all).toBe(0);
}

async function startWidgetOperator(options: ManagerOptions = {}) {
  const manager = await Manager.create({
    kubeconfig: cluster.kubeconfigPath,
    metricsBindAddress: "127.0.0.1:0",
    healthProbeBindAddress: "127.0.0.1:0",
    handleSignals: false,
    gracefulShutdownTimeoutMs: 5000,
    logger: new Logger({ format: "json", level: "error", sink: { write: () => {} } }),
    ...options,
  });
  managers.push(manager);
  await widgetController(manager);
  manager.start().catch(() => {});
  await waitFor(
    "manager ready",
    async () => manager.healthProbeUrl && (await httpGet(`${manager.healthProbeUrl}/readyz`)).status === 200,
    60_000,
  );
  return manager;
}

const manifest = (name: string, namespace: string, spec: Widget["spec"]) => ({
  ...WIDGET,
  metadata: { name, namespace },
  spec,
});

describe("writes never lose what a read did not show (real kube-apiserver)", () => {
  it("kubectl apply prunes spec.extra after the operator reconciled: last-applied-configuration survives", async () => {
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "apply" } });
    await startWidgetOperator({ namespace: "apply" });
    const key = { namespace: "apply", name: "w" };
    await kubectlApply(manifest("w", "apply", { size: 1, extra: "remove me later" }));
    const first = await reconciled(client, key);
    expect(first.metadata.annotations?.[LAST_APPLIED]).toContain("remove me later");
    await kubectlApply(manifest("w", "apply", { size: 2 }));
    const second = await reconciled(client, key);
    expect(second.spec).toEqual({ size: 2 });
    const cm = await waitFor("the ConfigMap follows", async () => {
      const got = await client.get<KubeObjectLike & { data?: Record<string, string> }>(CM, {
        namespace: "apply",
        name: "w-config",
      });
      return got?.data?.size === "2" ? got : undefined;
    });
    expect(cm.data).toEqual({ size: "2" });
  }, 120_000);

  it("with dropLastApplied as the Widget's cache transform the helpers still keep the annotation, and a PUT of the copy is refused", async () => {
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "lean" } });
    const manager = await startWidgetOperator({
      namespace: "lean",
      cache: { byKind: [{ kind: WIDGET, transform: dropLastApplied }] },
    });
    const key = { namespace: "lean", name: "w" };
    await kubectlApply(manifest("w", "lean", { size: 1, extra: "x" }));
    await reconciled(client, key);
    await kubectlApply(manifest("w", "lean", { size: 1 }));
    const after = await waitFor("spec.extra pruned", async () => {
      const w = await client.get<Widget>(WIDGET, key);
      return w && w.spec?.extra === undefined ? w : undefined;
    });
    expect(after.metadata.annotations?.[LAST_APPLIED]).toBeDefined();
    const copy = (await manager.client.get<Widget>(WIDGET, key))!;
    expect(copy.metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
    await expect(manager.client.update(copy)).rejects.toThrow(/refusing to update Widget lean\/w/);
  }, 120_000);

  it("a PUT without metadata.managedFields keeps the server's (why the default transform may drop them)", async () => {
    const created = await client.create<Widget>(manifest("m", "default", { size: 1 }));
    const fields = created.metadata.managedFields;
    expect(fields?.length).toBeGreaterThan(0);
    const copy = structuredClone(created);
    delete copy.metadata.managedFields;
    copy.spec = { size: 2 };
    const updated = await client.update(copy);
    expect(updated.metadata.managedFields?.map((f) => (f as { manager: string }).manager)).toEqual(
      fields!.map((f) => (f as { manager: string }).manager),
    );
    expect(updated.metadata.managedFields?.length).toBeGreaterThan(0);
  }, 60_000);
});
